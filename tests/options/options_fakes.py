"""Model-free pieces for the option tests: a provider with fixed usage and an agent that takes the run's client."""

from __future__ import annotations

import threading
import time

import agent_evolve as ae
from agent_evolve.llm.base import Completion, LLMClient, Message, ToolSpec
from agent_evolve.types import Task, Trajectory, Usage


class FixedUsageLLM:
    """An LLMClient whose every call costs `tokens` output tokens, optionally after `delay_s` seconds."""

    def __init__(self, model: str = "openai/fake", tokens: int = 100, delay_s: float = 0.0) -> None:
        self.model = model
        self.tokens = tokens
        self.delay_s = delay_s
        self.calls = 0
        self.in_flight = 0
        self.peak = 0
        self._lock = threading.Lock()

    def complete(self, messages: list[Message], *, tools: list[ToolSpec] | None = None,
                 max_tokens: int | None = None, temperature: float = 0.0, stop: list[str] | None = None) -> Completion:
        with self._lock:
            self.calls += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        time.sleep(self.delay_s)
        with self._lock:
            self.in_flight -= 1
        return Completion("7", usage=Usage(calls=1, output_tokens=self.tokens), model=self.model)


class SpendingAgent(ae.BaseAgent):
    """Answers every task with one call through the client the run gives it."""

    def __init__(self, workspace_dir: str, config: ae.EvolveConfig | None = None, llm: LLMClient | None = None):
        self.llm = llm
        super().__init__(workspace_dir)

    def solve(self, task: Task) -> Trajectory:
        assert self.llm is not None, "the run must hand its agent a client"
        return Trajectory(task_id=task.id, output=self.llm.complete([Message("user", task.input)]).text)
