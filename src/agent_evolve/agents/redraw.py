"""Drawing fresh replies when a code reply fails an example of its own docstring; the first that passes is kept.

A small model's greedy reply is one sample of many it could write; at temperature 0.8 another sample often gets
a function right that the greedy one got wrong. The docstring's examples (``agents.example_check``) tell which
sample to keep without looking at the grader's tests. When no sample passes, the greedy reply stands, so a task
the agent already solved can only change when its reply failed an example. The workspace turns this on with
``prompts/check.yaml`` (see ``contract.check_settings``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_evolve.agents.example_check import CodeTask, first_failure
from agent_evolve.contract.check_settings import CheckSettings
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.types import Usage


@dataclass
class Redrawn:
    """The reply kept, and what the check did: the failure that started it, replies drawn, which one passed."""

    output: str
    failure: str | None = None
    drawn: int = 0
    kept: int | None = None
    usage: list[Usage] = field(default_factory=list)

    def to_step(self) -> dict[str, Any]:
        """The trajectory step recording the check."""
        return {"type": "example_check", "failure": self.failure, "drawn": self.drawn, "kept": self.kept,
                "usage": sum(self.usage, Usage()).to_dict()}


def redraw_until_checked(client: LLMClient, messages: list[Message], code: CodeTask, reply: str, *,
                         max_tokens: int, settings: CheckSettings) -> Redrawn:
    """``reply`` when it passes its examples; else the first of up to ``settings.redraws`` fresh replies that
    does (none does: ``reply``)."""
    failure = first_failure(code, reply)
    if failure is None:
        return Redrawn(reply)
    found = Redrawn(reply, failure.describe())
    for draw in range(1, settings.redraws + 1):
        completion = client.complete(messages, max_tokens=max_tokens, temperature=settings.temperature)
        found.drawn, found.usage = draw, [*found.usage, completion.usage]
        if first_failure(code, completion.text) is None:
            found.output, found.kept = completion.text, draw
            break
    return found
