"""Redraw: when the answer fails a check the agent can run itself (`answering.checks`), draw fresh replies and keep
the first that passes; when none passes the answer stands. Turned on by `prompts/check.yaml`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent_evolve.agents.answering.base import Answer, Question
from agent_evolve.agents.answering.checks import ReplyCheck
from agent_evolve.contract.check_settings import CheckSettings
from agent_evolve.types import Usage


@dataclass(frozen=True)
class Redraw:
    """When the answer fails ``check``, up to ``settings.redraws`` draws, each ended by ``stop``; ``finish`` makes
    a drawn reply an answer the way the first was made (a program answer runs its program)."""

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
