"""Drawing fresh replies when a reply fails a check the agent can run itself; the first that passes is kept.

A small model's greedy reply is one sample of many it could write; at temperature 0.8 another sample often gets
right what the greedy one got wrong. Two checks tell which sample to keep without looking at the grader: code
against its docstring's examples (``agents.example_check``), and a numeric answer against the form right
answers take (``agents.answer_check``). When no sample passes, the greedy reply stands, so a task the agent
already solved can only change when its reply failed the check. The workspace turns this on with
``prompts/check.yaml`` (see ``contract.check_settings``). The answer form applies only to tasks whose declared
kind is a number (or that declare none); a text answer is never checked for a number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_evolve.agents.answer_check import answer_failure
from agent_evolve.agents.example_check import code_task, first_failure
from agent_evolve.benchmarks.answer_kinds import AnswerKind, declared_kind
from agent_evolve.contract.check_settings import CheckSettings
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.types import Task, Usage

Check = Callable[[str], str | None]
"""Why a reply fails the check, or None when it passes."""
CHECK_KINDS: tuple[AnswerKind, ...] = ("code", "number")
"""Code (its docstring's examples) and numbers (the answer form) can be checked without the grader."""


@dataclass(frozen=True)
class ReplyCheck:
    """The check that applies to a task, the name its trajectory step carries, and how to draw again."""

    kind: str
    failure: Check
    settings: CheckSettings


@dataclass
class Redrawn:
    """The reply kept, and what the check did: the failure that started it, replies drawn, which one passed."""

    kind: str
    output: str
    failure: str | None = None
    drawn: int = 0
    kept: int | None = None
    usage: list[Usage] = field(default_factory=list)

    def to_step(self) -> dict[str, Any]:
        """The trajectory step recording the check."""
        return {"type": self.kind, "failure": self.failure, "drawn": self.drawn, "kept": self.kept,
                "usage": sum(self.usage, Usage()).to_dict()}


def reply_check(task: Task, settings: CheckSettings) -> ReplyCheck | None:
    """Code tasks: their docstring's examples; number tasks (and undeclared ones): the answer form, when the
    settings give one."""
    code = code_task(task)
    if code is not None:
        def failed_example(reply: str) -> str | None:
            failure = first_failure(code, reply)
            return None if failure is None else failure.describe()
        return ReplyCheck("example_check", failed_example, settings)
    form = settings.answer
    if form is not None and declared_kind(task) in (None, "number"):
        return ReplyCheck("answer_check", lambda reply: answer_failure(reply, form), settings)
    return None


def redraw_until_checked(client: LLMClient, messages: list[Message], reply: str, check: ReplyCheck, *,
                         max_tokens: int, stop: list[str] | None = None,
                         finish: Callable[[str], str] = str) -> Redrawn:
    """``reply`` when it passes ``check``; else the first of up to ``check.settings.redraws`` fresh replies
    that does (none does: ``reply``). ``finish`` makes a drawn completion into a reply the way ``reply`` was
    made (a program answer runs its program)."""
    failure = check.failure(reply)
    if failure is None:
        return Redrawn(check.kind, reply)
    found = Redrawn(check.kind, reply, failure)
    for draw in range(1, check.settings.redraws + 1):
        completion = client.complete(messages, max_tokens=max_tokens, temperature=check.settings.temperature,
                                     stop=stop)
        found.drawn, found.usage = draw, [*found.usage, completion.usage]
        candidate = finish(completion.text)
        if check.failure(candidate) is None:
            found.output, found.kept = candidate, draw
            break
    return found
