"""Grading reasoning-mini answers: the text after the reply's last ``Answer:`` line, normalised and compared by the
family's mode (numbers as values, text and lists normalised, dates as calendar days)."""

from __future__ import annotations

import datetime
import re

from agent_evolve.benchmarks.support.answers import extract_number, numbers_equal
from agent_evolve.benchmarks.suites.reasoning_families import Puzzle

_ANSWER_LINE = re.compile(r"^[\s*#>_`]*(?:final\s+)?answer(?:\s+is)?\s*\**\s*[:=]\s*(.*)$",
                          re.IGNORECASE | re.MULTILINE)
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_MONTHS = {name.lower(): index for index, name in enumerate(
    ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
     "December"), start=1)}
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_WRITTEN = re.compile(r"\b([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_WRITTEN_DAY_FIRST = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z]+),?\s+(\d{4})\b")
_SLASHED = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")


def final_answer(output: str) -> str:
    """The text after the last ``Answer:`` line, else the last non-empty line; a \\boxed{} answer unwrapped."""
    found = _ANSWER_LINE.findall(output)
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    text = found[-1].strip() if found else (lines[-1] if lines else "")
    boxed = _BOXED.findall(text)
    return boxed[-1] if boxed else text


def normalise(text: str) -> str:
    """Lower case, surrounding quotes, stars and backticks, a trailing period and a leading "the" dropped."""
    text = " ".join(text.strip().strip("*`'\"").strip().rstrip(".").split()).casefold()
    return text.removeprefix("the ").strip("*`'\" ")


def list_items(text: str) -> list[str]:
    """The items of a list answer: split at commas (or at spaces when there is no comma), normalised."""
    text = text.strip().strip("[]")
    parts = text.split(",") if "," in text else text.split()
    return [normalise(part) for part in parts if normalise(part)]


def parse_date(text: str) -> datetime.date | None:
    """The first date in ``text``: 2021-03-05, March 5, 2021, 5 March 2021 or 03/05/2021 (month first)."""
    attempts = []
    if match := _ISO.search(text):
        attempts.append((int(match[1]), int(match[2]), int(match[3])))
    if match := _WRITTEN.search(text):
        attempts.append((int(match[3]), _MONTHS.get(match[1].lower(), 0), int(match[2])))
    if match := _WRITTEN_DAY_FIRST.search(text):
        attempts.append((int(match[3]), _MONTHS.get(match[2].lower(), 0), int(match[1])))
    if match := _SLASHED.search(text):
        attempts.append((int(match[3]), int(match[1]), int(match[2])))
    for year, month, day in attempts:
        try:
            return datetime.date(year, month, day)
        except ValueError:
            continue
    return None


def grade(puzzle: Puzzle, output: str) -> tuple[bool, str]:
    """Whether the reply's final answer is the puzzle's answer, and the answer as read (for feedback)."""
    given = final_answer(output)
    if puzzle.grading == "number":
        number = extract_number(given if _ANSWER_LINE.search(output) else output)
        return numbers_equal(number, puzzle.answer), number or ""
    if puzzle.grading == "list":
        return list_items(given) == list_items(puzzle.answer), given
    if puzzle.grading == "date":
        day = parse_date(given)
        return day is not None and day.isoformat() == puzzle.answer, given
    accepted = {normalise(puzzle.answer), *(normalise(alias) for alias in puzzle.aliases)}
    return normalise(given) in accepted, given
