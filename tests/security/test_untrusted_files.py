"""Readers of workspace and record files refuse FIFOs, devices and sockets, naming the path, and never hang on one.

The engine's shell can leave a FIFO at any path of its layers; a plain ``open()`` of it blocks until a writer comes.
Every risky read runs in a thread joined with a generous timeout, and the FIFO is opened for writing afterwards so
a reader that did block is released: a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import errno
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import agent_evolve as ae
from agent_evolve.contract.jsonl import append_line, read_jsonl
from agent_evolve.algorithms.common.candidate_search import CandidateEdit, stage
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.engine.records import read_json
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import WorkspaceError

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX only")

MANIFEST = """name: t
version: 0.1.0
contract_version: "1.0"
agent:
  type: custom
  entrypoint: some_module.Agent
evolvable_layers: [prompts, skills, memory]
"""
PATIENCE_S = 60.0  # far beyond what any of these reads takes; only a blocked reader reaches it


def _release(fifo: Path) -> None:
    """Open the FIFO's write end once, so a reader blocked in open() gets in and then sees end-of-file."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        if exc.errno not in (errno.ENXIO, errno.ENOENT):
            raise


def outcome(call: Callable[[], Any], fifos: list[Path]) -> Any:
    """What `call()` returned or raised, or a test failure when it is still blocked after PATIENCE_S."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            result["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(PATIENCE_S)
    hung = thread.is_alive()
    for fifo in fifos:
        _release(fifo)
    thread.join(PATIENCE_S)
    assert not hung, "the reader blocked on a special file"
    if "error" in result:
        raise result["error"]
    return result["value"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "prompts").mkdir(parents=True)
    (root / "prompts" / "system.md").write_text("the prompt\n")
    (root / "memory").mkdir()
    (root / "manifest.yaml").write_text(MANIFEST)
    return root


@pytest.fixture
def fifo(workspace: Path) -> Iterator[Path]:
    path = workspace / "memory" / "general.jsonl"
    os.mkfifo(path)
    yield path
    _release(path)


@pytest.fixture
def unix_socket(tmp_path: Path, workspace: Path) -> Iterator[Path]:
    """A listening Unix socket at prompts/system.md (bound from a short cwd: socket paths are length-limited)."""
    target = workspace / "prompts" / "system.md"
    target.unlink()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    here = os.getcwd()
    os.chdir(target.parent)
    try:
        server.bind(target.name)
    finally:
        os.chdir(here)
    server.listen(1)
    yield target
    server.close()


def test_the_validator_reports_a_fifo_in_memory_instead_of_blocking(workspace: Path, fifo: Path) -> None:
    problems = outcome(lambda: validate_workspace(workspace), [fifo])
    assert any(str(fifo) in p and "is a FIFO" in p for p in problems), problems


def test_memory_reads_and_appends_refuse_a_fifo_naming_it(workspace: Path, fifo: Path) -> None:
    ws = ae.AgentWorkspace(workspace)
    for call in (lambda: ws.read_memories("general"), lambda: read_jsonl(fifo),
                 lambda: ws.add_memory({"content": "x"}, "general"), lambda: append_line(fifo, {"a": 1})):
        with pytest.raises(WorkspaceError, match="is a FIFO") as caught:
            outcome(call, [fifo])
        assert str(fifo) in str(caught.value)


def test_a_record_file_that_is_a_fifo_is_refused(workspace: Path) -> None:
    metrics = workspace / "evolution" / "metrics.json"
    metrics.parent.mkdir()
    os.mkfifo(metrics)
    with pytest.raises(WorkspaceError, match="is a FIFO"):
        outcome(lambda: read_json(metrics, {}), [metrics])


def test_a_socket_at_the_prompt_is_refused_naming_it(workspace: Path, unix_socket: Path) -> None:
    with pytest.raises(WorkspaceError, match="is a socket") as caught:
        ae.AgentWorkspace(workspace).read_prompt()
    assert str(unix_socket) in str(caught.value)


def test_a_record_linked_to_a_device_is_refused(workspace: Path) -> None:
    """A link to a device (here the harmless /dev/null; /dev/zero would stream forever) is not a record file."""
    history = workspace / "memory" / "general.jsonl"
    history.symlink_to("/dev/null")
    with pytest.raises(WorkspaceError, match="is a character device") as caught:
        read_jsonl(history)
    assert str(history) in str(caught.value)


def test_versioning_a_tree_with_a_fifo_does_not_block(workspace: Path) -> None:
    """git skips a FIFO the engine left in a layer: measuring and committing the change never reads it."""
    vc = VersionControl(workspace)
    vc.init()
    vc.commit("start")
    fifo = workspace / "prompts" / "pipe"
    os.mkfifo(fifo)
    assert outcome(lambda: vc.changed_paths("HEAD"), [fifo]) == []
    outcome(lambda: vc.commit("with a fifo"), [fifo])


def test_staging_a_candidate_copy_of_a_workspace_refuses_special_files_naming_them(workspace: Path, fifo: Path,
                                                                                    tmp_path: Path) -> None:
    (workspace / "prompts" / "null").symlink_to("/dev/null")
    with pytest.raises(WorkspaceError) as caught:
        outcome(lambda: stage(workspace, tmp_path / "scratch", CandidateEdit("c", {})), [fifo])
    assert str(fifo) in str(caught.value) and "character device" in str(caught.value)
