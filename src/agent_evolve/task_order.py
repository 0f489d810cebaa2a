"""The one seeded order every split uses and the `dev` split design work uses: pure hashing of task ids, below
both the benchmarks (their train/test splits) and the engine (its holdout and validation carving)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def stable_key(seed: int | str, item_id: str) -> str:
    """A hash of (seed, id) that is the same on every machine and Python version; a named split's key (a string)
    hashes apart from every integer seed."""
    separator = "\x01" if isinstance(seed, str) else "\x00"
    return hashlib.sha256(f"{seed}{separator}{item_id}".encode()).hexdigest()


def seeded_order(ids: Sequence[str], seed: int) -> list[str]:
    """The ids in the order of their seeded hash: what every train/test split and the holdout carve from."""
    return sorted(ids, key=lambda item_id: stable_key(seed, item_id))


DEV_KEY = "dev"
DEV_FRACTION = 0.15
"""About this share of the train split is `dev`: chosen per task id by a hash keyed apart from every seed, so a
task is dev or not whatever the pool, the seed or the benchmark's order."""


def is_dev(item_id: str) -> bool:
    """Whether a train task belongs to the dev split (design data: never carved into a gate's holdout)."""
    return int(stable_key(DEV_KEY, item_id)[:8], 16) < DEV_FRACTION * 16**8
