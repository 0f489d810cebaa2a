"""Helpers of the MCP tests: the shipped server's config and its processes still running."""

from __future__ import annotations

import os
from pathlib import Path

from agent_evolve.mcp import McpServerConfig

SERVER_MODULE = "agent_evolve.benchmarks.suites.mcp_mini.server"


def harbor() -> McpServerConfig:
    """The shipped server as the seed lists it."""
    return McpServerConfig("harbor", "python", ("-m", SERVER_MODULE))


def server_processes(marker: str = SERVER_MODULE) -> list[int]:
    """Descendant processes of this test process whose command line contains `marker` (the shipped server)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline:
                found.append(child)
    return found
