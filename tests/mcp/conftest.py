"""The MCP tests' fixture: a copy of the mcp seed workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_evolve.registry import seed_path


@pytest.fixture
def mcp_workspace(tmp_path: Path) -> Path:
    """A copy of the mcp seed workspace."""
    target = tmp_path / "mcp-ws"
    shutil.copytree(seed_path("mcp"), target)
    return target
