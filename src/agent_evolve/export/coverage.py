"""The hosts (where each finds skills and instructions) and where each evolved file goes, from its path alone:
skills to the skills folder, prompts, fragments, settings and memories to the CLAUDE.md / AGENTS.md section."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from agent_evolve.contract.check_settings import CHECK_SETTINGS
from agent_evolve.contract.experience import EXPERIENCE_SETTINGS
from agent_evolve.contract.workspace import DRAFTS_DIR, PROGRAM_PROMPT


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
SYSTEM_PROMPT = "prompts/system.md"
FRAGMENTS_DIR = "prompts/fragments"
PLACEHOLDER = ".gitkeep"


@dataclass(frozen=True)
class ExportPlan:
    """Each changed path: where it goes (`carried`), why it cannot go (`dropped`), or why it need not (`ignored`)."""

    carried: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)
    ignored: dict[str, str] = field(default_factory=dict)


def is_instruction_file(path: str) -> bool:
    """Files the instructions section carries: prompts, program prompt, fragments, answer and experience settings,
    memories (worked examples included)."""
    parts = PurePosixPath(path)
    if path in (SYSTEM_PROMPT, PROGRAM_PROMPT, CHECK_SETTINGS, EXPERIENCE_SETTINGS):
        return True
    if path.startswith(FRAGMENTS_DIR + "/"):
        return True
    return parts.parent.as_posix() == "memory" and parts.suffix == ".jsonl"


def plan_export(
    changed: Iterable[str], present: set[str], skills: set[str], host: Host, *, with_prompt: bool
) -> ExportPlan:
    """Sort `changed` paths for `host`; `present` are the accepted version's files, `skills` the exported skills."""
    plan = ExportPlan()
    section = f"{host.instructions_file} section"
    for path in sorted(changed):
        parts = PurePosixPath(path).parts
        if parts[-1] == PLACEHOLDER:
            plan.ignored[path] = "an empty-folder placeholder"
        elif path not in present:
            plan.ignored[path] = "removed by evolution; the export has none"
        elif parts[0] == "skills" and len(parts) > 2 and parts[1] == DRAFTS_DIR:
            plan.ignored[path] = "a draft skill pending review; the agent does not read it"
        elif parts[0] == "skills" and len(parts) > 2 and parts[1] in skills:
            plan.carried[path] = f"{(PurePosixPath(host.skills_dir) / parts[1]).as_posix()}/"
        elif is_instruction_file(path) and with_prompt:
            plan.carried[path] = section
        elif is_instruction_file(path):
            plan.dropped[path] = f"goes into the {section}, written only with --with-prompt"
        else:
            plan.dropped[path] = f"{host.name} has no place for it"
    return plan
