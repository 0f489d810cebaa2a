"""A plan.json or lift.json of the wrong shape (valid JSON, but not an object, or a field missing or of another
type) is a ConfigError naming the file and the field in every reader: opening, registration, verify, both tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lift_fakes import KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.cli.main import cli
from agent_evolve.errors import ConfigError
from agent_evolve.lift import LiftPlan, run_lift
from agent_evolve.lift.claims import check, lift_files, results_table
from agent_evolve.lift.engine_table import registered_runs
from agent_evolve.lift.ledger import LEDGER_FILE
from agent_evolve.lift.registration import register, verify_folder
from agent_evolve.lift.shapes import check_shape
from agent_evolve.registry import ENGINE_REGISTRY

REGISTERED = {"format": 2, "id": "p1", "registered": "2026-01-01T00:00:00Z", "config": {}, "code": {"source": "c"},
              "plan": {"engine": "e", "benchmark": "b"}, "test": {"ids": ["s0"], "ids_hash": "h", "split_hash": "x"}}
BAD_PLANS: list[tuple[Any, str]] = [
    (["plan"], "expected a JSON object, found a list"),
    ({"config": {}}, "the field 'plan' is missing"),
    ({"plan": {}, "config": []}, "the field 'config' is a list, expected an object"),
    ({k: v for k, v in REGISTERED.items() if k != "test"}, "the field 'test' is missing"),
    ({**REGISTERED, "registered": 5}, "the field 'registered' is an integer, expected a string"),
    ({**REGISTERED, "test": {"ids": ["s0", 1], "ids_hash": "h"}}, r"the field 'test.ids\[1\]' is an integer"),
    ({**REGISTERED, "plan": {"benchmark": "b"}}, "the field 'plan' names no engine"),
]
BAD_LIFTS: list[tuple[Any, str]] = [
    ([1, 2], "expected a JSON object, found a list"),
    ({"registration": "p1"}, "the field 'registration' is a string, expected an object"),
    ({"runs": [{"seed": 0}, {"lift": 0.1}]}, r"the field 'runs\[1\].seed' is missing"),
    ({"plan": {"seeds": [0, "1"]}}, r"the field 'plan.seeds\[1\]' is a string, expected an integer"),
    ({"plan": {"arms": ["evolved", "plan"]}}, r"the field 'plan.arms\[1\]' is 'plan', expected one of evolved, "),
    ({"arms": {"evolved": {"mean_lift": 0.1, "pooled": {"ci_low": 0.0}}}},
     "the field 'arms.evolved.pooled.ci_high' is missing"),
    ({"registration": {"plan_id": "p1"}, "evidence": {"headline": {
        "mean_difference": True, "ci_low": 0.0, "ci_high": 0.1, "wins": 1, "losses": 0, "n": 2}}},
     "the field 'evidence.headline.mean_difference' is true or false, expected a number"),
]


def _folder(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "experiments" / "run"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


@pytest.mark.parametrize(("content", "problem"), BAD_PLANS)
def test_a_plan_json_of_the_wrong_shape_is_a_config_error_in_every_reader(tmp_path: Path, content: Any,
                                                                         problem: str) -> None:
    path = _folder(tmp_path, "plan.json", json.dumps(content))
    (path.parent / LEDGER_FILE).write_text("")
    readers = [lambda: registered_runs(tmp_path / "experiments"), lambda: verify_folder(path.parent),
               lambda: register(path, REGISTERED)]
    for read in readers:
        with pytest.raises(ConfigError, match=rf"{path}: {problem}"):
            read()
    plan = LiftPlan(str(make_workspace(tmp_path / "agent")), "keywords", "k", seeds=(0,), draws=1)
    with pytest.raises(ConfigError, match=rf"{path}: {problem}"):
        run_lift(plan, KeywordBenchmark(), ae.EvolveConfig(), path.parent)


@pytest.mark.parametrize(("content", "problem"), BAD_LIFTS)
def test_a_lift_json_of_the_wrong_shape_is_a_config_error_in_every_reader(tmp_path: Path, content: Any,
                                                                         problem: str) -> None:
    _folder(tmp_path, "plan.json", json.dumps(REGISTERED))
    path = _folder(tmp_path, "lift.json", json.dumps(content))
    root = tmp_path / "experiments"
    readers = [lambda: registered_runs(root), lambda: results_table(root),
               lambda: list(check(tmp_path / "README.md", "", lift_files(root), tmp_path))]
    for read in readers:
        with pytest.raises(ConfigError, match=rf"{path}: {problem}"):
            read()


def test_the_table_commands_name_the_file_and_field_and_exit_as_a_usage_error(tmp_path: Path) -> None:
    plan = _folder(tmp_path, "plan.json", json.dumps({**REGISTERED, "registered": None}))
    lift = _folder(tmp_path, "lift.json", json.dumps({"runs": {"seed": 0}}))
    root = str(tmp_path / "experiments")
    for flags, problem in ((["--engines"], f"{plan}: the field 'registered' is null, expected a string"),
                           ([], f"{lift}: the field 'runs' is an object, expected a list")):
        result = CliRunner().invoke(cli, ["experiment", "table", "--root", root, *flags])
        assert result.exit_code == 2 and problem in " ".join(result.output.split()), result.output


def test_a_damaged_file_stays_a_config_error_and_a_sound_one_passes(tmp_path: Path) -> None:
    path = _folder(tmp_path, "plan.json", '{"id": ')
    with pytest.raises(ConfigError, match=rf"{path}: not valid JSON"):
        registered_runs(tmp_path / "experiments")
    schema = {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "object", "properties": {"b": {"type": "array", "items": {"type": "number"}}}},
        "c": {"type": ["string", "null"]}, "e": {"type": "object", "required": ["f"]}}}
    check_shape({"a": {"b": [1, 2.5]}, "c": None}, "x", schema)
    with pytest.raises(ConfigError, match=r"x: the field 'a.b\[1\]' is a string, expected a number"):
        check_shape({"a": {"b": [1, "2"]}}, "x", schema)


@pytest.mark.parametrize(("name", "damage", "problem"), [
    ("arm.json", lambda saved: {**saved, "lift": 0.1}, r"unexpected field\(s\) in the object: .*'lift'"),
    ("arm.json", lambda saved: {**saved, "seed": "0"}, "the field 'seed' is a string, expected an integer"),
    ("cost.json", lambda saved: [saved], "expected a JSON object, found a list"),
])
def test_an_arm_file_of_the_wrong_shape_stops_a_resume_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  name: str, damage: Any, problem: str) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")
    plan = LiftPlan(str(make_workspace(tmp_path / "agent")), "keywords", "keyword", seeds=(0,), cycles=1,
                    test_limit=120, draws=1, matched=False, control=False)
    out = tmp_path / "out"
    run_lift(plan, KeywordBenchmark(), ae.EvolveConfig(), out)
    path = out / "evolved" / "seed-0" / name
    path.write_text(json.dumps(damage(json.loads(path.read_text()))))
    if name == "cost.json":
        (path.parent / "arm.json").unlink()  # an arm stopped before it finished reads its cost so far
    with pytest.raises(ConfigError, match=rf"{path}: {problem}"):
        run_lift(plan, KeywordBenchmark(), ae.EvolveConfig(), out)
