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
        self.help = f"{self.lead} Metrics: {', '.join(names)}. Keys: {', '.join(keys)}."
        return super().get_help_record(ctx)
