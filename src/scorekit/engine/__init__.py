"""Where the work runs: in this process (``local``, the default) or on a Ray cluster (``ray``).

The metric contract makes sharding exact: every metric computes per-item sufficient statistics on
a shard, statistics merge by concatenation (or summing, for counts), and the score is computed
once from the merged statistics on the driver. Corpus statistics that need a first pass (CIDEr's
document frequencies, BERTScore's idf) take one, sharded too. See ``docs/scale-out.md``.

``scorekit.engine.ray_engine`` needs the optional extra ``ray`` (``pip install -e '.[ray]'`` in the checkout, or a built wheel's ``[ray]``); nothing
in the core install imports Ray.
"""

from __future__ import annotations
