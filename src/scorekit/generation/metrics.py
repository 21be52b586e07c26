"""The caption family's metrics: importing this module registers every one of them — one line
per metric module (each metric class carries ``@register``)."""

from __future__ import annotations

import scorekit.generation.bleu  # noqa: F401
import scorekit.generation.chrf  # noqa: F401
import scorekit.generation.cider  # noqa: F401
import scorekit.generation.meteor  # noqa: F401
import scorekit.generation.meteor15  # noqa: F401
import scorekit.generation.rouge  # noqa: F401
import scorekit.generation.spec_recipe  # noqa: F401  (declares the --recipe spec keys)
import scorekit.generation.model_metrics  # noqa: F401
