"""``BaseAgent``: the class a user's agent extends; it reads its behaviour from a workspace folder, buffers what it
learns while solving (thread-safe) and writes it on :meth:`export_to_fs`, or drops it after holdout tasks."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agent_evolve.contract.jsonl import dump_line
from agent_evolve.contract.paths import check_category, check_name
from agent_evolve.contract.skills import strip_frontmatter
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.types import SkillMeta, Task, Trajectory


class BaseAgent:
    """An agent whose prompt, skills and memories live in ``workspace_dir``."""

    memory_limit: int | None = 100
    """How many entries per memory category :meth:`reload_from_fs` loads (None: all)."""

    def __init__(self, workspace_dir: str | Path):
        self.workspace = AgentWorkspace(workspace_dir)
        self._lock = threading.RLock()
        self._pending_memories: list[tuple[str, dict[str, Any]]] = []
        self._pending_drafts: list[tuple[str, str]] = []
        self._system_prompt = ""
        self._skills: list[SkillMeta] = []
        self._memories: list[dict[str, Any]] = []
        self.reload_from_fs()

    def solve(self, task: Task) -> Trajectory:
        """Override: solve a single task and return its trajectory."""
        raise NotImplementedError(f"{type(self).__name__} must implement solve(task)")

    def reload_from_fs(self) -> None:
        """Re-read the prompt, skills and memories from the workspace (after evolution changed them); buffered
        memories and drafts not yet exported are kept."""
        prompt = self.workspace.read_prompt()
        skills = self.workspace.list_skills()
        memories = self.workspace.read_all_memories(limit=self.memory_limit)
        with self._lock:
            self._system_prompt, self._skills, self._memories = prompt, skills, memories

    def export_to_fs(self) -> None:
        """Write buffered memories (appended to ``memory/<category>.jsonl``) and skill drafts, each once; an entry
        leaves the buffer only after it was written, so a failed export can be retried."""
        with self._lock:
            while self._pending_memories:
                category, entry = self._pending_memories[0]
                self.workspace.add_memory(entry, category=category)
                self._pending_memories.pop(0)
            while self._pending_drafts:
                name, content = self._pending_drafts[0]
                self.workspace.write_draft(name, content)
                self._pending_drafts.pop(0)

    def take_pending(self) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str]]]:
        """Remove and return the buffered (category, memory) and (name, draft) pairs, e.g. to ship them to a driver."""
        with self._lock:
            pending = (self._pending_memories, self._pending_drafts)
            self._pending_memories, self._pending_drafts = [], []
        return pending

    def discard_buffers(self) -> None:
        """Drop every buffered memory and draft without writing it (after holdout or test tasks)."""
        with self._lock:
            self._pending_memories.clear()
            self._pending_drafts.clear()

    @property
    def deterministic(self) -> bool:
        """True when solving a task twice gives the same result (override: False when sampling, e.g. temperature > 0);
        a non-deterministic agent makes the gate re-measure the accepted version in every gate run."""
        return True

    def remember(self, content: str, category: str = "episodic", **extra: Any) -> None:
        """Buffer a memory entry ``{"content": content, **extra}`` for ``category``; safe from any thread."""
        check_category(category)
        entry = {"content": content, **extra}
        dump_line(entry, f"memory/{category}.jsonl")  # refuse what could never be exported, now
        with self._lock:
            self._pending_memories.append((category, entry))

    def propose_skill(self, name: str, content: str) -> None:
        """Buffer a skill draft, written to ``skills/_drafts/<name>.md`` by :meth:`export_to_fs`."""
        check_name(name, "draft")
        with self._lock:
            self._pending_drafts.append((name, content))

    def get_skill_content(self, name: str) -> str:
        """The body of ``skills/<name>/SKILL.md`` with its frontmatter stripped."""
        return strip_frontmatter(self.workspace.read_skill(name))

    @property
    def system_prompt(self) -> str:
        """The system prompt as of the last :meth:`reload_from_fs`."""
        return self._system_prompt

    @property
    def skills(self) -> list[SkillMeta]:
        """The skills as of the last :meth:`reload_from_fs`."""
        return list(self._skills)

    @property
    def memories(self) -> list[dict[str, Any]]:
        """Memories as of the last :meth:`reload_from_fs`, each a dict with ``category`` and ``content``."""
        return list(self._memories)
