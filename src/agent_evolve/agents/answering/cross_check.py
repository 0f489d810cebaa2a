"""A program answer cross-checked by a text answer; on disagreement sampled programs vote, and the commonest answer
keeping the answer form wins (`cross_check` in `prompts/check.yaml`; measured in `experiments/probes`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from agent_evolve.agents.answering.base import Answer, Question
from agent_evolve.agents.answering.checks import answer_value, value_failure
from agent_evolve.agents.answering.program import PROGRAM_STOP, ProgramAnswer
from agent_evolve.agents.prompting import build_messages
from agent_evolve.benchmarks.answer_kinds import AnswerKind, declared_kind
from agent_evolve.contract.check_settings import AnswerForm, CheckSettings

# Answers compared and voted on as numbers; other kinds are not cross-checked
CROSS_CHECK_KINDS: tuple[AnswerKind, ...] = ("number",)


def settle(values: list[Fraction | None], form: AnswerForm | None) -> int:
    """The index of the first answer with the most votes among those that keep ``form``; 0 when none does."""
    fine = [v for v in values if v is not None and (form is None or value_failure(v, form) is None)]
    return values.index(Counter(fine).most_common(1)[0][0]) if fine else 0  # ties: the value seen first


@dataclass(frozen=True)
class CrossCheck:
    """The program answer so far when a text answer (to ``text_system``) gives the same number; else the winner
    of a vote of both and ``settings.cross_check`` programs drawn for the question, each run for its answer."""

    text_system: str
    settings: CheckSettings

    def answer(self, question: Question, so_far: Answer) -> Answer:
        client, check = question.client, self.settings
        text = client.complete(build_messages(self.text_system, question.task.input),
                               max_tokens=question.max_tokens, temperature=question.temperature)
        replies, usage, kind = [so_far.output, text.text], text.usage, declared_kind(question.task)
        values = [answer_value(r) for r in replies]
        if values[0] is None or values[0] != values[1]:
            for _ in range(check.cross_check):
                completion = client.complete(question.messages, max_tokens=question.max_tokens,
                                             temperature=check.temperature, stop=list(PROGRAM_STOP))
                usage += completion.usage
                replies.append(ProgramAnswer(kind).finish(completion.text))
                values.append(answer_value(replies[-1]))
        kept = settle(values, check.answer)
        step = {"type": "cross_check", "answers": [None if v is None else format_value(v) for v in values],
                "drawn": len(values) - 2, "kept": kept, "usage": usage.to_dict()}
        return so_far.then(step, output=replies[kept], conversation=question.replied(replies[kept]))


def format_value(value: Fraction) -> str:
    """An answer value as a number string: whole numbers plainly, others as decimals."""
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
