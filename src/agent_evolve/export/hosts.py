"""Where each host discovers skills and reads project instructions."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Host:
    """A skills folder (relative to the export directory) and the instructions file the host reads."""

    name: str
    skills_dir: str
    instructions_file: str


HOSTS: dict[str, Host] = {
    "claude-code": Host("claude-code", ".claude/skills", "CLAUDE.md"),
    "codex": Host("codex", ".agents/skills", "AGENTS.md"),
    "agent-skills": Host("agent-skills", "", "AGENTS.md"),
}

# The instructions section we own inside a host's CLAUDE.md / AGENTS.md; text outside it is the user's.
SECTION_BEGIN = "<!-- agent-evolve:begin -->"
SECTION_END = "<!-- agent-evolve:end -->"
