"""Tracking: run events from a real (scripted) run; MLflow to a local file store; W&B offline."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from userview_fakes import PLAN, FileEngine, KeywordBenchmark, config, make_workspace
from wandb_records import records

import agent_evolve as ae
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.errors import MissingDependencyError
from agent_evolve.tracking.run import RunEvent
from agent_evolve.tracking.run import run_tracked


class Recorder:
    def __init__(self) -> None:
        self.events: list[RunEvent] = []

    def on_event(self, event: RunEvent) -> None:
        self.events.append(event)


def tracked_run(tmp_path: Path, *trackers: object, cycles: int = 3) -> tuple[ae.EvolutionResult, list]:
    workspace = make_workspace(tmp_path / "ws")
    shown: list = []
    evolver = ae.Evolver(str(workspace), KeywordBenchmark(), config(), FileEngine(PLAN), progress=shown.append)
    return run_tracked(evolver, list(trackers), cycles), shown


def test_a_run_emits_the_events_in_order_and_the_display_still_gets_its_own(tmp_path: Path) -> None:
    recorder = Recorder()
    _, shown = tracked_run(tmp_path, recorder)
    kinds = [e.kind for e in recorder.events if e.kind != "task_done"]
    assert kinds == [
        "cycle_started", "step_done", "gate_decided", "version_accepted", "cycle_recorded",
        "cycle_started", "step_done", "gate_decided", "cycle_recorded",
        "cycle_started", "step_done", "gate_decided", "version_accepted", "cycle_recorded",
        "run_finished",
    ]
    solve_done = [e for e in recorder.events if e.kind == "task_done" and e.cycle == 1 and e.data["phase"] == "solve"]
    assert [e.data["done"] for e in solve_done] == [1, 2, 3, 4]
    recorded = [e for e in recorder.events if e.kind == "cycle_recorded"]
    history = ae.EvolutionHistory(tmp_path / "ws").cycle_records()
    assert [e.data["metrics"]["cycle_score"] for e in recorded] == [r["score"] for r in history]
    assert recorded[0].data["metrics"]["tokens"] == 1150.0 and recorded[2].data["metrics"]["accepted"] == 1.0
    assert len(shown) > len(recorder.events) / 2 and all(isinstance(e, ProgressEvent) for e in shown)


def test_the_mlflow_logger_writes_metrics_and_the_report_to_a_local_file_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mlflow", reason="the [mlflow] extra is not installed")
    pytest.importorskip("matplotlib", reason="the report needs the [plot] extra")
    from mlflow.tracking import MlflowClient

    from agent_evolve.tracking.mlflow_logger import MlflowTracker

    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 keeps the file store behind this switch
    uri = (tmp_path / "mlruns").as_uri()
    tracker = MlflowTracker(uri, experiment="userview-test", run_name="three-cycles")
    tracked_run(tmp_path, tracker)
    client = MlflowClient(tracking_uri=uri)
    history = client.get_metric_history(tracker.run_id, "holdout_score")
    assert [(m.step, round(m.value, 3)) for m in sorted(history, key=lambda m: m.step)] == [(1, 0.333), (2, 0.333), (3, 1.0)]
    assert [a.path for a in client.list_artifacts(tracker.run_id)] == ["report.html"]
    run = client.get_run(tracker.run_id)
    assert run.info.status == "FINISHED" and run.data.tags["accepted_tag"] == "evo-3"


def test_the_wandb_logger_works_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("wandb", reason="the [wandb] extra is not installed")
    pytest.importorskip("matplotlib", reason="the report needs the [plot] extra")
    from agent_evolve.tracking.wandb_logger import WandbTracker

    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_DISABLE_GIT", "true")
    tracker = WandbTracker(tmp_path / "wandb-out", project="userview-test", mode="offline")
    tracked_run(tmp_path, tracker)
    (run_file,) = (tmp_path / "wandb-out" / "wandb").glob("offline-run-*/run-*.wandb")
    deadline = time.monotonic() + 60  # wandb's service process finishes writing the run file after finish() returns
    found = records(run_file)
    while [kind for kind, _ in found][-1:] != ["exit"] and time.monotonic() < deadline:
        time.sleep(0.2)
        found = records(run_file)
    history = [{i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in r.item} for kind, r in found if kind == "history"]
    assert [(h["cycle"], round(h["holdout_score"], 3)) for h in history] == [(1, 0.333), (2, 0.333), (3, 1.0)]
    assert [(r.name, r.type) for kind, r in found if kind == "artifact"] == [("report", "report")]
    assert (tmp_path / "wandb-out" / "report.html").exists()


@pytest.mark.parametrize(("module", "extra"), [("mlflow", "[mlflow]"), ("wandb", "[wandb]")])
def test_a_missing_logger_package_names_its_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, module: str, extra: str) -> None:
    from agent_evolve.tracking.mlflow_logger import MlflowTracker
    from agent_evolve.tracking.wandb_logger import WandbTracker

    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")] or [module]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingDependencyError, match=rf"agent-evolve\{extra}"):
        MlflowTracker(tmp_path.as_uri()) if module == "mlflow" else WandbTracker(tmp_path)


def test_run_track_sends_the_runs_metrics_to_mlflow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mlflow", reason="the [mlflow] extra is not installed")
    pytest.importorskip("matplotlib", reason="the report needs the [plot] extra")
    from click.testing import CliRunner
    from mlflow.tracking import MlflowClient

    from agent_evolve.cli.main import cli
    from agent_evolve.registry import BENCHMARK_REGISTRY, ENGINE_REGISTRY

    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    monkeypatch.setitem(BENCHMARK_REGISTRY, "keywords", "userview_fakes.KeywordBenchmark")
    monkeypatch.setitem(ENGINE_REGISTRY, "files", "userview_fakes.FileEngine")
    workspace, uri = make_workspace(tmp_path / "ws"), (tmp_path / "mlruns").as_uri()
    result = CliRunner().invoke(cli, [
        "run", "--agent", str(workspace), "--benchmark", "keywords", "--engine", "files", "--cycles", "2",
        "--batch-size", "4", "--holdout-ratio", "0.3", "--track", f"mlflow={uri}",
    ])
    assert result.exit_code == 0, result.output
    client = MlflowClient(tracking_uri=uri)
    (run,) = client.search_runs([client.get_experiment_by_name("agent-evolve").experiment_id])
    assert [m.step for m in client.get_metric_history(run.info.run_id, "cycle_score")] == [1, 2]


def test_run_track_refuses_an_unknown_tracker() -> None:
    from click.testing import CliRunner

    from agent_evolve.cli.main import cli

    result = CliRunner().invoke(cli, ["run", "--track", "tensorboard=logs"])
    assert result.exit_code == 2 and "use mlflow=TRACKING_URI or wandb=DIRECTORY" in result.output
