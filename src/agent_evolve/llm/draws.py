"""Draws of a sampled request: the n-th identical request is draw n (from 0), with its own seed and cache key in any
run order; the metered client counts them and hands each to the client it wraps (`drawing`), so cache hits shift no
later draw's seed."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

KEPT_REQUESTS = 4096  # distinct sampled requests remembered; the oldest is forgotten first


class DrawCounter:
    """Counts identical sampled requests; `next` returns 0 for the first, 1 for the second, and so on."""

    def __init__(self, kept: int = KEPT_REQUESTS) -> None:
        self.kept = kept
        self._seen: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def next(self, request: Any) -> int:
        """The draw number of `request` (anything JSON can write), counting this call."""
        key = hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode("utf-8")).hexdigest()
        with self._lock:
            draw = self._seen.pop(key, -1) + 1
            self._seen[key] = draw
            while len(self._seen) > self.kept:
                self._seen.popitem(last=False)
        return draw


def draw_seed(seed: int, draw: int) -> int:
    """The sampler seed of draw `draw` for a client seeded `seed` (draw 0 keeps `seed`)."""
    return (seed + draw * 7919) % 2**32


_current_draw: ContextVar[int | None] = ContextVar("agent_evolve_draw", default=None)


@contextmanager
def drawing(draw: int) -> Iterator[None]:
    """Within the block, this thread's model call is draw `draw` of its request (set by the metered client)."""
    token = _current_draw.set(draw)
    try:
        yield
    finally:
        _current_draw.reset(token)


def current_draw() -> int | None:
    """The draw the metered client handed to this call, or None for a call made outside it."""
    return _current_draw.get()
