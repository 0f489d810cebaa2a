"""Ablation arms as settings overrides, and `run_ablation` over the lift protocol with scripted models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ratchet_world import LoopBenchmark, agent_llm, engine_llm, make_workspace

import agent_evolve as ae
from agent_evolve.algorithms.ratchet.ablations import ARMS, arm_params, markdown, parse_arms, with_deltas
from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.cli.ablate import run_ablation
from agent_evolve.errors import ConfigError


def test_every_arm_is_a_valid_settings_override() -> None:
    assert parse_arms("a1, A3,A1") == ["A1", "A3"]
    with pytest.raises(ConfigError, match="unknown arm"):
        parse_arms("A9")
    settings = {arm: RatchetSettings.from_params(arm_params(arm, {"bank_cap": 50})) for arm in ARMS}
    assert settings["A1"].routing == "none" and settings["A2"].routing == "retrieval"
    assert not settings["A3"].use_meta
    assert (settings["A4"].retire_min_trials, settings["A4"].retire_threshold) == (20, 0.0)
    assert not settings["A5"].canonicalise and not settings["A6"].cover_guard
    assert settings["A7"].bank_cap == 100 and settings["A8"].meta_every == 10
    assert settings["full"] == RatchetSettings(bank_cap=50)


def test_the_table_reports_each_arm_against_the_full_recipe() -> None:
    rows = with_deltas([
        {"arm": "full", "what": "the full recipe", "seeds": 1, "baseline_test": 0.2, "evolved_test": 0.5,
         "mean_lift": 0.3, "ci_low": 0.1, "ci_high": 0.5, "p_value": 0.01},
        {"arm": "A1", "what": "no injection", "seeds": 1, "baseline_test": 0.2, "evolved_test": 0.2,
         "mean_lift": 0.0, "ci_low": None, "ci_high": None, "p_value": None},
    ])
    assert [r["vs_full"] for r in rows] == [0.0, pytest.approx(-0.3)]
    assert "| A1 | no injection | 1 | 0.200 | 0.200 | +0.000 | - | - | -0.300 |" in markdown(rows)


def test_run_ablation_measures_the_full_recipe_against_no_injection(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    agent, engine = agent_llm(), engine_llm()

    def clients(config: ae.EvolveConfig, role: str, **_: Any) -> Any:
        return agent if role == "agent" else engine

    monkeypatch.setattr("agent_evolve.api.client_from_config", clients)
    seed = make_workspace(tmp_path / "seed", poison=False)
    config = ae.EvolveConfig(batch_size=12, holdout_ratio=0.2, holdout_limit=6, gate_strategy="keep", concurrency=1,
                             preflight=False, egl_window=100, engine_params={"max_new_skills": 1})
    rows = run_ablation(agent=str(seed), benchmark=LoopBenchmark(), arms=["A1"], seeds=[0], cycles=2, test_limit=30,
                        out_dir=tmp_path / "out", config=config, allow_small_test=True)
    by_arm = {r["arm"]: r for r in rows}
    assert by_arm["full"]["baseline_test"] == 0.0 and by_arm["full"]["evolved_test"] == 1.0
    assert by_arm["A1"]["evolved_test"] == 0.0, "no skill is ever injected"
    assert by_arm["A1"]["vs_full"] == pytest.approx(-1.0)
    saved = json.loads((tmp_path / "out" / "ablation.json").read_text())
    assert [r["arm"] for r in saved["rows"]] == ["full", "A1"]
    assert (tmp_path / "out" / "A1" / "scores").resolve() == (tmp_path / "out" / "scores").resolve()
