"""Input shards for the engines: see :mod:`scorekit.io.shards` (the readers use it too)."""

from scorekit.io.shards import SHARD_SUFFIXES, expand

__all__ = ["SHARD_SUFFIXES", "expand"]
