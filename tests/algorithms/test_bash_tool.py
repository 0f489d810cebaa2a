"""skillforge's bash tool: confined to the workspace, bounded in time and output."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash, check_command


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "prompts").mkdir(parents=True)
    (ws / "prompts" / "system.md").write_text("hello prompt\n")
    (ws / "evolution").mkdir()
    (ws / "evolution" / "journal.jsonl").write_text("secret record\n")
    (ws / ".git").mkdir()
    (tmp_path / "outside.txt").write_text("outside secret\n")
    return ws


def test_runs_in_the_workspace(root: Path):
    bash = ConfinedBash(root)
    assert bash.run("cat prompts/system.md") == "exit code 0\nhello prompt"
    assert bash.run("mkdir -p skills/a && echo hi > skills/a/notes.txt && cat skills/a/notes.txt").endswith("hi")
    assert bash.run("ls 2>/dev/null").startswith("exit code 0")


@pytest.mark.parametrize("command", [
    "cat ../outside.txt",
    "cat prompts/../../outside.txt",
    "cat /etc/passwd",
    "cat ~/.bashrc",
    "cat evolution/journal.jsonl",
    "ls .git",
    "cd .. && cat outside.txt",
    "cat $HOME/x",
    "cat `echo x`",
    "git status",
    "python3 -c \"print(open('/etc/hostname').read())\"",
])
def test_refuses_reading_outside_the_workspace(root: Path, command: str):
    result = ConfinedBash(root).run(command)
    assert result.startswith("Refused:"), result
    assert "secret" not in result


@pytest.mark.parametrize("command", [
    "echo x > ../written.txt",
    "cp prompts/system.md /tmp/written.txt",
    "echo x > evolution/written.txt",
    "touch prompts/../../written.txt",
])
def test_refuses_writing_outside_the_workspace(root: Path, command: str):
    assert ConfinedBash(root).run(command).startswith("Refused:")
    assert not (root.parent / "written.txt").exists()
    assert not (root / "evolution" / "written.txt").exists()


def test_symlink_out_of_the_workspace_is_refused(root: Path):
    (root / "link").symlink_to(root.parent)
    assert check_command("cat link/outside.txt", root) is not None


@pytest.mark.parametrize("command", ["sleep 1000", "while true; do :; done"])
def test_a_command_that_never_ends_is_killed(root: Path, command: str):
    started = time.monotonic()
    result = ConfinedBash(root, timeout_s=1.0).run(command)
    assert time.monotonic() - started < 5
    assert result.startswith("Error: timed out after 1s")


def test_output_is_truncated(root: Path):
    result = ConfinedBash(root, output_limit=200).run("yes")
    assert len(result) < 400 and "truncated" in result


def test_recursive_commands_do_not_see_the_records_where_namespaces_work(root: Path):
    bash = ConfinedBash(root)
    if bash.isolation != "namespace":
        pytest.skip("no unprivileged namespaces on this machine: only the path checks apply")
    assert "secret" not in bash.run("grep -r secret . ; echo end")
    assert bash.run("touch a.txt && ls -a").count("evolution") == 1


def test_no_network_by_default_where_namespaces_work(root: Path):
    bash = ConfinedBash(root, timeout_s=5)
    if bash.isolation != "namespace":
        pytest.skip("no unprivileged namespaces on this machine: proxies are only pointed at a closed port")
    result = bash.run("python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)\"")
    assert result.startswith("exit code 1") and "unreachable" in result.lower()
