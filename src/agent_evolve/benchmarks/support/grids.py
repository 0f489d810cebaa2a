"""ARC grids: parse them out of model output (JSON lists or rows of digits), render and compare them."""

from __future__ import annotations

import re
from typing import Any

from agent_evolve.benchmarks.support.common import fenced_blocks
from agent_evolve.errors import AgentEvolveError
from agent_evolve.io.safe_json import parse_json

Grid = list[list[int]]

_ROW = re.compile(r"^\s*(\d(?:[ ,]+\d)*|\d+)\s*$")
_OPEN = re.compile(r"\[\s*\[")


def is_grid(value: Any) -> bool:
    """A non-empty rectangle of integers 0-9."""
    if not isinstance(value, list) or not value or not all(isinstance(row, list) and row for row in value):
        return False
    width = len(value[0])
    return all(len(row) == width and all(type(c) is int and 0 <= c <= 9 for c in row) for row in value)


def _json_grids(text: str) -> list[tuple[int, Grid]]:
    """Every JSON list of lists in the text that is a grid, with its position."""
    found: list[tuple[int, Grid]] = []
    pos = 0
    while (match := _OPEN.search(text, pos)) is not None:
        start, depth, end = match.start(), 0, None
        for k in range(start, len(text)):
            depth += {"[": 1, "]": -1}.get(text[k], 0)
            if depth == 0:
                end = k + 1
                break
        if end is None:
            break
        try:
            value = parse_json(text[start:end], "model output")
        except AgentEvolveError:
            value = None
        if is_grid(value):
            found.append((start, value))
            pos = end
        else:
            pos = start + 1
    return found


def _row_grids(text: str, offset: int, min_rows: int) -> list[tuple[int, Grid]]:
    """Blocks of consecutive digit rows of equal width, with their positions."""
    found: list[tuple[int, Grid]] = []
    block: Grid = []
    block_start = 0
    position = offset
    for line in [*text.splitlines(keepends=True), ""]:
        match = _ROW.match(line.rstrip("\n"))
        row = [int(c) for c in re.findall(r"\d", match.group(1))] if match else None
        if row is not None and (not block or len(row) == len(block[0])):
            if not block:
                block_start = position
            block.append(row)
        else:
            if len(block) >= min_rows:
                found.append((block_start, block))
            block = [row] if row is not None else []
            block_start = position
        position += len(line)
    return found


def parse_grids(text: str) -> list[Grid]:
    """All grids in a text in order: JSON grids anywhere, digit rows (2+ rows, or 1+ inside a ``` block)."""
    found = dict(_json_grids(text))
    for start, grid in _row_grids(text, 0, 2):
        found.setdefault(start, grid)
    for _, body in fenced_blocks(text):
        for start, grid in _row_grids(body, text.find(body), 1):
            found.setdefault(start, grid)
    return [found[k] for k in sorted(found)]


def render_grid(grid: Grid) -> str:
    """Rows of digits, one row a line."""
    return "\n".join("".join(str(c) for c in row) for row in grid)


def compare_grids(predicted: Grid, expected: Grid) -> str:
    """'exact match', or how the prediction differs in shape or cells."""
    rows, cols = len(expected), len(expected[0])
    if len(predicted) != rows or len(predicted[0]) != cols:
        return f"wrong shape: {len(predicted)}x{len(predicted[0])}, expected {rows}x{cols}"
    wrong = sum(p != e for prow, erow in zip(predicted, expected, strict=True)
                for p, e in zip(prow, erow, strict=True))
    return "exact match" if wrong == 0 else f"{wrong} of {rows * cols} cells differ"
