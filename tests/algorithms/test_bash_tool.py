"""skillforge's bash tool: only the editable layers visible, bounded in time and output, no network."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    for layer, name in (("prompts", "system.md"), ("evolution", "journal.jsonl"), (".git", "HEAD")):
        (ws / layer).mkdir(parents=True)
        (ws / layer / name).write_text(f"{layer} secret record\n" if layer != "prompts" else "hello prompt\n")
    (ws / "manifest.yaml").write_text("name: x\n")
    (tmp_path / "outside.txt").write_text("outside secret\n")
    return ws


def test_runs_in_the_workspace_and_edits_the_layers(root: Path) -> None:
    bash = ConfinedBash(root)
    assert bash.run("cat prompts/system.md") == "exit code 0\nhello prompt"
    assert bash.run("mkdir -p skills/a && echo hi > skills/a/notes.txt && cat skills/a/notes.txt").endswith("hi")
    assert (root / "skills" / "a" / "notes.txt").read_text() == "hi\n"
    assert bash.isolation == "namespaces"


def test_only_the_given_layers_are_visible(root: Path) -> None:
    out = ConfinedBash(root, layers=("prompts",)).run("ls -a; ls -a ..")
    assert out.split("\n")[1:] == [".", "..", "prompts", ".", "..", "ws"]


@pytest.mark.parametrize("command", [
    "cat ../outside.txt",
    "cat prompts/../../outside.txt",
    "cat evolution/journal.jsonl",
    "cat .git/HEAD",
    "cat manifest.yaml",
    "grep -r secret . ..",
    "python3 -c \"print(open('/work/../' + __import__('os').getcwd() + '/../outside.txt').read())\"",
])
def test_nothing_outside_the_layers_can_be_read(root: Path, command: str) -> None:
    result = ConfinedBash(root).run(command)
    assert "secret" not in result, result


@pytest.mark.parametrize("command", [
    "echo x > ../written.txt",
    "echo x > evolution/written.txt",
    "touch prompts/../../written.txt",
    "echo x > /usr/written.txt",
    "echo x > manifest.yaml",
])
def test_nothing_outside_the_layers_can_be_written(root: Path, command: str) -> None:
    assert not ConfinedBash(root).run(command).startswith("exit code 0")
    assert not (root.parent / "written.txt").exists() and not Path("/usr/written.txt").exists()
    assert not (root / "evolution" / "written.txt").exists()
    assert (root / "manifest.yaml").read_text() == "name: x\n"


def test_the_workspace_folder_itself_is_read_only(root: Path) -> None:
    assert "Read-only file system" in ConfinedBash(root).run("echo x > manifest.yaml; touch new.txt")
    assert not (root / "new.txt").exists()


def test_symlinks_out_of_the_layers_are_removed_after_the_command(root: Path) -> None:
    result = ConfinedBash(root).run("ln -s ../../outside.txt prompts/out.md && ln -s system.md prompts/in.md")
    assert "removed symlinks" in result and "prompts/out.md" in result
    assert not (root / "prompts" / "out.md").is_symlink()
    assert (root / "prompts" / "in.md").read_text() == "hello prompt\n"


@pytest.mark.parametrize("command", ["sleep 1000", "while true; do :; done"])
def test_a_command_that_never_ends_is_killed(root: Path, command: str) -> None:
    started = time.monotonic()
    result = ConfinedBash(root, timeout_s=1.0).run(command)
    assert time.monotonic() - started < 5
    assert result.startswith("Error: timed out after 1s")


def test_output_is_truncated(root: Path) -> None:
    result = ConfinedBash(root, output_limit=200).run("yes")
    assert len(result) < 400 and "truncated" in result


def test_no_network_by_default(root: Path) -> None:
    result = ConfinedBash(root, timeout_s=5).run(
        "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)\"")
    assert result.startswith("exit code 1") and "unreachable" in result.lower()


def test_an_empty_command_is_refused(root: Path) -> None:
    assert ConfinedBash(root).run("  ").startswith("Refused:")
