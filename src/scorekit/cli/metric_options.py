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

    def process_value(self, ctx, value):
        """``-m ","`` or ``-m ""`` names no metric: an error, not a run that scores nothing (the
        JSON held ``"metrics": {}``, exit 0)."""
        value = super().process_value(ctx, value)
        if value is not None:
            from scorekit.metrics.registry import split_specs

            if not split_specs(value):
                raise click.BadParameter(f"no metric named in {value!r} (leave -m out for the defaults)", ctx, self)
        return value

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


def metric_specs(text: str | None, family: str, defaults=None):
    """``-m`` text in the name grammar (``"chrf(beta=3),bleu_4"``) -> metric specs; ``defaults``
    (optional when named by name: skipped with their reason if a dependency is missing) when no
    text is given; None when neither is."""
    from scorekit.metrics.registry import MetricSpec, split_specs

    if text:
        return [MetricSpec(t) for t in split_specs(text)]
    if defaults is None:
        return None
    return [MetricSpec.of(d) if isinstance(d, MetricSpec) else MetricSpec(d, optional=True) for d in defaults]
