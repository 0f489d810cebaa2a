"""Deterministic pieces for learner tests: an agent scored by the keywords its prompt holds, a reflector."""

from __future__ import annotations

import hashlib
import os
import re
import signal
from pathlib import Path

import agent_evolve as ae
from agent_evolve.llm.base import Message
from agent_evolve.types import Feedback, Task, Trajectory

MANIFEST = """name: keywords
version: 0.1.0
contract_version: "1.0"
agent:
  type: custom
  entrypoint: learner_fakes.KeywordAgent
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""
KEYWORDS = ("k0", "k1")


def make_workspace(path: Path, prompt: str = "start\n") -> Path:
    for folder in ("prompts", "skills", "memory"):
        (path / folder).mkdir(parents=True, exist_ok=True)
    (path / "prompts" / "system.md").write_text(prompt)
    (path / "manifest.yaml").write_text(MANIFEST)
    return path


class KeywordAgent(ae.BaseAgent):
    """Answers with the task's keywords its prompt (system prompt and skills) holds.

    With SOLVE_LOG set, appends `<prompt hash> <task id>` per solve; with CRASH_AT_SOLVE=N, kill -9 at solve N.
    """

    def solve(self, task: Task) -> Trajectory:
        text = self.system_prompt + "".join(s.description for s in self.skills)
        for name in [s.name for s in self.skills]:
            text += (Path(self.workspace.path) / "skills" / name / "SKILL.md").read_text()
        log = os.environ.get("SOLVE_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(f"{hashlib.sha256(text.encode()).hexdigest()[:12]} {task.id}\n")
            count = sum(1 for _ in open(log, encoding="utf-8"))
            if os.environ.get("CRASH_AT_SOLVE") == str(count):
                os.kill(os.getpid(), signal.SIGKILL)
        return Trajectory(task_id=task.id, output=" ".join(k for k in KEYWORDS if re.search(rf"\b{k}\b", text)))


class KeywordBenchmark(ae.BenchmarkAdapter):
    """Tasks t0..tN-1; each needs every keyword: the score is the share of keywords in the answer."""

    def __init__(self, n: int = 20):
        self.n = n

    def get_tasks(self, split: str = "train", limit: int = 10) -> list[Task]:
        return [Task(id=f"t{i}", input=f"task {i}: name the keywords") for i in range(self.n)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        found = set(trajectory.output.split())
        score = sum(k in found for k in KEYWORDS) / len(KEYWORDS)
        return Feedback(success=score == 1.0, score=score, detail=f"missing: {sorted(set(KEYWORDS) - found)}")


def current_text(messages: list[Message]) -> str:
    """The component text a GEPA proposal request shows (inside its first fence)."""
    return messages[-1].content.split("```", 2)[1].strip()


def add_keyword(messages: list[Message]) -> str:
    """A helpful reflector: the current text plus the first keyword it lacks."""
    text = current_text(messages)
    missing = [k for k in KEYWORDS if not re.search(rf"\b{k}\b", text)]
    return f"Here is the new instruction:\n```\n{text} {missing[0] if missing else ''}\n```"


def drop_keywords(messages: list[Message]) -> str:
    """A harmful reflector: the current text without any keyword, and a new sentence."""
    text = re.sub(r"\bk\d\b", "", current_text(messages))
    return f"```\n{' '.join(text.split())} Answer briefly.\n```"


class AlternatingBenchmark(KeywordBenchmark):
    """Even tasks need k0, odd tasks k1: candidates that learned different keywords lead on different tasks."""

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        needed = f"k{int(task.id[1:]) % 2}"
        ok = needed in trajectory.output.split()
        return Feedback(success=ok, score=float(ok), detail=f"needs {needed}")


def add_skill(workspace: Path, name: str = "notes", body: str = "notes") -> Path:
    folder = workspace / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Notes on naming things.\n---\n\n{body}\n")
    return workspace


def keyword_per_component(messages: list[Message]) -> str:
    """A reflector that teaches the system prompt k0 and the skill k1 (the skill's body is `notes ...`)."""
    text = current_text(messages)
    return f"```\n{text} {'k1' if text.startswith('notes') else 'k0'}\n```"
