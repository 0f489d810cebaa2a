"""Every test keeps the per-user test-view ledger (experiments and `eval` on a test split write it) in a temporary
folder of its own, never in ~/.cache. Property tests have no time limit per example: speed is measured by the
speed scripts, never by a test, and a loaded machine must not fail one."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from agent_evolve.lift.ledger import VIEWS_ENV

settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")


@pytest.fixture(autouse=True)
def private_test_views(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = tmp_path_factory.mktemp("test-views")
    monkeypatch.setenv(VIEWS_ENV, str(store))
    return store


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt here and in child processes, as in a terminal, also where the suite started
    with SIGINT ignored (a background job of a script): an ignored signal is inherited, a handled one is not."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
