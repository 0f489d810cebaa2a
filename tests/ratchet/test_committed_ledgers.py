"""Every committed Ratchet ledger (the experiments' copies and those in their checkpoints' workspaces) holds this
code's one schema and opens: nothing committed needs a migration."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import pytest

from agent_evolve.algorithms.ratchet.ledger import LEDGER_FILE, Ledger

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
COPIES = sorted(EXPERIMENTS.glob("*/ledger.sqlite"))
CHECKPOINTS = sorted(p for p in EXPERIMENTS.glob("*/checkpoint.tar.gz") if p.parent.name.startswith("ratchet"))


def opens(path: Path) -> None:
    with Ledger.open(path) as ledger:
        assert ledger.last_round() > 0 and ledger.skills() and ledger.audit_events(limit=1)


@pytest.mark.parametrize("ledger", COPIES, ids=lambda p: p.parent.name)
def test_a_committed_ledger_opens(ledger: Path, tmp_path: Path) -> None:
    opens(Path(shutil.copy(ledger, tmp_path / LEDGER_FILE)))


@pytest.mark.parametrize("checkpoint", CHECKPOINTS, ids=lambda p: p.parent.name)
def test_the_ledger_in_a_committed_checkpoint_opens(checkpoint: Path, tmp_path: Path) -> None:
    with tarfile.open(checkpoint) as archive:
        member = archive.getmember(f"workspace/evolution/{LEDGER_FILE}")
        archive.extractall(tmp_path, members=[member], filter="data")
    opens(tmp_path / member.name)


def test_the_committed_ledgers_are_found() -> None:
    assert len(COPIES) >= 2 and len(CHECKPOINTS) >= 2
