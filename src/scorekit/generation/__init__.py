"""Caption metrics (BLEU, METEOR, ROUGE-L, CIDEr, chrF, BERTScore, CLIPScore).

``from scorekit.generation import evaluate`` scores captions and returns a
:class:`scorekit.result.Result`; each metric is also a class with a functional and a stateful
face (see :mod:`scorekit.generation.batch`)."""


def evaluate(*args, **kwargs):
    """See :func:`scorekit.generation.driver.evaluate`."""
    from scorekit.generation.driver import evaluate as _evaluate

    return _evaluate(*args, **kwargs)
