"""The compute-matched control: the baseline workspace voting over sampled replies up to the evolved arm's tokens per
task; replies agree by value or text, programs by which of the docstring's examples they pass."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_evolve.agents.answering.checks import CodeTask, answer_value, code_task, docstring_examples, examples_passed
from agent_evolve.api import RoleClient
from agent_evolve.benchmarks.answer_kinds import declared_kind
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.solving import model_usage
from agent_evolve.lift.scoring import AgentMaker, own_agent
from agent_evolve.llm.base import Completion, LLMClient, Message, ToolSpec
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Task, Trajectory

VOTE_TEMPERATURE = 0.8  # as the workspace checks' redraws sample (contract.check_settings)
MAX_REPLIES = 16


class SampledClient:
    """An LLM client that samples every call at `VOTE_TEMPERATURE` at least: another reply to the same question (the
    metered client numbers repeated sampled requests as draws, so each is a reply of its own)."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def complete(self, messages: list[Message], *, tools: list[ToolSpec] | None = None, max_tokens: int | None = None,
                 temperature: float = 0.0, stop: list[str] | None = None) -> Completion:
        return self.inner.complete(messages, tools=tools, max_tokens=max_tokens,
                                   temperature=max(temperature, VOTE_TEMPERATURE), stop=stop)


def draw_another(spent: float, replies: int, target: float) -> bool:
    """Whether one more reply (of the mean size so far) brings the task's tokens closer to `target`."""
    if replies >= MAX_REPLIES or replies == 0 or spent <= 0:
        return False
    return abs(spent + spent / replies - target) < abs(spent - target)


def vote_key(output: str, passed: tuple[bool, ...] | None = None) -> str:
    """What replies agree on: for code, which examples it passes; else the numeric answer when there is one, else
    the text with its spacing collapsed."""
    if passed is not None:
        return "examples " + "".join("1" if ok else "0" for ok in passed)
    value = answer_value(output)
    return f"= {value}" if value is not None else " ".join(output.split())


def majority(outputs: Sequence[str], passes: Sequence[tuple[bool, ...]] | None = None) -> int:
    """The index of the first output whose vote key most outputs share, among those passing the most examples
    (`passes`, one per output, for a code task)."""
    keys = [vote_key(o, passes[i] if passes is not None else None) for i, o in enumerate(outputs)]
    rank = [sum(p) for p in passes] if passes is not None else [0] * len(outputs)
    counts = Counter(keys)
    best = max((rank[i], counts[key]) for i, key in enumerate(keys))
    return next(i for i, key in enumerate(keys) if (rank[i], counts[key]) == best)


def example_passes(task: Task, outputs: Sequence[str]) -> list[tuple[bool, ...]] | None:
    """Which docstring examples each output passes, for a task showing a function with examples; else None."""
    code: CodeTask | None = code_task(task) if declared_kind(task) in (None, "code") else None
    if code is None or not docstring_examples(code.prompt, code.entry_point):
        return None
    return [examples_passed(code, output) for output in outputs]


class BudgetVote(BaseAgent):
    """The baseline's agent answering once greedily, then sampled while the budget lasts; the majority wins."""

    def __init__(self, first: BaseAgent, sampler: BaseAgent, tokens_per_task: float) -> None:
        super().__init__(first.workspace.path)
        self.first, self.sampler, self.target = first, sampler, tokens_per_task

    def solve(self, task: Task) -> Trajectory:
        replies = [self.first.solve(task)]
        spent = float(model_usage(replies[0]).total_tokens)
        while draw_another(spent, len(replies), self.target):
            replies.append(self.sampler.solve(task))
            spent += model_usage(replies[-1]).total_tokens
        outputs = [r.output for r in replies]
        passes = example_passes(task, outputs) if len(replies) > 1 else None
        kept = majority(outputs, passes)
        steps = [step for reply in replies for step in reply.steps]
        steps.append({"type": "vote", "replies": len(replies), "kept": kept,
                      "answers": [vote_key(o, passes[i] if passes else None) for i, o in enumerate(outputs)]})
        return Trajectory(task.id, replies[kept].output, steps, replies[kept].conversation)


def matched_agent(tokens_per_task: float) -> AgentMaker:
    """Builds the compute-matched control's agent on the baseline workspace for a budget of `tokens_per_task`."""
    def make(workspace: Path, config: EvolveConfig, roles: RoleClient) -> BaseAgent:
        # the sampler uses the run's own role clients (one model loaded once), each sampling (see SampledClient)
        sampler = own_agent(workspace, config, lambda role: SampledClient(roles(role)))
        return BudgetVote(own_agent(workspace, config, roles), sampler, tokens_per_task)
    return make
