"""Every lift test keeps its per-user test-view ledger in its own temporary folder, never in ~/.cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evolve.lift.ledger import VIEWS_ENV


@pytest.fixture(autouse=True)
def private_test_views(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = tmp_path_factory.mktemp("test-views")
    monkeypatch.setenv(VIEWS_ENV, str(store))
    return store
