"""Ablation arms as settings overrides (the paper's named as the paper, ours as ours), held-out gain, the runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ratchet_world import LoopBenchmark, agent_llm, engine_llm, make_workspace

import agent_evolve as ae
from agent_evolve.algorithms.ratchet.ablations import (
    ARMS,
    OUR_ARMS,
    arm_params,
    heldout_gain,
    markdown,
    parse_arms,
    with_deltas,
)
from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.cli.experiment import run_ablation
from agent_evolve.errors import ConfigError


def test_the_papers_arms_and_ours_are_settings_overrides() -> None:
    assert parse_arms("a1, A3,A1,Ours-No-Cover") == ["A1", "A3", "ours-no-cover"]
    with pytest.raises(ConfigError, match="A2, A7 are not defined"):
        parse_arms("A2,A7")
    with pytest.raises(ConfigError, match="unknown arm"):
        parse_arms("A9")
    settings = {arm: RatchetSettings.from_params(arm_params(arm, {"bank_cap": 50})) for arm in ARMS}
    assert settings["A1"].routing == "none" and not settings["A3"].use_meta
    assert (settings["A4"].retire_min_trials, settings["A4"].retire_threshold) == (20, 0.0)
    assert all(name.startswith("ours-") and ARMS[name][0].startswith("ours:") for name in OUR_ARMS)
    assert settings["full"] == RatchetSettings(bank_cap=50)


def test_heldout_gain_is_the_late_window_mean_minus_round_zero() -> None:
    scores = {0: 0.25, 1: 0.3, 2: 0.4, 3: 0.5, 4: 0.5, 5: 0.6, 6: 0.6, 7: 0.7, 8: 0.7}
    gain = heldout_gain(scores)
    assert gain is not None and gain["window"] == 2 and gain["late"] == pytest.approx(0.7)
    assert gain["gain"] == pytest.approx(0.45) and gain["peak"] == 0.7
    assert heldout_gain({0: 0.5}) is None and heldout_gain({1: 0.5, 2: 0.6}) is None


def test_the_table_reports_held_out_gain_against_the_full_recipe() -> None:
    base = {"seeds": 1, "baseline_test": 0.2, "evolved_test": 0.5, "mean_lift": 0.3, "ci_low": None, "ci_high": None,
            "p_value": None, "gain_stdev": 0.0, "heldout_start": 0.25}
    rows = with_deltas([{**base, "arm": "full", "what": "the full recipe", "heldout_late": 0.58, "heldout_gain": 0.33},
                        {**base, "arm": "A1", "what": "no injection", "heldout_late": 0.25, "heldout_gain": 0.0}])
    assert [r["vs_full"] for r in rows] == [0.0, pytest.approx(-0.33)]
    assert "| A1 | no injection | 1 | 0.250 | 0.250 | +0.000 | -0.330 | +0.300 | - |" in markdown(rows)


def test_run_ablation_measures_the_full_recipe_against_no_injection(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Each arm scores its own workspaces (no arm reads another's test scores) and reports held-out gain."""
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
    assert by_arm["full"]["heldout_gain"] == 1.0 and by_arm["A1"]["heldout_gain"] == 0.0
    assert by_arm["A1"]["vs_full"] == pytest.approx(-1.0)
    saved = json.loads((tmp_path / "out" / "ablation.json").read_text())
    assert [r["arm"] for r in saved["rows"]] == ["full", "A1"]
