"""Registered plans and the test-view ledger: a changed plan is a new plan and the report counts who looked at the
test tasks; a rewritten ledger row is caught; a reserve never hands out a task an earlier plan scored."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lift_fakes import KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.cli.main import cli
from agent_evolve.errors import ConfigError
from agent_evolve.lift import LiftPlan, run_lift
from agent_evolve.lift.ledger import (
    CLAIM,
    LEDGER_FILE,
    View,
    append_view,
    earlier_plans,
    first_bad_row,
    read_rows,
    reserve,
)
from agent_evolve.lift.report import registration_lines
from agent_evolve.registry import ENGINE_REGISTRY

CONFIG = ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1, max_cycles=1)


@pytest.fixture(autouse=True)
def keyword_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")


def plan_of(agent: Path, **settings: object) -> LiftPlan:
    defaults: dict = dict(seeds=(0,), cycles=1, test_limit=20, allow_small_test=True, draws=1, matched=False,
                          control=False)
    return LiftPlan(str(agent), "keywords", "keyword", **{**defaults, **settings})


def test_a_changed_config_after_a_test_scoring_is_a_new_plan_and_the_next_report_counts_both(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    first = run_lift(plan_of(agent), KeywordBenchmark(test=40), CONFIG, tmp_path / "first")
    changed = dataclasses.replace(CONFIG, batch_size=3)
    second = run_lift(plan_of(agent), KeywordBenchmark(test=40), changed, tmp_path / "second")
    ids = first["registration"]["plan_id"], second["registration"]["plan_id"]
    assert ids[0] != ids[1] and json.loads((tmp_path / "second" / "plan.json").read_text())["id"] == ids[1]
    text = (tmp_path / "second" / "lift.md").read_text()
    assert "these test tasks were scored under 2 plans" in text.lower() and f"plan {ids[0]}" in text
    assert second["registration"]["plans"] == 2 and second["registration"]["earlier"][0]["plan"] == ids[0]
    assert first["registration"]["plans"] == 1
    assert f"Plan **{ids[1]}**" in text and json.loads((tmp_path / "second" / "lift.json").read_text())[
        "registration"]["plan_id"] == ids[1]


def test_resuming_a_folder_under_another_plan_is_refused_listing_the_differences(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    run_lift(plan_of(agent), KeywordBenchmark(test=40), CONFIG, tmp_path / "out")
    with pytest.raises(ConfigError, match=r"(?s)config\.batch_size: 4 -> 3.*plan\.draws: 1 -> 2"):
        run_lift(plan_of(agent, draws=2), KeywordBenchmark(test=40), dataclasses.replace(CONFIG, batch_size=3),
                 tmp_path / "out")
    assert run_lift(plan_of(agent), KeywordBenchmark(test=40), CONFIG, tmp_path / "out")["mean_lift"] == 0.5


def test_a_rewritten_or_dropped_ledger_row_fails_verify_naming_it(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    out = tmp_path / "out"
    run_lift(plan_of(agent, control=True), KeywordBenchmark(test=40), CONFIG, out)
    assert CliRunner().invoke(cli, ["experiment", "verify", str(out)]).exit_code == 0
    ledger = out / LEDGER_FILE
    lines = ledger.read_text().splitlines()
    assert [json.loads(line)["who"] for line in lines] == [CLAIM, "baseline", "evolved/seed-0", "control/seed-0"]
    row = json.loads(lines[2])
    row["score"] = 1.0
    ledger.write_text("\n".join([lines[0], lines[1], json.dumps(row), lines[3]]) + "\n")
    result = CliRunner().invoke(cli, ["experiment", "verify", str(out)])
    assert result.exit_code != 0 and "row 3" in result.output and "rewritten" in result.output
    ledger.write_text("\n".join([lines[0], lines[1], lines[3]]) + "\n")
    result = CliRunner().invoke(cli, ["experiment", "verify", str(out)])
    assert result.exit_code != 0 and "row 3" in result.output


def test_rows_cut_from_the_ledgers_end_fail_verify_against_the_per_user_store(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    out = tmp_path / "out"
    run_lift(plan_of(agent, control=True), KeywordBenchmark(test=40), CONFIG, out)
    ledger = out / LEDGER_FILE
    lines = ledger.read_text().splitlines()
    ledger.write_text("\n".join(lines[:3]) + "\n")  # the claim and the baseline: the chain of what is left holds
    assert first_bad_row(read_rows(ledger)) is None
    result = CliRunner().invoke(cli, ["experiment", "verify", str(out)])
    assert result.exit_code != 0 and "1 scoring(s)" in result.output and "control" in result.output


def test_a_ledger_row_chains_to_the_one_before_and_the_same_scoring_is_written_once(tmp_path: Path) -> None:
    path = tmp_path / "views.jsonl"
    view = View("p1", "baseline", "key", 0, ("a", "b"), 0.5)
    assert append_view(path, view) and not append_view(path, view)
    assert append_view(path, dataclasses.replace(view, draw=1))
    rows = read_rows(path)
    assert rows[1]["prev"] == rows[0]["hash"] and first_bad_row(rows) is None
    assert first_bad_row([rows[1], rows[0]]) == (1, first_bad_row([rows[1]])[1])
    with path.open("a") as sink:
        sink.write('{"prev": "torn by a ki')  # a kill mid-append
    assert append_view(path, dataclasses.replace(view, draw=2)) and first_bad_row(read_rows(path)) is None


def test_a_ledger_with_bytes_that_are_not_utf8_fails_verify_naming_it(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    append_view(path, View("p1", "baseline", "key", 0, ("a",), 0.5))
    with path.open("ab") as sink:
        sink.write(b"\xff\n")
    result = CliRunner().invoke(cli, ["experiment", "verify", str(tmp_path)])
    assert result.exit_code == 2 and f"{path}: not UTF-8" in result.stderr, result.output


def test_a_reserve_never_holds_a_task_an_earlier_plan_scored(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    bench = KeywordBenchmark(test=50)
    first = run_lift(plan_of(agent, test_reserve=20), bench, CONFIG, tmp_path / "a")
    second = run_lift(plan_of(agent, test_reserve=20), bench, dataclasses.replace(CONFIG, batch_size=3), tmp_path / "b")
    seen_first = {row["task_id"] for row in first["tasks"]}
    seen_second = {row["task_id"] for row in second["tasks"]}
    assert len(seen_first) == len(seen_second) == 20 and not seen_first & seen_second
    assert second["registration"]["plans"] == 1, "the reserve's tasks were never scored before"
    again = run_lift(plan_of(agent, test_reserve=20), bench, dataclasses.replace(CONFIG, batch_size=3), tmp_path / "b")
    assert {row["task_id"] for row in again["tasks"]} == seen_second, "a resume keeps its registered reserve"
    with pytest.raises(ConfigError, match="only 10 of the 50 test tasks.*reserve is exhausted"):
        run_lift(plan_of(agent, test_reserve=20), bench, dataclasses.replace(CONFIG, batch_size=2), tmp_path / "c")


def test_a_plan_stopped_in_its_first_scoring_still_holds_its_tasks_from_a_later_reserve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = make_workspace(tmp_path / "agent")
    bench = KeywordBenchmark(test=50)

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # killed mid-scoring: no scoring of the plan completes

    with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
        patched.setattr("agent_evolve.lift.opening.score_tasks", stopped)
        run_lift(plan_of(agent, test_reserve=20), bench, CONFIG, tmp_path / "a")
    held = [row for row in read_rows(tmp_path / "a" / LEDGER_FILE)]
    assert [(row["who"], row["score"], len(row["task_ids"])) for row in held] == [(CLAIM, None, 20)]
    later = run_lift(plan_of(agent, test_reserve=20), bench, dataclasses.replace(CONFIG, batch_size=3), tmp_path / "b")
    assert not set(held[0]["task_ids"]) & {row["task_id"] for row in later["tasks"]}
    resumed = run_lift(plan_of(agent, test_reserve=20), bench, CONFIG, tmp_path / "a")
    assert {row["task_id"] for row in resumed["tasks"]} == set(held[0]["task_ids"]), "a resume keeps its reserve"
    assert [row["who"] for row in read_rows(tmp_path / "a" / LEDGER_FILE)].count(CLAIM) == 1


def test_a_claimed_plan_is_counted_and_reported_without_a_score(tmp_path: Path) -> None:
    rows = [{"plan": "early", "who": CLAIM, "draw": 0, "time": "t0", "task_ids": ["s1", "s2"], "score": None}]
    found = earlier_plans(rows, ["s1", "s2", "s3"], "now")
    assert found == {"plans": 2, "earlier": [{"plan": "early", "first": "t0", "tasks": 2, "scores": {}}]}
    lines = registration_lines({"registered": True, "plan_id": "now", **found})
    assert any("early" in line and "claimed" in line for line in lines)


def test_reserve_skips_every_scored_id_and_refuses_when_short() -> None:
    rows = [{"plan": "p", "task_ids": ["s1", "s3"]}]
    assert reserve(["s0", "s1", "s2", "s3", "s4"], rows, 3, "ledger") == ["s0", "s2", "s4"]
    with pytest.raises(ConfigError, match="exhausted"):
        reserve(["s0", "s1", "s2", "s3"], rows, 3, "ledger")


def test_eval_on_the_test_split_is_a_view_the_next_plan_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                private_test_views: Path) -> None:
    from agent_evolve.registry import BENCHMARK_REGISTRY

    monkeypatch.setitem(BENCHMARK_REGISTRY, "keywords", "lift_fakes.KeywordBenchmark")
    agent = make_workspace(tmp_path / "agent")
    result = CliRunner().invoke(cli, ["eval", "--workspace", str(agent), "--benchmark", "keywords", "--limit", "30",
                                      "--no-preflight"])
    assert result.exit_code == 0, result.output
    report = run_lift(plan_of(agent), KeywordBenchmark(), CONFIG, tmp_path / "out")
    assert report["registration"]["plans"] == 2
    assert report["registration"]["earlier"][0]["plan"].startswith("eval-")


def test_a_committed_neighbour_folder_counts_on_a_machine_without_the_user_store(tmp_path: Path,
                                                                                   private_test_views: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    bench = KeywordBenchmark(test=50)
    first = run_lift(plan_of(agent), bench, CONFIG, tmp_path / "experiments" / "a")
    for store in private_test_views.glob("*.jsonl"):
        store.unlink()  # another machine: only the committed folders travel
    other = run_lift(plan_of(agent, test_reserve=20), bench, dataclasses.replace(CONFIG, batch_size=3),
                     tmp_path / "experiments" / "b")
    assert not {r["task_id"] for r in first["tasks"]} & {r["task_id"] for r in other["tasks"]}
    unrelated = run_lift(plan_of(agent), KeywordBenchmark(test=60), CONFIG, tmp_path / "experiments" / "c")
    assert unrelated["registration"]["plans"] == 1, "a folder that scored another test split does not count"


def test_a_folder_from_before_registration_reports_as_unregistered_without_solving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = make_workspace(tmp_path / "agent")
    out = tmp_path / "out"
    plan = plan_of(agent, control=True)
    report = run_lift(plan, KeywordBenchmark(test=40), CONFIG, out)
    saved = json.loads((out / "plan.json").read_text())  # rewritten as a folder from before registration
    old_plan = {k: v for k, v in saved["plan"].items() if k not in ("draws", "matched", "test_reserve")}
    (out / "plan.json").write_text(json.dumps({"plan": {**old_plan, "arms": ["evolved", "control"]},
                                               "config": saved["config"]}))
    (out / "scores" / "draw-0" / "baseline.jsonl").rename(out / "scores" / f"{report['baseline_key']}.jsonl")
    (out / LEDGER_FILE).unlink()
    log = tmp_path / "solves.log"
    monkeypatch.setenv("SOLVE_LOG", str(log))
    again = run_lift(plan_of(agent, control=True, draws=2, matched=True), KeywordBenchmark(test=40), CONFIG, out)
    assert not log.exists(), "nothing is solved again"
    assert again["mean_lift"] == report["mean_lift"] and not again["registration"]["registered"]
    assert again["plan"]["draws"] == 1 and "matched" not in again["arms"]
    assert "**Unregistered**" in (out / "lift.md").read_text()
    assert [row["who"] for row in read_rows(out / LEDGER_FILE)] == ["baseline", "evolved/seed-0", "control/seed-0"]


def test_the_code_version_is_recorded_with_or_without_git(tmp_path: Path) -> None:
    from agent_evolve.lift.registration import git_state, source_hash

    assert git_state(tmp_path) == {"commit": None, "dirty": None}
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    before = source_hash(tmp_path / "pkg")
    (tmp_path / "pkg" / "a.py").write_text("x = 2\n")
    assert source_hash(tmp_path / "pkg") != before, "an edit to the code makes a new plan"


def test_a_plan_registered_alone_is_the_plan_the_run_then_keeps_and_scores_nothing_first(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    out = tmp_path / "out"
    registered = run_lift(plan_of(agent), KeywordBenchmark(test=40), CONFIG, out, register_only=True)
    assert set(registered) == {"registration"} and (out / "plan.json").is_file()
    assert not (out / LEDGER_FILE).exists(), "no test task was scored before the plan could be committed"
    ran = run_lift(plan_of(agent), KeywordBenchmark(test=40), CONFIG, out)
    assert ran["registration"]["plan_id"] == registered["registration"]["plan_id"]


def test_an_agent_workspace_changed_after_registration_is_another_plan(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    run_lift(plan_of(agent), KeywordBenchmark(test=40), CONFIG, tmp_path / "out", register_only=True)
    (agent / "prompts" / "system.md").write_text("baseline k0\n")
    with pytest.raises(ConfigError, match=r"agent_workspace: '\w+' -> '\w+'"):
        run_lift(plan_of(agent), KeywordBenchmark(test=40), CONFIG, tmp_path / "out")
