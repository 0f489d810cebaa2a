"""Prompt assembly for the reference agent, as pure functions: system = prompt, fragments, "# Skills" and "# Memory",
capped for a small model's context (memories dropped first, then skills); user = the task input."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_evolve.llm.base import Message

DEFAULT_PROMPT_CHARS = 6000
MIN_SKILL_CHARS = 200
MEMORY_LINE_CHARS = 300
EPISODIC = "episodic"
_CUT_MARK = "\n[...]"


@dataclass(frozen=True)
class SkillText:
    """A skill to inject: its name and its SKILL.md body without frontmatter."""

    name: str
    body: str


@dataclass(frozen=True)
class AssembledPrompt:
    """The system prompt text and what made it in, so a trajectory can record the skills actually injected."""

    text: str
    skills: list[str] = field(default_factory=list)
    memories: int = 0
    dropped_skills: list[str] = field(default_factory=list)
    shortened_skill: str | None = None


def memory_line(entry: Mapping[str, Any]) -> str:
    """One memory entry as a single bounded line ("" when it has no content)."""
    content = entry.get("content", "")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
    return one_line(text, MEMORY_LINE_CHARS)


def shortened(text: str, limit: int) -> str:
    """`text` cut to `limit` characters (then " ..."), so a prompt still fits a small model's context."""
    return text if len(text) <= limit else text[:limit] + " ..."


def one_line(text: str, limit: int) -> str:
    """`text` on one line of at most `limit` characters (cut with "..."), so many fit a small model's context."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def select_memories(memories: Sequence[Mapping[str, Any]], limit: int) -> list[str]:
    """Up to ``limit`` memory lines: the newest knowledge (every category but episodic) first, then the newest
    episodic lessons; ``memories`` is in file order (oldest first per category)."""
    if limit < 1:
        return []
    knowledge = [memory_line(m) for m in memories if m.get("category") != EPISODIC]
    episodic = [memory_line(m) for m in memories if m.get("category") == EPISODIC]
    chosen = [line for line in knowledge if line][-limit:]
    room = limit - len(chosen)
    recent = [line for line in reversed(episodic) if line][:room]  # room >= 0: chosen holds at most limit
    return chosen + recent


def render_system_prompt(system: str, fragments: Mapping[str, str], skills: Sequence[SkillText],
                         memories: Sequence[str]) -> str:
    """The system prompt, fragments sorted by name, then the Skills and Memory sections when not empty."""
    parts = [system.strip()] + [fragments[name].strip() for name in sorted(fragments)]
    if skills:
        parts.append("# Skills\n" + "\n\n".join(f"## {s.name}\n{s.body.strip()}" for s in skills))
    if memories:
        parts.append("# Memory\n" + "\n".join(f"- {line}" for line in memories))
    return "\n\n".join(part for part in parts if part) + "\n"


def assemble_system_prompt(system: str, fragments: Mapping[str, str], skills: Sequence[SkillText],
                           memories: Sequence[str], max_chars: int = DEFAULT_PROMPT_CHARS) -> AssembledPrompt:
    """Render the system prompt within ``max_chars``: drop memories, then skills, from the last; shorten the first
    skill (to no less than MIN_SKILL_CHARS) before dropping it. The prompt and fragments are never cut."""
    kept_skills, kept_memories = list(skills), list(memories)
    text = render_system_prompt(system, fragments, kept_skills, kept_memories)
    while len(text) > max_chars and kept_memories:
        kept_memories.pop()
        text = render_system_prompt(system, fragments, kept_skills, kept_memories)
    while len(text) > max_chars and len(kept_skills) > 1:
        kept_skills.pop()
        text = render_system_prompt(system, fragments, kept_skills, kept_memories)
    shortened = None
    if len(text) > max_chars and kept_skills:
        first = kept_skills[0]
        room = len(first.body.strip()) - (len(text) - max_chars) - len(_CUT_MARK)
        if room >= MIN_SKILL_CHARS:
            kept_skills = [SkillText(first.name, first.body.strip()[:room].rstrip() + _CUT_MARK)]
            shortened = first.name
        else:
            kept_skills = []
        text = render_system_prompt(system, fragments, kept_skills, kept_memories)
    names = [s.name for s in kept_skills]
    dropped = [s.name for s in skills if s.name not in names]
    return AssembledPrompt(text, names, len(kept_memories), dropped, shortened)


def build_messages(system_text: str, task_input: str) -> list[Message]:
    """The conversation sent to the model: the assembled system prompt, then the task input as the user turn."""
    return [Message("system", system_text), Message("user", task_input)]
