"""A tiny deterministic world for Ratchet runs: a benchmark, a rule-following agent model and engine model.

Tasks are loop tasks; every third one also mentions harm. An answer passes when the injected skill says MAGIC
and nothing injected says POISON. The agent model routes like a (gullible) router: a `shortcut-trick*` skill
whenever it is listed, `poison-helper` for harm tasks, else `loop-bounds`. The engine model is a critic that
blames unrouted failures on "off by one in loop bounds", calls poison-helper's failures HURT, is fooled by the
shortcut (NEUTRAL), a synthesizer that writes loop-bounds (MAGIC) or shortcut-trick (POISON), and a
meta-synthesizer with one piece of advice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import agent_evolve as ae
from agent_evolve.algorithms.ratchet import critic, meta, synthesizer
from agent_evolve.llm.base import Message
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Feedback, Task, Trajectory

MANIFEST = """name: ratchet-world
version: 0.1.0
contract_version: "1.0"
agent: {type: reference, entrypoint: agent_evolve.agents.reference.ReferenceAgent, config: {skill_mode: routed}}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""
POISON_SKILL = """---
name: poison-helper
description: "Use for tasks that mention harm."
---

POISON: take the shortcut.
"""
LOOP_SKILL = {"name": "loop-bounds", "description": "Loops over lists and their last index.",
              "intent": "Check loop bounds", "signals_match": ["loop", "list"],
              "applies_when": "a loop walks a list", "key_insight": "MAGIC: include the last index",
              "common_pitfalls": ["stopping one early"], "verify_before_returning": ["last element visited"]}
SHORTCUT_SKILL = {"name": "shortcut-trick", "description": "A quick path for any task.",
                  "intent": "Take the quick path", "signals_match": ["quick"],
                  "applies_when": "any task", "key_insight": "POISON: skip the checks"}


class LoopBenchmark(ae.BenchmarkAdapter):
    def __init__(self, n: int = 30) -> None:
        self.n = n

    name = "loops"

    def get_tasks(self, split: str = "train", limit: int | None = 100) -> list[Task]:
        prefix = "t" if split == "train" else "s"
        harm = {True: " without harm", False: ""}
        tasks = [Task(f"{prefix}{i:02d}", f"Task {i}: walk the list in a loop{harm[i % 3 == 0]}") for i in range(self.n)]
        return tasks[:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output.strip() == "PASS"
        return Feedback(ok, float(ok), "passed" if ok else "the loop missed an element")


def _agent_reply(messages: list[Message]) -> str:
    if messages[0].content.startswith("You choose the one skill"):
        user = messages[-1].content
        task = user.split("Skills:")[0]
        names = re.findall(r"^- ([a-z0-9-]+):", user, re.MULTILINE)
        for name in names:
            if name.startswith("shortcut-trick"):
                return name
        if "harm" in task and "poison-helper" in names:
            return "poison-helper"
        return "loop-bounds" if "loop-bounds" in names else "NONE"
    system = messages[0].content
    return "PASS" if "MAGIC" in system and "POISON" not in system else "FAIL"


def _engine_reply(messages: list[Message]) -> str:
    system, user = messages[0].content, messages[-1].content
    if system == critic.SYSTEM:
        found = re.search(r"Injected skill '([^']+)'", user)
        skill, passed = (found.group(1) if found else None), "Grader: PASSED" in user
        if skill is None:
            return json.dumps({"label": "INAPPLICABLE", "failure_pattern": "off by one in loop bounds",
                               "confidence": "HIGH", "reason": "the loop stops early"})
        if skill == "poison-helper":
            return json.dumps({"label": "HURT", "failure_pattern": "wrong shortcut taken", "confidence": "HIGH",
                               "reason": "the skill's shortcut broke it"})
        if skill == "loop-bounds":
            return json.dumps({"label": "HELPED" if passed else "NEUTRAL", "failure_pattern": "",
                               "confidence": "HIGH", "reason": "the last index was included"})
        return json.dumps({"label": "NEUTRAL", "failure_pattern": "wrong shortcut taken", "confidence": "LOW",
                           "reason": "looks unrelated"})
    if system == synthesizer.SYSTEM:
        return json.dumps(LOOP_SKILL if "off by one" in user else SHORTCUT_SKILL)
    if system == meta.SYSTEM:
        return "Name the failing input, then the smallest check that catches it."
    raise AssertionError(f"unexpected engine prompt: {system[:80]}")


def agent_llm() -> ScriptedLLM:
    return ScriptedLLM([_agent_reply] * 20_000, model="scripted/agent")


def engine_llm() -> ScriptedLLM:
    return ScriptedLLM([_engine_reply] * 20_000, model="scripted/engine")


def make_workspace(path: Path, poison: bool = True) -> Path:
    (path / "prompts").mkdir(parents=True)
    (path / "memory").mkdir()
    (path / "prompts" / "system.md").write_text("You write loops.\n")
    (path / "manifest.yaml").write_text(MANIFEST)
    if poison:
        (path / "skills" / "poison-helper").mkdir(parents=True)
        (path / "skills" / "poison-helper" / "SKILL.md").write_text(POISON_SKILL)
    return path
