"""Loop behaviour: mutation by diff, failed steps, evolvable layers, hidden feedback, trials and budgets."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, holdout_ids, make_workspace, skill_text

import agent_evolve as ae
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.engine.records import RunRecords
from agent_evolve.errors import TrialError
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import StepResult, Usage


def run(tmp_path: Path, plan: list[tuple], cycles: int = 1, **config) -> tuple[ae.EvolutionResult, Path, PlanEngine]:
    workspace = make_workspace(tmp_path / "ws")
    engine = PlanEngine(plan)
    settings = {"batch_size": 4, "holdout_ratio": 0.3, "concurrency": 2, **config}
    result = ae.Evolver(str(workspace), KeywordBenchmark(), ae.EvolveConfig(**settings), engine).run(cycles)
    return result, workspace, engine


def outcomes(workspace: Path) -> list[str]:
    return [r["metadata"]["outcome"] for r in ae.EvolutionHistory(workspace).cycle_records()]


@pytest.mark.parametrize(
    "action",
    [
        ("prompt", "baseline\nk0 k1\n"),
        ("skill", "helper", skill_text("helper", "k0 k1")),
        ("memory", "k0 and k1"),
    ],
    ids=["prompt", "skill-body", "memory"],
)
def test_each_layer_edit_counts_as_a_mutation(tmp_path: Path, action: tuple) -> None:
    result, workspace, _ = run(tmp_path, [action])
    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["mutated"] is True
    assert record["metadata"]["changed_paths"], "the diff names what changed"


def test_skill_body_edit_of_an_existing_skill_is_a_mutation(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    ae.AgentWorkspace(str(workspace)).write_skill("helper", skill_text("helper", "old body"))
    engine = PlanEngine([("skill", "helper", skill_text("helper", "new body"))])
    ae.Evolver(str(workspace), KeywordBenchmark(), ae.EvolveConfig(batch_size=4), engine).run(1)
    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["mutated"] and record["metadata"]["changed_paths"] == ["skills/helper/SKILL.md"]


def test_a_step_that_changes_nothing_is_not_a_mutation(tmp_path: Path) -> None:
    result, workspace, _ = run(tmp_path, [("noop",)])
    assert outcomes(workspace) == ["unchanged"]


def test_improvement_is_accepted_and_tagged(tmp_path: Path) -> None:
    result, workspace, _ = run(tmp_path, [("prompt", "k0 k1")])
    assert outcomes(workspace) == ["accepted"]
    assert "evo-1" in ae.VersionControl(workspace).list_tags()
    assert result.final_score == 1.0 and result.details["baseline_score"] == 0.0


def test_failed_step_leaves_the_workspace_unchanged(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    before = {p.relative_to(workspace): p.read_bytes() for p in workspace.rglob("*") if p.is_file() and ".git" not in p.parts and "evolution" not in p.parts}
    engine = PlanEngine([("raise",)])
    result = ae.Evolver(str(workspace), KeywordBenchmark(), ae.EvolveConfig(batch_size=4), engine).run(1)
    after = {p.relative_to(workspace): p.read_bytes() for p in workspace.rglob("*") if p.is_file() and ".git" not in p.parts and "evolution" not in p.parts}
    assert after == before
    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["metadata"]["status"] == "failed" and "engine blew up" in record["summary"]
    assert result.details["failed"] == 1


def test_edits_outside_evolvable_layers_are_reverted(tmp_path: Path) -> None:
    result, workspace, _ = run(tmp_path, [("file", "manifest.yaml", "name: hijacked\n")])
    assert "hijacked" not in (workspace / "manifest.yaml").read_text()
    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["metadata"]["reverted_paths"] == ["manifest.yaml"] and record["mutated"] is False


def test_disabled_layer_in_config_is_not_evolved(tmp_path: Path) -> None:
    result, workspace, _ = run(tmp_path, [("prompt", "k0 k1")], evolve_prompts=False)
    assert (workspace / "prompts" / "system.md").read_text() == "baseline\n"
    assert outcomes(workspace) == ["unchanged"]


def test_invalid_skill_left_by_the_engine_fails_the_step(tmp_path: Path) -> None:
    workspace2 = make_workspace(tmp_path / "ws2")
    engine = PlanEngine([("file", "skills/bad/SKILL.md", "no frontmatter at all")])
    ae.Evolver(str(workspace2), KeywordBenchmark(), ae.EvolveConfig(batch_size=4), engine).run(1)
    record = ae.EvolutionHistory(workspace2).cycle_records()[0]
    assert record["metadata"]["status"] == "failed" and "SKILL.md" in record["summary"]
    assert not (workspace2 / "skills" / "bad" / "SKILL.md").exists()


def test_run_records_survive_rollback_and_stay_out_of_git(tmp_path: Path) -> None:
    result, workspace, _ = run(tmp_path, [("prompt", "k0 k1"), ("prompt", "nothing")], cycles=2)
    assert outcomes(workspace) == ["accepted", "rejected"]
    vc = ae.VersionControl(workspace)
    tracked = vc._git("ls-files").split()
    assert not [p for p in tracked if p.startswith("evolution/")]
    assert (workspace / "evolution" / "observations" / "batch_1.jsonl").exists()
    assert (workspace / "evolution" / "observations" / "batch_2.jsonl").exists()
    metrics = json.loads((workspace / "evolution" / "metrics.json").read_text())
    assert metrics["accepted"] == 1 and metrics["rejected"] == 1
    assert ae.AgentWorkspace(str(workspace)).read_evolution_metrics()["accepted"] == 1


def test_trajectory_only_hides_scores_from_the_engine(tmp_path: Path) -> None:
    class Spy(PlanEngine):
        def step(self, workspace, observations, history, trial=None) -> StepResult:
            self.feedback = [o.feedback for o in observations]
            return StepResult(mutated=False, summary="looked")

    workspace = make_workspace(tmp_path / "ws", prompt="k0 k1")
    engine = Spy([])
    ae.Evolver(str(workspace), KeywordBenchmark(), ae.EvolveConfig(batch_size=4, trajectory_only=True), engine).run(1)
    assert engine.feedback and all(f.hidden and math.isnan(f.score) and f.detail == "" for f in engine.feedback)


def test_trial_runs_train_tasks_and_refuses_holdout(tmp_path: Path) -> None:
    class Trier(PlanEngine):
        def step(self, workspace, observations, history, trial=None) -> StepResult:
            candidate = self.context.scratch_dir / "candidate"
            import shutil

            shutil.copytree(workspace.path, candidate, ignore=shutil.ignore_patterns(".git", "evolution"))
            (candidate / "prompts" / "system.md").write_text("k0 k1")
            self.report = trial([o.task.id for o in observations], workspace=candidate)
            self.default_report = trial()
            holdout = holdout_ids(workspace.path)
            with pytest.raises(TrialError):
                trial([holdout[0]])
            with pytest.raises(TrialError):
                trial(workspace=tmp_path)
            return StepResult(mutated=False, summary="tried")

    workspace = make_workspace(tmp_path / "ws")
    engine = Trier([])
    ae.Evolver(str(workspace), KeywordBenchmark(), ae.EvolveConfig(batch_size=4), engine).run(1)
    assert engine.report.mean_score == 1.0 and len(engine.report.results) == 4
    assert engine.default_report.mean_score == 0.0


def test_the_engines_trial_solves_are_counted_on_the_progress_display(tmp_path: Path) -> None:
    """A step that scores candidates for minutes must not look frozen: every graded trial task is a progress event."""

    class TwoTrials(PlanEngine):
        def step(self, workspace, observations, history, trial=None) -> StepResult:
            trial()
            trial([o.task.id for o in observations][:2])
            return StepResult(mutated=False, summary="tried")

    events: list[ProgressEvent] = []
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=4, concurrency=2)
    ae.Evolver(str(workspace), KeywordBenchmark(), config, TwoTrials([]), progress=events.append).run(1)
    counted = sorted(e.done for e in events if e.phase == "step" and e.done)
    assert counted == [1, 2, 3, 4, 5, 6]
    assert any(e.message == "6 trial solves" for e in events if e.phase == "step")


def test_budget_exhausted_mid_run_stops_with_out_of_budget(tmp_path: Path) -> None:
    ledger = UsageLedger()

    class Spender(PlanEngine):
        def step(self, workspace, observations, history, trial=None) -> StepResult:
            workspace.write_prompt("k0 k1")
            ledger.record("engine", Usage(calls=1, input_tokens=600, output_tokens=0))
            ledger.check_budget()
            return StepResult(mutated=True, summary="spent")

    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=4, max_total_tokens=500)
    result = ae.Evolver(str(workspace), KeywordBenchmark(), config, Spender([]), ledger=ledger).run(5)
    assert result.details["stop_reason"] == "out_of_budget"
    assert result.cycles_completed == 1 and outcomes(workspace) == ["out_of_budget"]
    assert (workspace / "prompts" / "system.md").read_text() == "baseline\n"
    assert "budget" in ae.EvolutionHistory(workspace).cycle_records()[0]["summary"]


def test_budget_spent_while_scoring_the_baseline_stops_cleanly(tmp_path: Path) -> None:
    ledger = UsageLedger()
    finalized: list[int] = []

    class MeteredAgent(KeywordAgent):
        def solve(self, task):
            ledger.record("agent", Usage(calls=1, input_tokens=400))
            ledger.check_budget()
            return super().solve(task)

    class Finalizing(PlanEngine):
        def finalize(self, ctx):
            finalized.append(ctx.cycle)

    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, max_total_tokens=1_000)
    events: list[ProgressEvent] = []
    engine = Finalizing([("prompt", "k0 k1")])
    result = ae.Evolver(MeteredAgent(workspace), KeywordBenchmark(), config, engine, ledger=ledger,
                        progress=events.append).run(3)
    assert result.details["stop_reason"] == "out_of_budget" and result.cycles_completed == 0
    assert math.isnan(result.final_score) and math.isnan(result.details["baseline_score"]), "nothing was measured"
    assert engine.seen == [] and finalized == [0], "no cycle ran; the engine finalized as at any controlled stop"
    assert any(e.phase == "out_of_budget" and "budget" in e.message for e in events)
    metrics = json.loads(RunRecords(workspace).metrics.read_text())
    assert metrics["ended"] == "out_of_budget"
    assert (workspace / "prompts" / "system.md").read_text() == "baseline\n"

    resumed = ae.Evolver(str(workspace), KeywordBenchmark(), ae.EvolveConfig(batch_size=4, holdout_ratio=0.3),
                         Finalizing([("prompt", "k0 k1")])).run(1)
    assert resumed.details["stop_reason"] == "" and resumed.cycles_completed == 1
    assert resumed.details["baseline_score"] == 0.0, "a rerun scores the baseline it never finished"


def test_bootstrap_is_committed_as_cycle_zero(tmp_path: Path) -> None:
    class Booter(PlanEngine):
        def bootstrap(self, ctx):
            ctx.workspace.write_prompt("k0")
            return StepResult(mutated=True, summary="seeded k0")

    workspace = make_workspace(tmp_path / "ws")
    result = ae.Evolver(str(workspace), KeywordBenchmark(), ae.EvolveConfig(batch_size=4), Booter([("noop",)])).run(1)
    assert ae.VersionControl(workspace).show_file_at("evo-0", "prompts/system.md") == "k0"
    assert result.details["baseline_score"] > 0.0, "the baseline is measured after the bootstrap"


def test_engine_state_persists_across_cycles(tmp_path: Path) -> None:
    result, workspace, engine = run(tmp_path, [("noop",)], cycles=3)
    assert (workspace / "evolution" / "engine" / "state" / "steps.log").read_text() == "1\n2\n3\n"


def test_budget_hit_while_solving_keeps_the_last_accepted_version(tmp_path: Path) -> None:
    spend = {"on": False}
    ledger = UsageLedger()

    class MeteredAgent(KeywordAgent):
        def solve(self, task):
            if spend["on"]:
                ledger.record("agent", Usage(calls=1, input_tokens=10_000))
                ledger.check_budget()
            return super().solve(task)

    class Switch(PlanEngine):
        def on_cycle_end(self, accepted: bool, score: float) -> None:
            spend["on"] = True

    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=4, max_total_tokens=5_000)
    evolver = ae.Evolver(MeteredAgent(workspace), KeywordBenchmark(), config, Switch([("prompt", "k0 k1")]), ledger=ledger)
    result = evolver.run(4)
    assert outcomes(workspace) == ["accepted", "out_of_budget"]
    assert result.details["stop_reason"] == "out_of_budget"
    assert (workspace / "prompts" / "system.md").read_text() == "k0 k1"
    assert result.final_score == 1.0
