"""Plain: one reply of the model, the answer as it is."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.agents.answering.base import Answer, Question, answer_step


@dataclass(frozen=True)
class Plain:
    """Ask once; ``stop`` ends the reply (the task kind's stop rule, or a program's closed block)."""

    stop: list[str] | None = None

    def answer(self, question: Question, so_far: Answer) -> Answer:
        completion = question.client.complete(question.messages, max_tokens=question.max_tokens,
                                              temperature=question.temperature, stop=self.stop)
        return so_far.then(answer_step(completion.finish_reason, completion.usage), output=completion.text,
                           conversation=question.replied(completion.text))
