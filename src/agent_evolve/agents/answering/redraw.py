"""Redraw: when the answer fails a check the agent can run itself (``agents.answering.checks``), draw fresh
replies; the first that passes is kept.

A small model's greedy reply is one sample of many it could write; at temperature 0.8 another sample often gets
right what the greedy one got wrong. When no sample passes, the greedy reply stands, so a task the agent already
solved can only change when its reply failed the check. The workspace turns this on with ``prompts/check.yaml``
(see ``contract.check_settings``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent_evolve.agents.answering.base import Answer, Question
from agent_evolve.agents.answering.checks import ReplyCheck
from agent_evolve.contract.check_settings import CheckSettings
from agent_evolve.types import Usage


@dataclass(frozen=True)
class Redraw:
    """The answer when it passes ``check``; else the first of up to ``settings.redraws`` fresh replies that does
    (none does: the answer stands). ``finish`` makes a drawn reply an answer the way the first was made (a
    program answer runs its program); ``stop`` ends each draw."""

    check: ReplyCheck
    settings: CheckSettings
    stop: list[str] | None = None
    finish: Callable[[str], str] = str

    def answer(self, question: Question, so_far: Answer) -> Answer:
        failure = self.check.failure(so_far.output)
        drawn, kept, usage, candidate = 0, None, Usage(), so_far.output
        tries = self.settings.redraws if failure is not None else 0
        for draw in range(1, tries + 1):
            completion = question.client.complete(question.messages, max_tokens=question.max_tokens,
                                                  temperature=self.settings.temperature, stop=self.stop)
            drawn, usage, candidate = draw, usage + completion.usage, self.finish(completion.text)
            if self.check.failure(candidate) is None:
                kept = draw
                break
        step = {"type": self.check.kind, "failure": failure, "drawn": drawn, "kept": kept, "usage": usage.to_dict()}
        if kept is None:
            return so_far.then(step)
        return so_far.then(step, output=candidate, conversation=question.replied(candidate))
