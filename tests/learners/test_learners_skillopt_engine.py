"""SkillOpt through the real loop with a scripted proposer: the learning rate caps the edits, an edit that lowers
validation is rolled back and shown to the next proposal, the epoch end rewrites and advises."""

from __future__ import annotations

import json
from pathlib import Path

from learner_fakes import KeywordAgent, KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.algorithms.skillopt import SkillOptEngine
from agent_evolve.testing import ScriptedLLM

CONFIG = dict(batch_size=4, holdout_ratio=0.2, val_ratio=0.25, concurrency=1)
SKILL = Path("skills") / "task-strategy" / "SKILL.md"


def edits(*items: dict) -> str:
    return json.dumps({"edits": list(items)})


def add(text: str) -> dict:
    return {"op": "add", "content": text}


def run(tmp_path: Path, script: list, cycles: int, **params) -> tuple[Path, SkillOptEngine, ScriptedLLM]:
    workspace = make_workspace(tmp_path / "ws")
    llm = ScriptedLLM(script)
    engine = SkillOptEngine(llm=llm, **params)
    config = ae.EvolveConfig(**CONFIG, egl_window=10)   # no plateau stop: every cycle runs its step
    ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, engine).run(cycles)
    return workspace, engine, llm


def log(workspace: Path) -> list[dict]:
    return json.loads((workspace / "evolution" / "engine" / "state" / "skillopt.json").read_text())["log"]


def test_applies_at_most_lr_edits_and_rolls_back_one_that_lowers_validation(tmp_path: Path) -> None:
    script = [edits(add("Say k0."), add("Say k1."), add("Be terse."), add("Be loud.")),
              edits({"op": "delete", "target": "Say k1."}),
              edits(add("Check twice."))]
    workspace, engine, llm = run(tmp_path, script, 3, max_lr=2, min_lr=2, steps_per_epoch=100)
    steps = log(workspace)
    assert [e["content"] for e in steps[0]["applied"]] == ["Say k0.", "Say k1."]        # lr 2 of 4 proposed
    assert steps[0]["decision"] == "accept_new_best" and steps[0]["candidate_score"] == 1.0
    assert steps[1]["decision"] == "reject" and steps[1]["candidate_score"] == 0.5
    text = (workspace / SKILL).read_text()
    assert "Say k1." in text and "Be terse." not in text                                 # the delete rolled back
    assert "delete target='Say k1.'" in llm.calls[2].messages[-1].content               # the buffer is shown
    assert steps[2]["decision"] == "reject"                                             # a tie is not kept
    assert engine.finalize(engine.context) == "evo-1"
    assert ae.EvolutionHistory(workspace).cycle_records()[0]["metadata"]["outcome"] == "accepted"


def test_the_learning_rate_decays_over_the_known_steps(tmp_path: Path) -> None:
    script = [edits(*(add(f"Rule {i}.") for i in range(4)))] * 4
    workspace, _, _ = run(tmp_path, script, 4, max_lr=4, min_lr=1, lr_schedule="linear", total_steps=4,
                          steps_per_epoch=100)
    assert [e["lr"] for e in log(workspace)] == [3, 2, 2, 1]


def test_epoch_end_runs_a_gated_slow_update_and_the_meta_skill_pass(tmp_path: Path) -> None:
    script = [edits(add("Say k0.")), json.dumps({"body": "Say nothing."}), json.dumps({"notes": "Name keywords."}),
              edits(add("Say k1.")), json.dumps({"body": "Say k0 and k1."}), json.dumps({"notes": "Done."})]
    workspace, _, llm = run(tmp_path, script, 2, steps_per_epoch=1)
    steps = log(workspace)
    assert steps[0]["decision"] == "accept_new_best" and steps[0]["slow_update"] == "reject"
    assert steps[0]["meta_skill"] == "updated"
    assert "Name keywords." in llm.calls[3].messages[-1].content
    assert steps[1]["decision"] == "accept_new_best" and steps[1]["slow_update"] == "reject"   # a tie at 1.0
    assert "Say k0." in (workspace / SKILL).read_text() and "Say k1." in (workspace / SKILL).read_text()


def test_a_slow_update_that_beats_every_earlier_version_is_a_new_best(tmp_path: Path) -> None:
    script = [edits(add("Say k0.")), json.dumps({"body": "Say k0. Say k1."}), json.dumps({"notes": "Both."})]
    workspace, engine, _ = run(tmp_path, script, 1, steps_per_epoch=1)
    step = log(workspace)[0]
    assert step["decision"] == "accept_new_best" and step["candidate_score"] == 0.5
    assert step["slow_update"] == "accept_new_best"
    assert json.loads((workspace / "evolution" / "engine" / "state" / "skillopt.json").read_text())["best_step"] == 1
    assert "Say k1." in (workspace / SKILL).read_text()
