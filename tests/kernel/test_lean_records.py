"""The lean cycle's shortcuts keep what they replace: observation records and the skill bank scan."""

from __future__ import annotations

import os
from dataclasses import asdict, fields
from pathlib import Path

from agent_evolve.contract.skill_bank import scan_bank
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.types import Feedback, Observation, Task, Trajectory

SKILL = "---\nname: {name}\ndescription: \"TRIGGER when: {text}.\"\n---\n\nBody.\n"


def test_observation_to_dict_is_asdict_without_the_copy() -> None:
    steps = [{"tool": "bash", "args": {"cmd": "ls"}}]
    observation = Observation(Task("t1", "2+2", {"answer": "4"}), Trajectory("t1", "4", steps, [{"role": "user"}]),
                              Feedback(True, 1.0, "ok", {"seconds": 0.1}))
    assert observation.to_dict() == asdict(observation)
    for part, name in ((Task, "task"), (Trajectory, "trajectory"), (Feedback, "feedback")):
        assert set(observation.to_dict()[name]) == {f.name for f in fields(part)}, name


def test_the_bank_scan_sees_an_edit_that_keeps_size_and_mtime(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "units" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL.format(name="units", text="aaaa"))
    workspace = AgentWorkspace(tmp_path)
    assert workspace.list_skills()[0].description == "TRIGGER when: aaaa."
    before = skill.stat()
    skill.write_text(SKILL.format(name="units", text="bbbb"))
    os.utime(skill, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert workspace.list_skills()[0].description == "TRIGGER when: bbbb."


def test_a_symlinked_skill_pointing_outside_is_refused_by_name(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "SKILL.md"
    outside.parent.mkdir()
    outside.write_text(SKILL.format(name="leak", text="x"))
    folder = tmp_path / "ws" / "skills" / "leak"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(outside)
    (entry,) = scan_bank(tmp_path / "ws")
    assert entry.skill is None and "escapes the workspace" in entry.error
    assert AgentWorkspace(tmp_path / "ws").list_skills() == []
