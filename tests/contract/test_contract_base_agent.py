from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agent_evolve.protocol import BaseAgent
from agent_evolve.types import Task, Trajectory
from agent_evolve.errors import WorkspaceError


class EchoAgent(BaseAgent):
    def solve(self, task: Task) -> Trajectory:
        self.remember(f"saw {task.id}", task_id=task.id)
        return Trajectory(task_id=task.id, output=task.input)


def test_loads_state_on_init(ws_dir: Path) -> None:
    agent = EchoAgent(ws_dir)
    assert agent.workspace.path == ws_dir.resolve()
    assert agent.system_prompt == "You solve math problems.\n"
    assert [s.name for s in agent.skills] == ["check-units"]
    assert agent.memories == [{"content": "carry the one", "category": "episodic"}]
    assert agent.get_skill_content("check-units") == "Convert every quantity to one unit before computing.\n"


def test_solve_not_implemented(ws_dir: Path) -> None:
    with pytest.raises(NotImplementedError):
        BaseAgent(ws_dir).solve(Task(id="t", input="x"))


def test_missing_workspace(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError):
        BaseAgent(tmp_path / "nope")


def test_reload_from_fs_sees_edits(ws_dir: Path) -> None:
    agent = EchoAgent(ws_dir)
    agent.workspace.write_prompt("Evolved.")
    agent.workspace.write_skill("new-skill", "---\nname: new-skill\ndescription: d\n---\n\nNew body.")
    agent.workspace.add_memory({"content": "fact"}, category="semantic")
    assert agent.system_prompt == "You solve math problems.\n"  # until reload
    agent.reload_from_fs()
    assert agent.system_prompt == "Evolved."
    assert [s.name for s in agent.skills] == ["check-units", "new-skill"]
    assert {"content": "fact", "category": "semantic"} in agent.memories
    assert agent.get_skill_content("new-skill") == "New body."


def test_remember_buffers_until_export(ws_dir: Path) -> None:
    agent = EchoAgent(ws_dir)
    agent.remember("File locks on NFS need fcntl.flock", category="domain_knowledge", source="t1")
    assert agent.workspace.read_memories("domain_knowledge") == []
    agent.export_to_fs()
    assert agent.workspace.read_memories("domain_knowledge") == [
        {"content": "File locks on NFS need fcntl.flock", "source": "t1"}
    ]
    agent.export_to_fs()  # nothing left to write
    assert len(agent.workspace.read_memories("domain_knowledge")) == 1
    agent.reload_from_fs()
    assert {"content": "File locks on NFS need fcntl.flock", "source": "t1", "category": "domain_knowledge"} in agent.memories


def test_remember_refuses_bad_input_early(ws_dir: Path) -> None:
    agent = EchoAgent(ws_dir)
    with pytest.raises(WorkspaceError, match="memory category"):
        agent.remember("x", category="../escape")
    with pytest.raises(WorkspaceError, match="not JSON-serialisable"):
        agent.remember("x", blob=object())
    agent.export_to_fs()
    assert agent.workspace.read_memories(limit=None) == [{"content": "carry the one"}]


def test_propose_skill_exported_as_draft(ws_dir: Path) -> None:
    agent = EchoAgent(ws_dir)
    agent.propose_skill("round-money", "---\nname: round-money\ndescription: d\n---\nRound to cents.")
    assert agent.workspace.list_drafts() == []
    agent.export_to_fs()
    assert agent.workspace.list_drafts() == [
        {"name": "round-money", "content": "---\nname: round-money\ndescription: d\n---\nRound to cents."}
    ]
    with pytest.raises(WorkspaceError):
        agent.propose_skill("../x", "bad")


def test_remember_from_8_threads_exports_each_entry_once(ws_dir: Path) -> None:
    agent = EchoAgent(ws_dir)
    barrier = threading.Barrier(8)

    def work(t: int) -> None:
        barrier.wait()
        for i in range(100):
            agent.solve(Task(id=f"{t}-{i}", input="x"))
            if i % 25 == 0:
                agent.export_to_fs()  # exports racing with remembers must neither lose nor repeat entries

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    agent.export_to_fs()
    written = agent.workspace.read_memories(limit=None)[1:]
    ids = [m["task_id"] for m in written]
    assert len(ids) == 800
    assert sorted(ids) == sorted(f"{t}-{i}" for t in range(8) for i in range(100))
    agent.export_to_fs()
    assert len(agent.workspace.read_memories(limit=None)) == 801


def test_properties_return_copies(ws_dir: Path) -> None:
    agent = EchoAgent(ws_dir)
    agent.skills.clear()
    agent.memories.clear()
    assert agent.skills and agent.memories
