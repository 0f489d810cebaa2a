"""GEPA through the real loop with a scripted reflector: children kept or rejected on their minibatch, the pool
in engine state, and `finalize` choosing the best validation candidate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from learner_fakes import KeywordAgent, KeywordBenchmark, add_keyword, drop_keywords, make_workspace

import agent_evolve as ae
from agent_evolve.algorithms.gepa import GepaEngine
from agent_evolve.algorithms.candidates import Candidate
from agent_evolve.algorithms.gepa.scores import LEDGER_NAME
from agent_evolve.errors import ConfigError
from agent_evolve.testing import ScriptedLLM

CONFIG = dict(batch_size=4, holdout_ratio=0.2, val_ratio=0.25, concurrency=1)


def run(tmp_path: Path, script: list, cycles: int, **params) -> tuple[Path, GepaEngine, ae.EvolutionResult]:
    workspace = make_workspace(tmp_path / "ws")
    engine = GepaEngine(llm=ScriptedLLM(script), **params)
    result = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(**CONFIG), engine).run(cycles)
    return workspace, engine, result


def state(workspace: Path) -> dict:
    return json.loads((workspace / "evolution" / "engine" / "state" / "gepa.json").read_text())


def test_keeps_a_winning_child_rejects_a_losing_one_and_finalizes_on_validation(tmp_path: Path) -> None:
    workspace, engine, result = run(tmp_path, [add_keyword, drop_keywords, add_keyword], 3)
    log = state(workspace)["log"]
    assert log[0]["decision"].startswith("kept child")           # "start k0": 0.5 > 0 on each minibatch task
    assert log[1]["decision"].startswith("rejected child")       # "start": 0 < 0.5, the parent stays
    assert sum(log[1]["child_scores"].values()) < sum(log[1]["parent_scores"].values())
    assert log[2]["decision"].startswith("kept child")           # "start k0 k1": perfect
    pool = [Candidate.from_dict(c) for c in state(workspace)["candidates"]]
    assert [c.files["prompts/system.md"].split() for c in pool] == [["start"], ["start", "k0"], ["start", "k0", "k1"]]
    assert log[2]["val_means"][pool[2].id] == 1.0
    assert (workspace / "prompts" / "system.md").read_text().split() == ["start", "k0", "k1"]
    assert result.details["accepted"] == 2
    # The engine's own final choice: the accepted version holding the best validation candidate.
    assert engine.finalize(engine.context) == "evo-3"


def test_finalize_selects_an_earlier_accepted_version_when_it_validates_best(tmp_path: Path) -> None:
    workspace, engine, _ = run(tmp_path, [add_keyword], 1)
    entry = json.loads((workspace / "evolution" / "engine" / "state" / "gepa.json").read_text())
    worse = Candidate({"prompts/system.md": "start k0 extra\n"}, entry["candidates"][1]["parent"], 2)
    (workspace / "prompts" / "system.md").write_text(worse.files["prompts/system.md"])
    ae.VersionControl(workspace).commit("a later, worse version", tag="evo-2")
    entry["candidates"].append(worse.to_dict())
    (workspace / "evolution" / "engine" / "state" / "gepa.json").write_text(json.dumps(entry))
    with (workspace / "evolution" / "engine" / LEDGER_NAME).open("a") as ledger:
        for task in entry["val_ids"]:
            ledger.write(json.dumps({"candidate": worse.id, "task_id": task, "score": 0.0, "output": "",
                                     "feedback": ""}) + "\n")
    assert engine.finalize(engine.context) == "evo-1"


def test_validation_tasks_are_never_in_a_batch_and_each_is_scored_once_per_candidate(tmp_path: Path) -> None:
    workspace, _, _ = run(tmp_path, [add_keyword, drop_keywords, add_keyword], 3)
    val_ids = set(state(workspace)["val_ids"])
    observed = {o.task.id for o in ae.EvolutionHistory(workspace).get_observations()}
    assert val_ids and not val_ids & observed
    entries = [json.loads(line) for line in (workspace / "evolution" / "engine" / LEDGER_NAME).read_text().splitlines()]
    pairs = [(e["candidate"], e["task_id"]) for e in entries]
    assert len(pairs) == len(set(pairs))
    assert all(e["output"] == "" for e in entries if e["task_id"] in val_ids)   # no validation trajectories kept


def test_a_perfect_parent_is_not_reflected_on(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", prompt="start k0 k1\n")
    llm = ScriptedLLM([])
    engine = GepaEngine(llm=llm)
    ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(**CONFIG), engine).run(1)
    assert llm.calls == [] and state(workspace)["log"][0]["decision"].startswith("skipped")


def test_without_validation_tasks_the_run_stops_and_says_what_to_set(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(**{**CONFIG, "val_ratio": 0.0})
    with pytest.raises(ConfigError, match="val_ratio"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, GepaEngine(llm=ScriptedLLM([]))).run(1)


def test_components_outside_the_editable_layers_are_refused(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    engine = GepaEngine(llm=ScriptedLLM([]), components=["manifest.yaml"])
    with pytest.raises(ConfigError, match="manifest.yaml"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(**CONFIG), engine).run(1)
    with pytest.raises(ConfigError, match="minibatch"):
        GepaEngine(minibatch=3)


def test_with_hidden_feedback_the_run_stops_and_names_trajectory_only(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(**CONFIG, trajectory_only=True)
    with pytest.raises(ConfigError, match="trajectory_only"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, GepaEngine(llm=ScriptedLLM([]))).run(1)
