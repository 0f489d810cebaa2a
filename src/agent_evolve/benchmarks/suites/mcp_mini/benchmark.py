"""`mcp-mini`: questions answered by calling the shipped MCP server, graded by the exact facts in the answer (none in
its question; each takes one to three tool calls)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from agent_evolve.benchmarks.support.answers import fact_found
from agent_evolve.benchmarks.support.splits import ServedBenchmark, TaskSplits, lookup, split_ids
from agent_evolve.errors import MissingDependencyError
from agent_evolve.mcp.client import INSTALL_HINT
from agent_evolve.types import Feedback, Task, Trajectory

INSTRUCTION = ("Answer the question about Harbor Lane Outfitters using your tools; state the exact values they "
               "return.")


@dataclass(frozen=True)
class McpMiniTask:
    """A question and the facts a correct answer states."""

    id: str
    question: str
    facts: tuple[str, ...]


TASKS: tuple[McpMiniTask, ...] = (
    McpMiniTask("thermos-stock", "How many units of the Tidewater thermos are in stock, counting both warehouses?",
                ("65",)),
    McpMiniTask("sku-price", "What is the item with SKU HL-207 called, and what is its unit price in EUR?",
                ("Saltmarsh rain jacket", "18.40")),
    McpMiniTask("manager-office", "Who is Priya Nandakumar's manager, and in which office does that manager work?",
                ("Tomas Rieger", "Rotterdam")),
    McpMiniTask("review-room", "In which room is the Quarterly supplier review on 2026-03-12 held, and at what time "
                               "does it start?", ("Kelp", "14:30")),
    McpMiniTask("chest-weight", "What do all the Anchor tool chests in the south warehouse weigh together, in "
                                "kilograms (one decimal)?", ("63.5",)),
    McpMiniTask("dock-closure", "According to the notes, which dock takes inbound pallets instead of Dock 4, and "
                                "from which date?", ("Dock 7", "2026-04-02")),
    McpMiniTask("jacket-warehouse", "Which warehouse holds more Saltmarsh rain jackets, and by how many units?",
                ("south", "19")),
    McpMiniTask("drill-organiser", "What is the email address of the organiser of the Harbor safety drill?",
                ("ines.okafor@harborlane.example",)),
    McpMiniTask("shoot-team", "Which team does the organiser of the Catalogue photo shoot belong to?",
                ("Merchandising",)),
    McpMiniTask("lantern-value", "What is the total value in EUR of the Breakwater lanterns in stock (unit price "
                                 "times units, both warehouses)?", ("1008",)),
    McpMiniTask("paddle-length", "How long is the Driftwood kayak paddle in centimetres?", ("213.36",)),
    McpMiniTask("supplier-contact", "Which supplier makes the Tidewater thermos, and who is our contact there "
                                    "according to the notes?", ("Gullwing Metals", "Ewan Thorsby")),
)


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
