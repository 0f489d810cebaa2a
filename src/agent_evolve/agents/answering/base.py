"""The answering strategy protocol: turn a question into an answer, or refine the answer so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_evolve.agents.prompting import build_messages
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.types import Task, Usage


@dataclass(frozen=True)
class Question:
    """What every strategy answers: the task, the model, the system prompt, the reply's length and temperature;
    ``closing`` ends the user turn after the task, so that it wins over an answer format the task asks for."""

    task: Task
    client: LLMClient
    system: str
    max_tokens: int
    temperature: float
    closing: str = ""

    @property
    def messages(self) -> list[Message]:
        """The conversation sent: the system prompt, then the task input (and the closing) as the user turn."""
        return build_messages(self.system, f"{self.task.input}\n\n{self.closing}" if self.closing else self.task.input)

    def replied(self, reply: str) -> list[Message]:
        """The conversation sent, answered by ``reply``."""
        return [*self.messages, Message("assistant", reply)]


@dataclass(frozen=True)
class Answer:
    """The answer so far: the output, the conversation that gave it, and the trajectory steps recorded."""

    output: str = ""
    conversation: list[Message] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)

    def then(self, *steps: dict[str, Any], output: str | None = None,
             conversation: list[Message] | None = None) -> Answer:
        """This answer with ``steps`` recorded and, where given, a new output and conversation."""
        return Answer(self.output if output is None else output,
                      self.conversation if conversation is None else conversation, [*self.steps, *steps])


def answer_step(finish_reason: str, usage: Usage, **extra: Any) -> dict[str, Any]:
    """The trajectory step recording how the model's answer ended and what it cost."""
    return {"type": "answer", "finish_reason": finish_reason, "usage": usage.to_dict(), **extra}


class AnsweringStrategy(Protocol):
    """One way of answering. The agent chains strategies: the first answers (``so_far`` holds only the steps
    recorded before it), each later one may replace the answer so far, and every one records its steps."""

    def answer(self, question: Question, so_far: Answer) -> Answer: ...
