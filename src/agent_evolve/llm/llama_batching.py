"""The batched local model's scheduling as pure functions over token lists (prefix reuse, decode steps, drafts, reply
ends), applied by :mod:`agent_evolve.llm.providers.llama_engine` and tested without a model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

Finish = Literal["stop", "length", "timeout"]


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


@dataclass(frozen=True)
class Placement:
    """Where a request goes: its slot, the slot whose cached prefix it copies (maybe the same), and how much."""

    slot: int
    source: int
    reuse: int


def place(prompt: Sequence[int], free: Sequence[int], cached: dict[int, Sequence[int]],
          last_used: Mapping[int, int] | None = None) -> Placement:
    """The free slot for ``prompt`` and the longest cached prefix for it (its last token always left to decode): a
    slot whose cache the prompt keeps whole (empty or a prefix of it), sharing most first, else the least recently
    used (``last_used``: larger is later); the prefix is copied from whichever slot shares most, so a request never
    destroys a cached prompt while a slot it would not destroy is free. Ties go to the lowest slot (deterministic)."""
    limit = max(len(prompt) - 1, 0)
    shares = {s: min(common_prefix(prompt, tokens), limit) for s, tokens in cached.items()}
    used = last_used or {}

    def cost(s: int) -> tuple[int, int, int, int]:
        kept_whole = len(cached.get(s, ())) <= shares.get(s, 0)
        return (0, -shares.get(s, 0), 0, s) if kept_whole else (1, 0, used.get(s, -1), s)

    slot = min(free, key=cost)
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
    complete_at: Callable[[str], int | None] | None = None
    draft: list[int] = field(default_factory=list)

    def expired(self, now: float) -> bool:
        return self.deadline is not None and now >= self.deadline


@dataclass(frozen=True)
class Entry:
    """The tokens one slot feeds to a decode step, from position ``start``; logits are wanted for the last
    ``outputs`` of them (1 to sample the next token, 1 + drafts to verify a draft, 0 mid-prompt)."""

    slot: int
    tokens: list[int]
    start: int
    outputs: int


def plan_step(active: Sequence[Active], n_batch: int) -> list[Entry]:
    """One decode step: each generating sequence's next token (and draft, while room is left), then prompt chunks; a
    prompt asks logits only for its last token, so a long one is read over several steps."""
    generating = [a for a in active if a.next_token is not None]
    room = n_batch - len(generating)
    entries = []
    for a in generating:
        draft = a.draft[:max(room, 0)]
        room -= len(draft)
        entries.append(Entry(a.slot, [a.next_token, *draft], a.n_past, 1 + len(draft)))  # type: ignore[list-item]
    for a in active:
        if a.next_token is not None or not a.pending or room <= 0:
            continue
        chunk = a.pending[:room]
        entries.append(Entry(a.slot, chunk, a.n_past, int(len(chunk) == len(a.pending))))
        room -= len(chunk)
    return entries


def lookup_draft(history: Sequence[int], max_ngram: int, max_tokens: int) -> list[int]:
    """Prompt-lookup draft: up to ``max_tokens`` tokens that followed the latest earlier occurrence of the longest
    n-gram (up to ``max_ngram``) ending ``history``; replies that copy from their prompt recur there."""
    size = len(history)
    for n in range(min(max_ngram, size - 1), 0, -1):
        tail = list(history[size - n:])
        for start in range(size - n - 1, -1, -1):
            if list(history[start:start + n]) == tail:
                return list(history[start + n:start + n + max_tokens])
    return []


def accepted_tokens(draft: Sequence[int], choose: Callable[[int], int]) -> list[int]:
    """The tokens a verified draft yields: drafted tokens the model chose (``choose(i)``, asked in order), then its
    own next token, so greedy output is the same as without a draft."""
    kept: list[int] = []
    for i, drafted in enumerate(draft):
        chosen = choose(i)
        if chosen != drafted:
            return [*kept, chosen]
        kept.append(drafted)
    return [*kept, choose(len(draft))]


def stop_index(text: str, stops: Sequence[str]) -> int | None:
    """Where the earliest stop string begins in ``text``, or None."""
    return min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=None)


def reply_end(text: str, stops: Sequence[str], complete_at: Callable[[str], int | None] | None) -> int | None:
    """Where the reply ends: the earliest stop string, or where ``complete_at`` says the answer is complete."""
    ends = [stop_index(text, stops), complete_at(text) if complete_at is not None else None]
    return min((end for end in ends if end is not None), default=None)
