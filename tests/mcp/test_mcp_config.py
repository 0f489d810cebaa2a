"""Server lists from manifests and tasks: validated with errors naming the source, merged, resolved."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_evolve.agents.mcp_tools import servers_for
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.mcp import parse_servers, workspace_servers
from agent_evolve.mcp.client import _sdk
from agent_evolve.types import Task


def test_the_mcp_servers_wrapper_and_a_plain_mapping_read_the_same() -> None:
    entry = {"command": "python", "args": ["-m", "x"], "env": {"A": 1}}
    wrapped = parse_servers({"mcpServers": {"s": entry}}, "cfg")
    assert wrapped == parse_servers({"s": entry}, "cfg")
    assert wrapped[0].args == ("-m", "x") and wrapped[0].env == {"A": "1"}


@pytest.mark.parametrize(("entry", "needle"), [
    ({"args": []}, "key 'command'"),
    ({"command": "x", "args": "-m x"}, "key 'args'"),
    ({"command": "x", "port": 3}, "unknown key(s) ['port']"),
    ({"url": "http://localhost:1"}, "only stdio servers"),
    ("python -m x", "must be a mapping"),
])
def test_a_bad_entry_names_the_source_the_server_and_the_key(entry: object, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_servers({"srv": entry}, "tasks.json")
    assert "tasks.json" in str(info.value) and "'srv'" in str(info.value) and needle in str(info.value)


def test_the_seed_lists_the_shipped_server_and_a_task_server_overrides_it(mcp_workspace: Path) -> None:
    [seeded] = workspace_servers(mcp_workspace)
    assert seeded.name == "harbor" and seeded.executable() == sys.executable
    task = Task("t", "q", {"mcp_servers": {"harbor": {"command": "python", "args": ["-V"]},
                                           "other": {"command": "python"}}})
    merged = {server.name: server for server in servers_for(mcp_workspace, task)}
    assert sorted(merged) == ["harbor", "other"] and merged["harbor"].args == ("-V",)


def test_a_bad_manifest_list_names_the_manifest(mcp_workspace: Path) -> None:
    manifest = mcp_workspace / "manifest.yaml"
    manifest.write_text(manifest.read_text().replace("command: python", "command: ''"))
    with pytest.raises(ConfigError, match=r"manifest\.yaml: key 'mcp_servers'.*'harbor'.*key 'command'"):
        workspace_servers(mcp_workspace)


def test_a_missing_command_names_the_server_and_the_command() -> None:
    [server] = parse_servers({"ghost": {"command": "no-such-mcp-server-binary"}}, "cfg")
    with pytest.raises(MissingDependencyError, match="'ghost'.*'no-such-mcp-server-binary' not found"):
        server.executable()


def test_python_servers_inherit_this_process_pythonpath(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", "/somewhere/src")
    [python, other] = parse_servers({"p": {"command": "python", "env": {"X": "1"}}, "o": {"command": "node"}}, "c")
    assert python.launch_env() == {"PYTHONPATH": "/somewhere/src", "X": "1"}
    assert other.launch_env() == {}


def test_without_the_sdk_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(MissingDependencyError, match=r"agent-evolve\[mcp\]"):
        _sdk()
