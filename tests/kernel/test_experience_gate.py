"""A scripted run in which learned experience memory is proposed, trialled and accepted by the gate.

The fake model answers a hard task right only when a worked example of the same family is in its prompt; easy
tasks it answers right without help. The easy train solves become verified examples, the demos engine proposes
them as experience memory, the trial on other train tasks shows the gain, and the holdout gate accepts it.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from kernel_fakes import family_tasks, holdout_ids, make_workspace, reference_manifest

import agent_evolve as ae
from agent_evolve.algorithms.demos import DemoSearchEngine
from agent_evolve.contract.experience import EXPERIENCE_FILE, EXPERIENCE_SETTINGS
from agent_evolve.llm.base import Message
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Feedback, Task, Trajectory

MANIFEST = reference_manifest("experience")
FAMILIES = {"glacier": "ice", "volcano": "lava", "orchard": "apple", "harbour": "ship"}


class FamilyBenchmark(ae.BenchmarkAdapter):
    """Each task asks for its family's word (a text answer); one task in three is easy."""

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return family_tasks(FAMILIES, 32, "A {level} riddle about the {family} number {i}: name its word.")[:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output.strip() == task.metadata["answer"]
        return Feedback(ok, float(ok), "correct" if ok else f"expected {task.metadata['answer']}")


def answer(messages: list[Message]) -> str:
    """The family's word when the task is easy or a solved example of its family is in the system prompt."""
    system, task = messages[0].content, messages[-1].content
    family = re.search(r"the (\w+) number", task).group(1)  # type: ignore[union-attr]
    helped = re.search(rf"Problem: A easy riddle about the {family} ", system) is not None
    return FAMILIES[family] if "easy" in task or helped else "unknown"


def test_a_learned_experience_memory_is_trialled_and_accepted_by_the_gate(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", prompt="Answer with one word.\n", manifest=MANIFEST)
    llm = ScriptedLLM([answer] * 2000)
    config = ae.EvolveConfig(batch_size=12, holdout_ratio=0.25, concurrency=1, preflight=False, seed=1)
    engine = DemoSearchEngine(candidates="experience", trial_tasks=8)
    ae.Evolver(str(workspace), FamilyBenchmark(), config, engine, clients={"agent": llm}).run(1)

    gate = ae.EvolutionHistory(workspace).cycle_records()[0]["metadata"]["gate"]
    assert gate["accepted"], gate
    search = json.loads(next((workspace / "evolution").rglob("search.json")).read_text())
    assert search["best"] == "experience" and search["scores"]["experience"] > search["incumbent"]
    changed = subprocess.run(["git", "-C", str(workspace), "show", "--name-only", "--format=", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.split()
    assert EXPERIENCE_FILE in changed and EXPERIENCE_SETTINGS in changed
    examples = [json.loads(line) for line in (workspace / EXPERIENCE_FILE).read_text().splitlines()]
    holdout = set(holdout_ids(workspace))
    assert examples and not {e["task_id"] for e in examples} & holdout, "no holdout task becomes an example"
    assert all("easy" in e["input"] for e in examples), "only verified solutions become examples"
