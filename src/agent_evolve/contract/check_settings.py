"""``prompts/check.yaml`` (docs/concepts.md): a reply that fails a check the agent can run without the grader
(code against its docstring's examples, a numeric answer against its form) is drawn again; the first pass is kept.

Every key is optional; an empty file means the defaults (no answer check). Anything else is an error naming
the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_evolve.contract.settings_rules import is_int, is_number
from agent_evolve.errors import WorkspaceError

CHECK_SETTINGS = "prompts/check.yaml"
MAX_REDRAWS = 16
KEYS = ("redraws", "temperature", "answer", "cross_check")
ANSWER_KEYS = ("whole", "min")


@dataclass(frozen=True)
class AnswerForm:
    """The form a right numeric answer takes: whole, and at least ``min`` (None: no bound)."""

    whole: bool = False
    min: float | None = None

    def to_yaml(self) -> str:
        minimum = "" if self.min is None else f"  min: {self.min:g}\n"
        return f"answer:\n  whole: {str(self.whole).lower()}\n{minimum}"


@dataclass(frozen=True)
class CheckSettings:
    """How many fresh replies a failed check draws, how hot, the numeric answers' form (None: unchecked), and
    how many programs settle a program answer the text answer disagrees with (0: no cross-check)."""

    redraws: int = 4  # the embedded model fixed 3 of 7 caught failures with 4 (experiments/probes)
    temperature: float = 0.8
    answer: AnswerForm | None = None
    cross_check: int = 0

    def to_yaml(self) -> str:
        answer = "" if self.answer is None else self.answer.to_yaml()
        cross = f"cross_check: {self.cross_check}\n" if self.cross_check else ""
        return f"redraws: {self.redraws}\ntemperature: {self.temperature:g}\n{answer}{cross}"


def parse_check_settings(data: Any, where: str = CHECK_SETTINGS) -> CheckSettings:
    """The settings of a loaded ``check.yaml`` (None: the defaults); a WorkspaceError names what is wrong."""
    if data is None:
        return CheckSettings()
    _require_mapping(data, KEYS, where)
    redraws = data.get("redraws", CheckSettings.redraws)
    temperature = data.get("temperature", CheckSettings.temperature)
    if not (is_int(redraws) and 1 <= redraws <= MAX_REDRAWS):
        raise WorkspaceError(f"{where}: redraws must be a whole number from 1 to {MAX_REDRAWS}, got {redraws!r}")
    if not is_number(temperature) or not 0 < temperature <= 2:
        raise WorkspaceError(f"{where}: temperature must be a number above 0 and at most 2, got {temperature!r}")
    cross = data.get("cross_check", 0)
    if not (is_int(cross) and 0 <= cross <= MAX_REDRAWS):
        raise WorkspaceError(f"{where}: cross_check must be a whole number from 0 to {MAX_REDRAWS}, got {cross!r}")
    answer = data.get("answer")
    return CheckSettings(redraws, float(temperature), None if answer is None else _parse_answer(answer, where), cross)


def _parse_answer(data: Any, where: str) -> AnswerForm:
    _require_mapping(data, ANSWER_KEYS, f"{where}: answer")
    whole, minimum = data.get("whole", False), data.get("min")
    if not isinstance(whole, bool):
        raise WorkspaceError(f"{where}: answer.whole must be true or false, got {whole!r}")
    if minimum is not None and not is_number(minimum):
        raise WorkspaceError(f"{where}: answer.min must be a number, got {minimum!r}")
    return AnswerForm(whole, None if minimum is None else float(minimum))


def _require_mapping(data: Any, known: tuple[str, ...], where: str) -> None:
    if not isinstance(data, dict):
        raise WorkspaceError(f"{where}: must be a mapping with {', '.join(known)}, got {type(data).__name__}")
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise WorkspaceError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(known)}")
