"""Ratchet's per-round plot: points from the ledger and run scores, and a PNG written from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evolve.algorithms.ratchet.ledger import Ledger
from agent_evolve.algorithms.ratchet.plot import (
    RoundPoint,
    plot_path,
    plot_run,
    round_points,
)
from agent_evolve.algorithms.ratchet.records import Capsule, Decision, RatchetSkill
from agent_evolve.contract.paths import RECORDS_DIR


def attempt(round_: int, skill: str | None) -> Capsule:
    return Capsule(round_, f"t{round_}", "train", "p", "o", 1.0, True, skill, skill or "NONE")


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    with Ledger.open(tmp_path / "ratchet.sqlite") as opened:
        opened.add_capsules([attempt(1, None), attempt(1, None), attempt(2, "a"), attempt(2, None), attempt(3, "a")])
        opened.snapshot_bank(1, [])
        opened.snapshot_bank(2, [RatchetSkill(n, "d", "i", [], "", "", [], [], "") for n in ("a", "b")])
        opened.add_decision(Decision(3, "rollback", "bank", {"best_round": 2}))
        yield opened


def test_points_combine_scores_engagement_and_bank_size(ledger: Ledger) -> None:
    assert round_points(ledger, {0: 0.2, 1: 0.25, 2: 0.5, 3: 0.4}) == [
        RoundPoint(0, 0.2, None, 0), RoundPoint(1, 0.25, 0.0, 0), RoundPoint(2, 0.5, 0.5, 2),
        RoundPoint(3, 0.4, 1.0, 2)]


def test_the_plot_is_a_png(ledger: Ledger, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the [plot] extra is not installed")
    out = plot_run(ledger, {0: 0.2, 1: 0.25, 2: 0.5, 3: 0.4}, tmp_path / "plots" / "rounds.png")
    assert out == tmp_path / "plots" / "rounds.png"
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


def test_the_plot_lives_with_the_scored_records(tmp_path: Path) -> None:
    assert plot_path(tmp_path / "ws") == tmp_path / "ws" / RECORDS_DIR / "ratchet_rounds.png"
