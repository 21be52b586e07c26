"""Where the work runs: in this process (``local``, the default), in forked parts, or on a Ray
cluster (``ray``); the same numbers everywhere, since metrics merge per-item statistics and score
once (docs/scale-out.md). ``scorekit.engine.ray_engine`` needs the optional extra ``ray``; nothing
in the core install imports Ray.
"""

from __future__ import annotations
