"""A program answer cross-checked by a text answer; when the two disagree, sampled programs settle it by vote.

Program answers fix arithmetic slips, but a 1.5B model's program is wrong on some tasks its prose gets right
(seed 0 of the GSM8K acceptance run: 20 tasks won, 15 lost against the text answers). When the greedy program
and the greedy text answer agree they are right far more often than either alone (42 of 48 GSM8K train tasks);
when they differ, a few sampled programs vote with them, and the most common answer that keeps the answer form
wins: 62 of 90 GSM8K train tasks with 2 samples, 63 with 4, against 55 for programs alone and 49 for text
(`experiments/probes`, `settled4`). The workspace turns this on with ``cross_check`` in ``prompts/check.yaml``
next to ``prompts/program.md``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from agent_evolve.agents.answer_check import answer_value, value_failure
from agent_evolve.agents.program import PROGRAM_STOP, finish_program
from agent_evolve.benchmarks.answer_kinds import AnswerKind
from agent_evolve.contract.check_settings import AnswerForm, CheckSettings
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.types import Usage

CROSS_CHECK_KINDS: tuple[AnswerKind, ...] = ("number",)
"""Answers compared and voted on as numbers; other kinds are not cross-checked."""


@dataclass
class CrossChecked:
    """The reply kept and how: every reply's answer (program, text, then samples) and which reply won."""

    output: str
    answers: list[str | None]
    kept: int
    usage: list[Usage] = field(default_factory=list)

    def to_step(self) -> dict[str, Any]:
        """The trajectory step recording the cross-check."""
        return {"type": "cross_check", "answers": self.answers, "drawn": len(self.answers) - 2, "kept": self.kept,
                "usage": sum(self.usage, Usage()).to_dict()}


def settle(values: list[Fraction | None], form: AnswerForm | None) -> int:
    """The index of the first answer with the most votes among those that keep ``form``; 0 when none does."""
    fine = [v for v in values if v is not None and (form is None or value_failure(v, form) is None)]
    if not fine:
        return 0
    counts = Counter(fine)
    best = max(counts.values())
    return next(i for i, v in enumerate(values) if v in counts and counts[v] == best)


def cross_check(client: LLMClient, messages: list[Message], text_messages: list[Message], program_reply: str,
                check: CheckSettings, *, max_tokens: int, text_temperature: float) -> CrossChecked:
    """``program_reply`` when the text answer to ``text_messages`` gives the same number; else the winner of a
    vote of both and ``check.cross_check`` programs drawn for ``messages``, each run for its answer."""
    text = client.complete(text_messages, max_tokens=max_tokens, temperature=text_temperature)
    replies, usage = [program_reply, text.text], [text.usage]
    values = [answer_value(r) for r in replies]
    if values[0] is None or values[0] != values[1]:
        for _ in range(check.cross_check):
            completion = client.complete(messages, max_tokens=max_tokens, temperature=check.temperature,
                                         stop=list(PROGRAM_STOP))
            usage.append(completion.usage)
            replies.append(finish_program(completion.text))
            values.append(answer_value(replies[-1]))
    kept = settle(values, check.answer)
    answers = [None if v is None else format_value(v) for v in values]
    return CrossChecked(replies[kept], answers, kept, usage)


def format_value(value: Fraction) -> str:
    """An answer value as a number string: whole numbers plainly, others as decimals."""
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
