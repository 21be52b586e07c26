"""Caption metrics (BLEU, METEOR, ROUGE-L, CIDEr, chrF, BERTScore, CLIPScore).

``from scorekit.generation import evaluate`` scores captions and returns a
:class:`scorekit.result.Result`; each metric is also a class with a functional and a stateful
face (see :mod:`scorekit.generation.batch`)."""


def evaluate(*args, **kwargs):
    """See :func:`scorekit.generation.driver.evaluate`."""
    from scorekit.generation.driver import evaluate as _evaluate

    return _evaluate(*args, **kwargs)


def evaluate_files(*args, **kwargs):
    """See :func:`scorekit.generation.targets.evaluate_files` (``scorekit caption`` as one call)."""
    from scorekit.generation.targets import evaluate_files as _evaluate_files

    return _evaluate_files(*args, **kwargs)
