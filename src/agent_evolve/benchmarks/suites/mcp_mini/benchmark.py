"""`mcp-mini`: questions answered by calling the shipped MCP server, graded by the exact facts in the answer."""

from __future__ import annotations

import importlib.util

from agent_evolve.benchmarks.support.facts import fact_found
from agent_evolve.benchmarks.suites.mcp_mini.tasks import TASKS, McpMiniTask
from agent_evolve.benchmarks.support.splits import ServedBenchmark, TaskSplits, lookup, split_ids
from agent_evolve.errors import MissingDependencyError
from agent_evolve.mcp.client import INSTALL_HINT
from agent_evolve.types import Feedback, Task, Trajectory

INSTRUCTION = ("Answer the question about Harbor Lane Outfitters using your tools; state the exact values they "
               "return.")


class McpMiniBenchmark(ServedBenchmark):
    """Twelve tasks over the `harbor` server, which the agent must have among its MCP servers (the `mcp` seed lists
    it); success when every expected fact is in the answer, the score the share found."""

    name = "mcp-mini"

    def __init__(self, seed: int = 0, test_fraction: float = 0.3) -> None:
        self._records: dict[str, McpMiniTask] = {task.id: task for task in TASKS}
        self._tasks = {task.id: Task(task.id, f"{INSTRUCTION}\n\n{task.question}", {"question": task.question})
                       for task in TASKS}
        self.splits: TaskSplits = split_ids(list(self._tasks), seed, test_fraction)

    def facts(self, task_id: str) -> tuple[str, ...]:
        """The facts a correct answer to `task_id` states; never shown to the agent."""
        return lookup(self._records, task_id, "an mcp-mini task id").facts

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Success when every fact is in the output; score = share of facts found."""
        facts = self.facts(task.id)
        missing = [fact for fact in facts if not fact_found(fact, trajectory.output)]
        score = round((len(facts) - len(missing)) / len(facts), 3)
        detail = "all facts stated" if not missing else "missing: " + " | ".join(missing)
        return Feedback(not missing, score, detail, raw={"facts": list(facts), "missing": missing})

    def check_ready(self) -> None:
        """The `mcp` SDK the server and the agent's client need is installed."""
        if importlib.util.find_spec("mcp") is None:
            raise MissingDependencyError(f"mcp-mini runs an MCP server: {INSTALL_HINT}")
