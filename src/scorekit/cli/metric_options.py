"""``--metrics`` options whose help is read from the one metric registry."""

from __future__ import annotations

import click


class MetricsOption(click.Option):
    """``--metrics`` whose help lists the family's registered metrics and keys, read from the
    one registry when help is shown (so startup imports no metric module)."""

    def __init__(self, *args, family: str, lead: str, **kwargs):
        self.family, self.lead = family, lead
        kwargs.setdefault("help", lead)   # the registry's list is added when help is shown
        super().__init__(*args, **kwargs)

    def get_help_record(self, ctx):
        from scorekit.metrics.registry import REGISTRY

        names = REGISTRY.names(self.family)
        # keys a metric class computes (not keys only declared, such as --recipe spec's spec_cider)
        keys = list(dict.fromkeys(i.key for i in REGISTRY.infos(self.family) if i.metric in names and i.key not in names))
        specs = []
        for cls in REGISTRY.classes(self.family):   # each metric with the parameters it declares
            params = [p.name for p in cls.params if not p.batch]
            specs.append(f"{cls.name}({', '.join(params)})" if params else cls.name)
        self.help = f"{self.lead} Metrics: {', '.join(specs)}. Keys: {', '.join(keys)}."
        return super().get_help_record(ctx)


def metric_specs(text: str | None, family: str, defaults=None, shorthands=None):
    """``-m`` text in the name grammar (``"chrf(beta=3),bleu_4"``) -> metric specs (``defaults``
    when not given), with each command-line shorthand (``{"bertscore": {"model": DIR}}``: what
    ``--bert-model DIR`` means) applied to the specs of that metric as a default its own
    parameters override. None when neither text nor defaults are given."""
    from scorekit.metrics.registry import MetricSpec, metric_class_for, split_specs

    if text:
        names = [MetricSpec(t) for t in split_specs(text)]
    elif defaults is not None:
        names = [MetricSpec.of(d) if isinstance(d, MetricSpec) else MetricSpec(d, optional=True) for d in defaults]
    else:
        return None
    out = []
    for spec in names:
        set_ = (shorthands or {}).get(metric_class_for(family, spec.name).name)
        out.append(spec.with_defaults(**set_) if set_ else spec)
    return out
