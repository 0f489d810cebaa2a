"""Tokenisation: lower-case word runs, and content terms (no stop words, a plural 's' dropped)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")

STOP_WORDS = frozenset(
    "a about after all also an and any are as at be been before being between both but by can could did do does "
    "doing during each for from had has have having here how i if in into is it its it's just many may might more "
    "most much must no not of on only or other our ours over own per same should so some such than that the their "
    "them then there these they this those to under very was were what when where which while who whom whose why "
    "will with would you your".split()
)
"""The one stop-word list: function words that say nothing about what a task or a skill is about."""


def words(text: str) -> list[str]:
    """Every lower-case run of letters and digits, in order (no word is dropped)."""
    return _WORD.findall(text.lower())


def terms(text: str) -> list[str]:
    """Content terms: words minus stop words; a trailing plural 's' is dropped so 'units' matches 'unit'."""
    kept = [w for w in words(text) if w not in STOP_WORDS]
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in kept]
