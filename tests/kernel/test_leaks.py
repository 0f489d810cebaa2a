"""No leak from holdout: whatever channel an engine tries, it sees no holdout id, lesson or draft; under
trajectory_only it sees no score at all."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from kernel_fakes import make_workspace

import agent_evolve as ae
from agent_evolve.engine.tasks import plan_tasks
from agent_evolve.types import Feedback, StepResult, Task, Trajectory

IDS = [f"id-{n:03d}-q" for n in range(20)]
CONFIG = {"batch_size": 4, "holdout_ratio": 0.3, "concurrency": 1, "seed": 0}


def holdout() -> set[str]:
    """The holdout the loop carves, computed from the plan's pure function (not read from any record)."""
    return set(plan_tasks(IDS, CONFIG["holdout_ratio"], CONFIG["seed"], 50).holdout_ids)


class Bench(ae.BenchmarkAdapter):
    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return [Task(id=i, input=f"task {i}", metadata={"keyword": f"k{n % 2}"}) for n, i in enumerate(IDS)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == task.metadata["keyword"]
        return Feedback(success=ok, score=float(ok), detail=f"expected {task.metadata['keyword']}")


class LessonAgent(ae.BaseAgent):
    """Buffers a lesson and a draft named after every task it solves."""

    def solve(self, task: Task) -> Trajectory:
        self.remember(f"lesson from {task.id}")
        self.propose_skill(f"draft-{task.id}", f"what {task.id} taught")
        keyword = task.metadata["keyword"]
        return Trajectory(task_id=task.id, output=keyword if keyword in self.system_prompt else "?")


class ChannelSpy(ae.EvolutionEngine):
    """Reads every channel the kernel offers and keeps what it saw as text; edits the prompt on cycle 1."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.cycle_end_scores: list[float] = []
        self.trial_results: list = []
        self.feedback: list[Feedback] = []
        self.records: list[dict] = []
        self.failures: list = []
        self.metrics: dict = {}
        self.files: list[str] = []

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        self.feedback += [o.feedback for o in observations] + [o.feedback for o in history.get_observations()]
        self.failures = history.get_observations(only_failures=True)
        self.records += history.cycle_records() + workspace.read_evolution_history()
        self.metrics = workspace.read_evolution_metrics()
        report = trial()
        self.trial_results += report.results
        self.seen += [json.dumps([o.to_dict() for o in observations], default=str)]
        self.seen += [json.dumps([o.to_dict() for o in history.get_observations()], default=str)]
        self.seen += [json.dumps(history.cycle_records(), default=str), json.dumps(history.get_score_curve())]
        self.seen += [json.dumps([r.__dict__ for r in report.results], default=str)]
        root = Path(workspace.path)
        self.files = [p.read_text(errors="replace") for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
        self.seen += self.files
        self.seen += [json.dumps(self.context.__dict__, default=str)]
        if self.context.cycle == 1:
            workspace.write_prompt("k0 k1")
        else:
            workspace.write_prompt(workspace.read_prompt() + f"\nedit {self.context.cycle}")
        return StepResult(mutated=True, summary=f"edit {self.context.cycle}")

    def on_cycle_end(self, accepted: bool, score: float) -> None:
        self.cycle_end_scores.append(score)
        self.seen.append(f"{accepted} {score}")


def evolve(tmp_path: Path, **config) -> tuple[ChannelSpy, Path]:
    workspace = make_workspace(tmp_path / "ws", prompt="k0\n", manifest="")
    engine = ChannelSpy()
    ae.Evolver(LessonAgent(workspace), Bench(), ae.EvolveConfig(**{**CONFIG, **config}), engine).run(3)
    return engine, workspace


def test_the_engine_sees_no_holdout_id_on_any_channel(tmp_path: Path) -> None:
    engine, workspace = evolve(tmp_path)
    hidden = holdout()
    assert hidden and len(engine.seen) > 10
    leaked = sorted({i for text in engine.seen for i in hidden if i in text})
    assert not leaked, f"holdout ids reached the engine: {leaked}"


def test_lessons_and_drafts_buffered_on_holdout_are_never_exported(tmp_path: Path) -> None:
    _, workspace = evolve(tmp_path)
    vc = ae.VersionControl(workspace)
    versions = [vc.show_file_at(tag, "memory/episodic.jsonl") for tag in vc.list_tags("evo-") if tag != "evo-0"]
    drafts = [p.name for p in (workspace / "skills" / "_drafts").glob("*")]
    memory = (workspace / "memory" / "episodic.jsonl").read_text()
    assert "lesson from" in memory and drafts, "train lessons and drafts are exported"
    for i in holdout():
        assert i not in memory and not any(i in v for v in versions)
        assert not any(i in d for d in drafts)


def test_trajectory_only_gives_the_engine_no_score_anywhere(tmp_path: Path) -> None:
    engine, _ = evolve(tmp_path, trajectory_only=True)
    assert engine.feedback and all(f.hidden and math.isnan(f.score) and not f.detail for f in engine.feedback)
    assert engine.trial_results and all(r.hidden and math.isnan(r.score) for r in engine.trial_results)
    assert engine.cycle_end_scores and all(math.isnan(s) for s in engine.cycle_end_scores)
    assert engine.failures == [], "no grade, so no task reads as failed"
    assert engine.records, "the engine still reads the cycle records"
    assert engine.metrics == {}, "every run metric is a score"
    for record in engine.records:
        assert math.isnan(record["score"])
        assert not {"batch_score", "accepted_score", "gate"} & set(record["metadata"])
    assert engine.files, "the engine read the workspace's files"
    for text in engine.files:
        assert '"score"' not in text and '"success"' not in text and "expected k" not in text


@pytest.mark.parametrize("trajectory_only", [False, True])
def test_the_loop_itself_still_scores_every_cycle(tmp_path: Path, trajectory_only: bool) -> None:
    _, workspace = evolve(tmp_path, trajectory_only=trajectory_only)
    records = ae.EvolutionHistory(workspace).cycle_records()
    assert records[0]["metadata"]["outcome"] == "accepted" and records[0]["metadata"]["accepted_score"] == 1.0
