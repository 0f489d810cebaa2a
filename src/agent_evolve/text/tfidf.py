"""Tokens (lower-case words; content terms without stop words or a plural 's') and smoothed tf-idf vectors (sparse
``{term: weight}`` dicts, L2-normalised, ``idf = ln((1 + n) / (1 + df)) + 1`` as scikit-learn) with their cosine."""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

_UNSPACED = re.compile(  # scripts written without spaces between words: Han, kana, Thai, Lao, Myanmar, Khmer
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+")
_ASCII_WORD = re.compile(r"[a-z0-9]+")

STOP_WORDS = frozenset(
    "a about after all also an and any are as at be been before being between both but by can could did do does "
    "doing during each for from had has have having here how i if in into is it its it's just many may might more "
    "most much must no not of on only or other our ours over own per same should so some such than that the their "
    "them then there these they this those to under very was were what when where which while who whom whose why "
    "will with would you your".split()
)
"""The one stop-word list: function words that say nothing about what a task or a skill is about."""


@functools.cache
def _word_pattern() -> re.Pattern[str]:
    """Runs of letters, digits and combining marks (vowel signs and accents of Devanagari, Thai or decomposed Latin
    belong to their word), built once from the Unicode tables of the basic plane."""
    marks = "".join(re.escape(chr(c)) for c in range(0x10000) if unicodedata.category(chr(c)) in ("Mn", "Mc"))
    return re.compile(rf"(?:[^\W_]|[{marks}])+")


def words(text: str) -> list[str]:
    """Every lower-case run of letters and digits of any script, in order (no word is dropped); a run in a script
    written without spaces gives its character pairs instead, so Chinese or Thai questions can share terms."""
    found: list[str] = []
    for run in _word_pattern().findall(text.lower()):
        if run.isascii():
            found.append(run)
            continue
        at = 0
        for unspaced in _UNSPACED.finditer(run):
            found.extend(filter(None, [run[at:unspaced.start()]]))
            chars = unspaced.group()
            found.extend([chars] if len(chars) == 1 else [chars[i:i + 2] for i in range(len(chars) - 1)])
            at = unspaced.end()
        found.extend(filter(None, [run[at:]]))
    return found


def ascii_words(text: str) -> list[str]:
    """The lower-case runs of ASCII letters and digits (what names and slugs may hold)."""
    return _ASCII_WORD.findall(text.lower())


def terms(text: str) -> list[str]:
    """Content terms: words minus stop words; a trailing plural 's' is dropped so 'units' matches 'unit'."""
    kept = [w for w in words(text) if w not in STOP_WORDS]
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in kept]


Analyzer = Callable[[str], list[str]]
Vector = dict[str, float]


def idf_table(counts: Sequence[Counter[str]]) -> dict[str, float]:
    """Each term's smoothed inverse document frequency over the counted documents."""
    frequency: Counter[str] = Counter(term for c in counts for term in c)
    n = len(counts)
    return {term: math.log((1 + n) / (1 + df)) + 1.0 for term, df in frequency.items()}


def weigh(counts: Mapping[str, int], idf: Mapping[str, float]) -> Vector:
    """The L2-normalised tf-idf vector of one document's term counts (terms without an idf are dropped)."""
    vector = {t: c * idf[t] for t, c in counts.items() if t in idf}
    norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
    return {t: v / norm for t, v in vector.items()}


def tfidf_vectors(docs: Iterable[str], analyzer: Analyzer = words) -> list[Vector]:
    """The tf-idf vectors of ``docs``, with the idf taken over ``docs`` themselves."""
    counts = [Counter(analyzer(doc)) for doc in docs]
    idf = idf_table(counts)
    return [weigh(c, idf) for c in counts]


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """The cosine of two normalised sparse vectors (their dot product)."""
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(t, 0.0) for t, v in a.items())


def text_similarity(a: str, b: str, analyzer: Analyzer = words) -> float:
    """The tf-idf cosine of two texts, with the idf taken over the two of them."""
    va, vb = tfidf_vectors([a, b], analyzer)
    return cosine(va, vb)
