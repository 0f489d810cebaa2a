"""What the short API returns: the run's scores, the evolved agent to call, and a way to keep it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.api import COPY_IGNORE, RunClients, agent_from_workspace
from agent_evolve.benchmarks.adapters.jsonl import parse_row
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.regular_files import copy_tree
from agent_evolve.errors import WorkspaceError
from agent_evolve.export.exporter import evolved_version, version_tree
from agent_evolve.llm.base import LLMClient
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import EvolutionResult, Task, Trajectory

QUERY_ID = "query"


def as_task(task: str | dict[str, Any] | Task) -> Task:
    """A question as a Task: text, a task dict (as in a task list) or a Task."""
    if isinstance(task, Task):
        return task
    if isinstance(task, str):
        return Task(id=QUERY_ID, input=task)
    return parse_row(task, "task", 0).task


class EvolvedAgent:
    """An agent on an evolved workspace: `agent("question")` answers in text, `agent.solve(task)` gives the trajectory."""

    def __init__(self, agent: BaseAgent) -> None:
        self.base = agent

    @property
    def workspace(self) -> Path:
        return Path(self.base.workspace.path)

    def solve(self, task: str | dict[str, Any] | Task) -> Trajectory:
        return self.base.solve(as_task(task))

    def __call__(self, task: str | dict[str, Any] | Task) -> str:
        return self.solve(task).output


def load_agent(workspace: str | Path, *, model: str | None = None, llm: LLMClient | None = None,
               config: EvolveConfig | None = None) -> EvolvedAgent:
    """The agent of a saved or evolved workspace, answering with `model` (or your own `llm` client)."""
    settings = config or EvolveConfig()
    if model is not None:
        settings = dataclasses.replace(settings, agent_model=model)
    clients = RunClients(settings, UsageLedger(), given={"agent": llm} if llm is not None else None)
    return EvolvedAgent(agent_from_workspace(Path(workspace), settings, clients)[0])


@dataclass
class EvolvedRun:
    """The outcome of `ae.evolve`: scores, the run's full result, and the evolved agent (`agent()`, `save()`)."""

    result: EvolutionResult
    workspace: Path
    agent_factory: Callable[[Path], BaseAgent]

    @property
    def final_score(self) -> float:
        """The accepted version's holdout score."""
        return self.result.final_score

    @property
    def baseline_score(self) -> float:
        """The starting agent's holdout score."""
        return float(self.result.details.get("baseline_score", 0.0))

    @property
    def accepted(self) -> int:
        """How many cycles' changes the gate accepted."""
        return int(self.result.details.get("accepted", 0))

    def agent(self) -> EvolvedAgent:
        """The evolved agent, answering with the run's model client."""
        return EvolvedAgent(self.agent_factory(self.workspace))

    def save(self, path: str | Path) -> Path:
        """Copy the accepted version's files (no history, no run records) to `path`, a new or empty folder;
        `ae.load_agent(path)` loads it again."""
        target = Path(path)
        if target.exists() and any(target.iterdir()):
            raise WorkspaceError(f"{target}: exists and is not empty; save the agent to a new folder")
        with version_tree(self.workspace, evolved_version(self.workspace)) as source:
            copy_tree(source, target, dirs_exist_ok=True, ignore=COPY_IGNORE)
        return target
