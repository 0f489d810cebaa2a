"""A scripted run of the README's main job shape: the cross-check bundled with the experience memory learned from
the batch's verified solves is one candidate, written without a trial and accepted whole by the holdout gate, and
the summary says in one line what was learned and on what evidence.

The fake model answers easy number tasks right in text and in programs. On a hard task its program prints
nothing and its text answer is 0, unless a solved example of the task's family is in the text prompt: then the
text answer is right, and the cross-check keeps it (the only number among the replies). So the cross-check alone
gains nothing on hard tasks; the memory does.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from kernel_fakes import family_tasks, holdout_ids, make_workspace, reference_manifest

import agent_evolve as ae
from agent_evolve.algorithms.demos import DemoSearchEngine
from agent_evolve.cli.progress import learned_note
from agent_evolve.contract.experience import EXPERIENCE_FILE
from agent_evolve.llm.base import Message
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Feedback, Task, Trajectory

MANIFEST = reference_manifest("learned")
FAMILIES = {"glacier": 4, "volcano": 7, "orchard": 12, "harbour": 9}


class CountBenchmark(ae.BenchmarkAdapter):
    """Each task asks for its family's number; one task in three is easy. Graded like GSM8K."""

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return family_tasks(FAMILIES, 48, "A {level} count about the {family} number {i}: how many?",
                            answer_kind="number")[:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        found = re.findall(r"-?\d+", trajectory.output.rsplit("Answer:", 1)[-1])
        got, expected = (found[-1] if found else None), task.metadata["answer"]
        ok = got == expected
        return Feedback(ok, float(ok), f"correct: {expected}" if ok else f"expected {expected}, got {got}",
                        {"expected": expected, "extracted": got})


def answer(messages: list[Message]) -> str:
    """Right on easy tasks; on a hard one, a program that prints nothing, and a right text answer only when a
    solved example of its family is in the prompt."""
    system, task = messages[0].content, messages[-1].content
    family = re.search(r"the (\w+) number", task).group(1)  # type: ignore[union-attr]
    right = FAMILIES[family]
    if "Python program" in system:
        return f"```python\nprint({right})\n```" if "easy" in task else "I cannot tell."
    helped = re.search(rf"Problem: A easy count about the {family} ", system) is not None
    return f"Answer: {right if 'easy' in task or helped else 0}"


def test_the_cross_check_with_learned_memory_is_accepted_whole_and_the_summary_says_what_was_learned(
        tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", prompt="Answer with one number.\n", manifest=MANIFEST)
    config = ae.EvolveConfig(batch_size=12, holdout_ratio=0.25, concurrency=1, preflight=False, seed=1)
    engine = DemoSearchEngine(candidates="cross-check+experience", trial_tasks=0)
    bench = CountBenchmark()
    evolver = ae.Evolver(str(workspace), bench, config, engine, clients={"agent": ScriptedLLM([answer] * 3000)})
    result = evolver.run(1)

    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["metadata"]["gate"]["accepted"], record["metadata"]["gate"]
    changed = subprocess.run(["git", "-C", str(workspace), "diff", "--name-only", "evo-0", "evo-1"],
                             capture_output=True, text=True, check=True).stdout.split()
    assert {EXPERIENCE_FILE, "prompts/program.md", "prompts/check.yaml"} <= set(changed)
    examples = [json.loads(line) for line in (workspace / EXPERIENCE_FILE).read_text().splitlines()]
    lines = (workspace / record["observation_batch"]).read_text().splitlines()
    batch = {json.loads(line)["task"]["id"] for line in lines}
    ids = {e["task_id"] for e in examples}
    assert ids and ids <= batch, "every example is one of this cycle's batch"
    assert not ids & set(holdout_ids(workspace)), "no holdout task becomes an example"
    assert all("easy" in e["input"] for e in examples), "only verified solutions become examples"

    note = learned_note(result)
    assert note is not None and "\n" not in note
    size = result.details["holdout_size"]
    before, after = round(result.details["baseline_score"] * size), round(result.final_score * size)
    assert after > before
    assert note.startswith(f"learned: {len(ids)} worked examples from verified train solves (")
    assert f"the 2 nearest shown per task; holdout {before}/{size} -> {after}/{size} (evo-1)" in note
