"""Scheduling decisions of the batched local model, without llama.cpp: which cached prefix a request reuses,
what one decode step carries, and where a reply ends.

The engine (:mod:`agent_evolve.llm.providers.llama_engine`) keeps one KV-cache sequence per slot and applies
these decisions; here they are pure functions over token lists, tested without a model.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Finish = Literal["stop", "length", "timeout"]


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


@dataclass(frozen=True)
class Placement:
    """Where a request goes: its slot, the slot whose cached prefix it copies (maybe the same), and how much."""

    slot: int
    source: int
    reuse: int


def place(prompt: Sequence[int], free: Sequence[int], cached: dict[int, Sequence[int]]) -> Placement:
    """The free slot for ``prompt`` and the longest cached prefix any slot holds for it.

    Every prompt keeps at least its last token to decode (that step yields the first reply token's logits).
    Ties go to the request's own slot, then to the lowest slot number, so placement is deterministic.
    """
    if not free:
        raise ValueError("no free slot")
    limit = max(len(prompt) - 1, 0)
    shares = {s: min(common_prefix(prompt, tokens), limit) for s, tokens in cached.items()}
    slot = max(free, key=lambda s: (shares.get(s, 0), -s))
    best = max(shares.values(), default=0)
    source = slot if shares.get(slot, 0) >= best else min(s for s, n in shares.items() if n == best)
    return Placement(slot, source, shares.get(source, 0))


@dataclass
class Active:
    """One request being served in a slot: prompt tokens still to read, tokens generated, the reply so far."""

    slot: int
    pending: list[int]
    n_past: int
    max_tokens: int
    stops: tuple[str, ...]
    deadline: float | None
    generated: list[int] = field(default_factory=list)
    text: bytes = b""
    next_token: int | None = None
    finish: Finish | None = None

    def expired(self, now: float | None = None) -> bool:
        return self.deadline is not None and (time.monotonic() if now is None else now) >= self.deadline


@dataclass(frozen=True)
class Entry:
    """The tokens one slot feeds to a decode step, from position ``start``; ``logits`` when it samples next."""

    slot: int
    tokens: list[int]
    start: int
    logits: bool


def plan_step(active: Sequence[Active], n_batch: int) -> list[Entry]:
    """One decode step: every generating sequence's next token first, then prompt chunks while room is left.

    A prompt asks for logits only with its last token, so a long prompt is read over several steps while the
    other sequences keep generating.
    """
    entries = [Entry(a.slot, [a.next_token], a.n_past, True) for a in active if a.next_token is not None]
    room = n_batch - len(entries)
    for a in active:
        if a.next_token is not None or not a.pending or room <= 0:
            continue
        chunk = a.pending[:room]
        entries.append(Entry(a.slot, chunk, a.n_past, len(chunk) == len(a.pending)))
        room -= len(chunk)
    return entries


def stop_index(text: str, stops: Sequence[str]) -> int | None:
    """Where the earliest stop string begins in ``text``, or None."""
    found = [i for i in (text.find(s) for s in stops if s) if i >= 0]
    return min(found) if found else None
