"""Shared fixtures of the external benchmark tests; the fixture task folders hold test files of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

collect_ignore_glob = ["fixtures/*"]

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    """The folder of tiny data files in the real formats."""
    return FIXTURES
