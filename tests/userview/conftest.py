"""Fixtures: a finished three-cycle run made by a scripted engine (no model), shared read-only by the tests."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from userview_fakes import make_run  # noqa: E402


@pytest.fixture(scope="session")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Cycle 1 accepted (prompt), 2 rejected (a skill that does not help), 3 accepted (prompt and a skill)."""
    return make_run(tmp_path_factory.mktemp("run") / "ws")


@pytest.fixture
def run_copy(finished_run: Path, tmp_path: Path) -> Path:
    """A private copy of the finished run (with any sibling records folder), for tests that change it."""
    shutil.copytree(finished_run.parent, tmp_path / "run", symlinks=True)
    return tmp_path / "run" / finished_run.name
