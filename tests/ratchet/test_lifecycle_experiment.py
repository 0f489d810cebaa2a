"""The lifecycle experiment's tooling on a scripted run that reaches every lifecycle event in four rounds:
synthesis and cap eviction (round 1), retirement and meta-skill refresh (round 2), rollback (round 4)."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from ratchet_world import make_workspace
from test_scripted_run import run

from agent_evolve.algorithms.ratchet.ledger import Ledger
from agent_evolve.algorithms.ratchet.settings import RatchetSettings, document_round
from agent_evolve.api import resolve_config

EXPERIMENT = Path(__file__).parents[2] / "experiments" / "ratchet-lifecycle"


@pytest.fixture
def collect_module(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    pytest.importorskip("matplotlib")
    monkeypatch.syspath_prepend(str(EXPERIMENT))
    import collect

    yield collect
    for name in ("collect", "plot_bank"):
        sys.modules.pop(name, None)


def test_a_scripted_run_reaches_every_lifecycle_event_and_is_collected(tmp_path: Path,
                                                                       collect_module: ModuleType) -> None:
    workspace = make_workspace(tmp_path / "ws")
    run(workspace, cycles=4, bank_cap=2, max_new_skills=2, meta_every=2, rollback_consecutive=1)
    out = tmp_path / "out"
    events = collect_module.collect(workspace, out)
    assert events == {"synthesis": [1, 1, 3], "retirement": [2], "cap eviction": [1], "rollback": [4],
                      "meta-skill refresh": [2]}
    assert json.loads((out / "lifecycle.json").read_text()) == events
    rows = json.loads((out / "rounds.json").read_text())
    assert [r["round"] for r in rows] == [0, 1, 2, 3, 4] and rows[1]["decisions"]["evict"] == ["poison-helper"]
    assert "rollback" in (out / "audit.txt").read_text() and (out / "bank.png").stat().st_size > 0
    with Ledger.open(out / "ledger.sqlite") as copy:
        assert copy.bank_at(4) == rows[4]["bank"], "the copied ledger is the run's"


def test_the_lifecycle_config_is_the_documents_round_with_valid_scaled_thresholds() -> None:
    config = resolve_config(str(EXPERIMENT / "config.yaml"))
    assert all(getattr(config, key) == value for key, value in document_round(12, 10).items())
    settings = RatchetSettings.from_params(config.engine_params)
    assert settings.retire_min_trials < 100 and settings.bank_cap < 50 and settings.meta_every > 0
    assert settings.rollback_consecutive < 5 and settings.credit_weighting == "outcome"


def test_the_committed_fifth_run_shows_every_lifecycle_event_in_its_ledger(tmp_path: Path,
                                                                          collect_module: ModuleType) -> None:
    folder = EXPERIMENT.parent / "ratchet-lifecycle-retrieval"
    with Ledger.open(Path(shutil.copy(folder / "ledger.sqlite", tmp_path / "ledger.sqlite"))) as ledger:
        events = collect_module.lifecycle(ledger)
    assert all(events.values()), events
    assert json.loads((folder / "lifecycle.json").read_text()) == events, "lifecycle.json is what its ledger says"
