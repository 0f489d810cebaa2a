"""Stop rules: where a reply of an answer kind (``stop_rule("number")``) is complete, so the embedded model can end
it there; remote providers see only the plain stop list, and no rule ends a reply inside an open code fence."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_evolve.text.fences import FENCE_LINE, PYTHON_OPENING_LINE

Completeness = Callable[[str], int | None]

_ANSWER_LINE = re.compile(
    r"^[ \t*#>_]*(?:final[ \t]+)?answer[ \t*_]*[:=][ \t*_]*\\?\$?[ \t]*[-\u2212]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)"
    r"(?:[ \t]*/[ \t]*\d+)?[ \t*_.$]*$",
    re.IGNORECASE | re.MULTILINE,
)
_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]", re.MULTILINE)


class StopRule(list[str]):
    """An empty stop list (remote providers see no stop) that tells the embedded model where a reply of ``kind`` is
    complete (``complete_at``)."""

    def __init__(self, kind: str, complete_at: Completeness) -> None:
        super().__init__()
        self.kind = kind
        self.complete_at = complete_at

    def __repr__(self) -> str:
        return f"StopRule({self.kind!r})"


def fenced_lines(text: str) -> list[tuple[int, int, str]]:
    """Every complete line of ``text`` that starts a code fence: (start, end, line), end before its newline."""
    found = []
    for match in FENCE_LINE.finditer(text):
        end = text.find("\n", match.start())
        if end < 0:
            break
        found.append((match.start(), end, text[match.start():end]))
    return found


def answer_line_end(text: str) -> int | None:
    """The end of the first finished ``Answer: <number>`` line (its newline generated) outside any code fence."""
    fences = [start for start, _, _ in fenced_lines(text)]
    for match in _ANSWER_LINE.finditer(text):
        end = match.end()
        if end >= len(text) or text[end] != "\n":
            continue
        if sum(1 for start in fences if start < match.start()) % 2 == 0:
            return end
    return None


def closed_python_block_end(text: str) -> int | None:
    """The end of the closing fence of the first Python (or untagged) code block with a ``def`` or ``class`` line."""
    fences = fenced_lines(text)
    index = 0
    while index + 1 < len(fences):
        (_, open_end, opening), (close_start, close_end, closing) = fences[index], fences[index + 1]
        if closing.strip() != "```":
            index += 1
            continue
        body = text[open_end + 1:close_start]
        if PYTHON_OPENING_LINE.match(opening) and _DEFINITION.search(body):
            return close_end
        index += 2
    return None


_RULES: dict[str, Completeness] = {"number": answer_line_end, "code": closed_python_block_end}


def stop_rule(kind: str | None) -> StopRule | None:
    """The stop rule for an answer kind ("number", "code"); None for kinds without one (they end on their own)."""
    return StopRule(kind, _RULES[kind]) if kind in _RULES else None
