"""Engines side by side: one table with a row per engine against one shared baseline, each engine's cost, the
command line, and a kill mid-comparison resumed without redoing finished engines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from lift_fakes import KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.cli.main import cli
from agent_evolve.errors import ConfigError
from agent_evolve.lift import ComparisonPlan, run_comparison
from agent_evolve.lift.comparison import engine_params_for
from agent_evolve.registry import BENCHMARK_REGISTRY, ENGINE_REGISTRY

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"
CONFIG = ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1, max_cycles=2)
ENGINES = {"keyword": "lift_fakes.KeywordEngine", "both": "lift_fakes.BothKeywordsEngine"}
SCRIPT = """
import sys
from pathlib import Path
import agent_evolve as ae
from agent_evolve.lift import ComparisonPlan, run_comparison
from agent_evolve.registry import ENGINE_REGISTRY
from lift_fakes import KeywordBenchmark
ENGINE_REGISTRY.update(keyword="lift_fakes.KeywordEngine", both="lift_fakes.BothKeywordsEngine")
plan = ComparisonPlan(sys.argv[1], "keywords", ("keyword", "both"), seeds=(0,), cycles=2, test_limit=20,
                      allow_small_test=True, draws=1)
config = ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1, max_cycles=2)
run_comparison(plan, KeywordBenchmark(test=20), config, Path(sys.argv[2]))
"""


@pytest.fixture
def engines(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, path in ENGINES.items():
        monkeypatch.setitem(ENGINE_REGISTRY, name, path)


def solves(log: Path) -> Counter[str]:
    return Counter(log.read_text().splitlines()) if log.is_file() else Counter()


def test_engine_params_go_to_the_engine_they_name_and_plain_ones_to_all() -> None:
    params = {"gepa.use_merge": True, "skillopt.max_lr": 2, "max_tokens": 512}
    assert engine_params_for("gepa", params, ["gepa", "skillopt"]) == {"use_merge": True, "max_tokens": 512}
    assert engine_params_for("skillopt", params, ["gepa", "skillopt"]) == {"max_lr": 2, "max_tokens": 512}
    with pytest.raises(ConfigError, match="gepa.use_merge"):
        engine_params_for("skillopt", params, ["skillopt", "demos"])


def test_a_plan_refuses_repeated_or_reserved_engine_names() -> None:
    with pytest.raises(ConfigError, match="gepa"):
        ComparisonPlan("a", "b", ("gepa", "gepa"))
    with pytest.raises(ConfigError, match="control"):
        ComparisonPlan("a", "b", ("gepa", "control"))
    with pytest.raises(ConfigError, match="at least one"):
        ComparisonPlan("a", "b", ())


def test_one_table_with_a_row_per_engine_a_shared_baseline_and_each_engines_cost(
    tmp_path: Path, engines: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "solves.log"
    monkeypatch.setenv("SOLVE_LOG", str(log))
    agent = make_workspace(tmp_path / "agent")
    plan = ComparisonPlan(str(agent), "keywords", ("keyword", "both"), seeds=(0, 1), cycles=2, test_limit=20,
                          allow_small_test=True, draws=1)
    report = run_comparison(plan, KeywordBenchmark(test=20), CONFIG, tmp_path / "out")
    rows = {r["engine"]: r for r in report["table"]}
    assert list(rows) == ["keyword", "both"] and report["baseline_test"] == 0.0
    assert rows["keyword"]["mean_lift"] == 0.5 and rows["both"]["mean_lift"] == 1.0
    assert (rows["keyword"]["wins"], rows["both"]["wins"]) == (10, 20), "tasks up, of the 20 test tasks"
    assert rows["both"]["ci_low"] == 1.0
    for row in rows.values():
        cost = row["cost"]
        assert row["seeds"] == 2 and cost["test_solves"] == 40 and cost["evolution_solves"] > 0
        assert cost["solves"] == cost["evolution_solves"] + cost["test_solves"]
    assert report["control"]["mean_lift"] == 0.0 and report["control_exact"]
    baseline = str(tmp_path / "out" / "baseline" / "workspace")
    assert report["baseline_cost"]["solves"] == 20
    assert all(n == 1 for k, n in solves(log).items() if k.startswith(baseline + "\t")), "baseline scored once"
    assert report["tasks"][0] == {"task_id": "s0", "baseline": 0.0, "keyword/0": 1.0, "both/0": 1.0,
                                  "control/0": 0.0, "keyword/1": 1.0, "both/1": 1.0, "control/1": 0.0}
    out = tmp_path / "out"
    table = (out / "comparison.md").read_text()
    assert "| keyword | 2 | 0.500 | +0.500 |" in table and "| both | 2 | 1.000 | +1.000 |" in table
    assert "| control | 2 | 0.000 | +0.000 |" in table and "**yes**" in table
    single = json.loads((out / "both" / "lift.json").read_text())
    assert single["engine"] == "both" and single["mean_lift"] == 1.0 and single["baseline_key"] == report["baseline_key"]


def test_the_command_compares_engines_and_still_runs_one(
    tmp_path: Path, engines: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(BENCHMARK_REGISTRY, "keywords", "lift_fakes.KeywordBenchmark")
    agent = make_workspace(tmp_path / "agent")
    common = ["experiment", "--agent", str(agent), "--benchmark", "keywords",
              "--seeds", "0", "--cycles", "1", "--test-limit", "8", "--allow-small-test", "--no-control",
              "--batch-size", "4", "--holdout-limit", "4"]
    both = CliRunner().invoke(cli, [*common, "--engines", "keyword,both", "--out", str(tmp_path / "cmp")])
    assert both.exit_code == 0, both.output
    report = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    assert [r["engine"] for r in report["table"]] == ["keyword", "both"] and report["control"] is None
    one = CliRunner().invoke(cli, [*common, "--engine", "keyword", "--out", str(tmp_path / "one")])
    assert one.exit_code == 0, one.output
    assert json.loads((tmp_path / "one" / "lift.json").read_text())["engine"] == "keyword"
    clash = CliRunner().invoke(cli, [*common, "--engine", "keyword", "--engines", "both", "--out", str(tmp_path / "x")])
    assert clash.exit_code != 0 and "not both" in clash.output


def test_a_killed_comparison_resumes_without_redoing_finished_engines(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    out, log = tmp_path / "out", tmp_path / "solves.log"

    def experiment(**crash: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{HERE}", "SOLVE_LOG": str(log), **crash}
        return subprocess.run([sys.executable, "-c", SCRIPT, str(agent), str(out)], env=env, capture_output=True,
                              text=True, timeout=300)

    killed = experiment(CRASH_IN=str(out / "both" / "seed-0"), CRASH_AT="12")
    assert killed.returncode == -9, killed.stderr
    first = solves(log)
    log.unlink()
    finished = experiment()
    assert finished.returncode == 0, finished.stderr
    second = solves(log)
    done_first = [str(out / "baseline"), str(out / "keyword")]
    assert not any(k.startswith(p) for k in second for p in done_first), "finished engines are not run again"
    both = str(out / "both" / "seed-0" / "workspace") + "\t"
    tests = lambda c: {k for k in c if k.startswith(both) and "\ts" in k}  # noqa: E731
    assert len(tests(first)) == 11 and len(tests(second)) == 9 and not tests(first) & tests(second)
    report = json.loads((out / "comparison.json").read_text())
    assert [(r["engine"], r["mean_lift"]) for r in report["table"]] == [("keyword", 0.5), ("both", 1.0)]
    assert report["control_exact"]
