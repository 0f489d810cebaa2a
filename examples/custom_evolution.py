"""A user's own agent, benchmark and engine, written only against the public API page.

Run: python examples/custom_evolution.py /tmp/my-agent
The engine's first edit raises the holdout score (kept, tagged evo-1); its second lowers it (rolled back).
The score curve is each cycle's average train score, solved by the version accepted at the time.
"""

from __future__ import annotations

import sys
from pathlib import Path

import agent_evolve as ae
from agent_evolve.types import Feedback, StepResult, Task, Trajectory


class AdderAgent(ae.BaseAgent):
    """Answers 'n + 1' correctly only when its system prompt tells it to add one."""

    def solve(self, task: Task) -> Trajectory:
        n = int(task.metadata["n"])
        answer = n + 1 if "add one" in self.system_prompt.lower() else n
        return Trajectory(task_id=task.id, output=str(answer))


class AdderBenchmark(ae.BenchmarkAdapter):
    def get_tasks(self, split: str = "train", limit: int = 10) -> list[Task]:
        offset = 0 if split == "train" else 1000
        return [Task(id=f"{split}-{i}", input=f"What is {i} + 1?", metadata={"n": i + offset}) for i in range(40)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output.strip() == str(int(task.metadata["n"]) + 1)
        return Feedback(success=ok, score=1.0 if ok else 0.0, detail="" if ok else "off by one")


class ScriptedEngine(ae.EvolutionEngine):
    """Cycle 1 writes a helpful prompt, cycle 2 a harmful one, cycle 3 a neutral memory note."""

    def __init__(self) -> None:
        self.seen_task_ids: list[list[str]] = []

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        self.seen_task_ids.append([o.task.id for o in observations])
        cycle = len(self.seen_task_ids)
        if cycle == 1:
            workspace.write_prompt("You are an adder. Always add one to the number.")
            return StepResult(mutated=True, summary="prompt: add one")
        if cycle == 2:
            workspace.write_prompt("You are an echo. Repeat the number.")
            return StepResult(mutated=True, summary="prompt: echo")
        workspace.add_memory({"content": "numbers are small"}, category="semantic")
        return StepResult(mutated=True, summary="memory note")


def main(workspace_dir: str) -> ae.EvolutionResult:
    path = Path(workspace_dir)
    (path / "prompts").mkdir(parents=True, exist_ok=True)
    if not (path / "prompts" / "system.md").exists():
        (path / "prompts" / "system.md").write_text("You answer arithmetic questions.\n")
    engine = ScriptedEngine()
    config = ae.EvolveConfig(batch_size=5, max_cycles=3, holdout_ratio=0.25, concurrency=2)
    result = ae.Evolver(AdderAgent(path), AdderBenchmark(), config, engine).run()
    history = ae.EvolutionHistory(path)
    print("score curve:", history.get_score_curve())  # cycle 1 ran the starting prompt; 2 and 3 ran evo-1
    print("tags:", ae.VersionControl(path).list_tags())
    print("batches seen by the engine:", engine.seen_task_ids)
    print("final score:", result.final_score, "details:", {k: result.details[k] for k in ("accepted", "rejected")})
    return result


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "my-agent")
