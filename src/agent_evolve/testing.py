"""Helpers for users' tests: a scripted fake LLM client that records what it was asked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import Completion, Message, ToolSpec
from agent_evolve.types import Usage

ScriptedResponse = str | Completion | Callable[[list[Message]], str | Completion]


class ScriptExhaustedError(AgentEvolveError):
    """A ScriptedLLM was called more often than its script has responses."""


@dataclass
class ScriptedCall:
    """One call a ScriptedLLM received: a copy of the messages and the parameters."""

    messages: list[Message]
    tools: list[ToolSpec] | None
    max_tokens: int | None
    temperature: float
    stop: list[str] | None


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class ScriptedLLM:
    """A fake LLMClient returning its responses in order: strings, Completions, or functions of the messages;
    strings get rough token counts (4 characters a token), so budgets can be exercised. Pass it as an LLMClient."""

    def __init__(self, responses: Sequence[ScriptedResponse], *, model: str = "scripted/fake") -> None:
        self.model = model
        self.responses = list(responses)
        self.calls: list[ScriptedCall] = []

    @property
    def remaining(self) -> int:
        return len(self.responses) - len(self.calls)

    def complete(self, messages: list[Message], *, tools: list[ToolSpec] | None = None,
                 max_tokens: int | None = None, temperature: float = 0.0, stop: list[str] | None = None,
                 ) -> Completion:
        """Record the call and return the next scripted response."""
        index = len(self.calls)
        self.calls.append(ScriptedCall([replace(m) for m in messages], tools, max_tokens, temperature, stop))
        if index >= len(self.responses):
            last = messages[-1].content[:200] if messages else ""
            raise ScriptExhaustedError(f"ScriptedLLM ({self.model}) has {len(self.responses)} response(s) but got "
                                       f"call {index + 1}; last message: {last!r}")
        response: Any = self.responses[index]
        if callable(response):
            response = response(messages)
        if isinstance(response, Completion):
            return response
        if not isinstance(response, str):
            raise TypeError(f"scripted response {index + 1} must be a str or Completion, got {type(response).__name__}")
        prompt = sum(_estimate_tokens(m.content) for m in messages)
        usage = Usage(calls=1, input_tokens=prompt, output_tokens=_estimate_tokens(response))
        return Completion(text=response, usage=usage, model=self.model)
