"""The evolved instructions as a Markdown section of a host's CLAUDE.md / AGENTS.md, between our markers: everything
the agent reads besides skills (prompts, fragments, answer settings, memories, all worked examples)."""

from __future__ import annotations

from pathlib import PurePosixPath

from agent_evolve.contract.check_settings import CHECK_SETTINGS, CheckSettings
from agent_evolve.contract.experience import (EXPERIENCE_CATEGORY, EXPERIENCE_FILE, read_experience,
                                              read_experience_settings)
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.contract.workspace import PROGRAM_PROMPT, AgentWorkspace
from agent_evolve.export.coverage import FRAGMENTS_DIR, SECTION_BEGIN, SECTION_END


def check_lines(settings: CheckSettings) -> list[str]:
    """The answer settings as instructions a person or a host model can follow."""
    lines = [f"- When an answer fails a check you can run yourself (code: its docstring's examples), answer again, "
             f"up to {settings.redraws} fresh tries, and keep the first that passes."]
    if settings.answer is not None:
        form = "a whole number" if settings.answer.whole else "a number"
        bound = f" of at least {settings.answer.min:g}" if settings.answer.min is not None else ""
        lines.append(f"- A numeric answer must be {form}{bound}; one that is not is answered again.")
    if settings.cross_check:
        lines.append(f"- Also work the answer out in plain text; when it differs from the program's answer, write "
                     f"{settings.cross_check} more programs and keep the most common answer of the right form.")
    return lines


def _titled(heading: str, source: str, body: str) -> list[str]:
    return [f"### {heading} ({source})", "", body.strip(), ""]


def instructions_section(workspace: AgentWorkspace) -> str:
    """Everything the agent reads besides skills, as one Markdown section between our markers."""
    lines = [SECTION_BEGIN, "## Evolved instructions (agent-evolve)", "", workspace.read_prompt().strip(), ""]
    program = workspace.read_program_prompt()
    if program is not None:
        lines += _titled("Program answers: answer with a Python program whose printed result is the answer",
                         PROGRAM_PROMPT, program)
    for name in workspace.list_fragments():
        heading = PurePosixPath(name).stem.replace("-", " ").replace("_", " ").capitalize()
        lines += _titled(heading, f"{FRAGMENTS_DIR}/{name}", workspace.read_fragment(name))
    settings = workspace.read_check_settings()
    if settings is not None:
        raw = read_regular_text(workspace.path / CHECK_SETTINGS).strip()
        lines += [f"### Answer checks ({CHECK_SETTINGS})", "", *check_lines(settings), "", "```yaml", raw, "```", ""]
    lines += experience_lines(workspace)
    memories = [m for m in workspace.read_all_memories(limit=None) if m["category"] != EXPERIENCE_CATEGORY]
    if memories:
        lines += ["### Memories", ""]
        lines += [f"- {str(m.get('content', m)).strip()}" for m in memories]
        lines.append("")
    return "\n".join([*lines, SECTION_END]) + "\n"


def experience_lines(workspace: AgentWorkspace) -> list[str]:
    """The worked examples of experience memory, each in the form the agent shows it ([] when there are none)."""
    examples = read_experience(workspace.path)
    if not examples:
        return []
    settings = read_experience_settings(workspace.path)
    lines = [f"### Solved examples ({EXPERIENCE_FILE})", "",
             "Problems solved correctly before; when a task resembles one, solve it the same way.", ""]
    for example in examples:
        lines += [f"#### {example.task_id}", "", f"Problem: {example.input}", "", "Solution:", "",
                  example.shown(settings.form), ""]
    return lines


def merge_section(existing: str, section: str) -> str:
    """`existing` with our section replaced (or appended); the user's own text is kept as it was."""
    start, end = existing.find(SECTION_BEGIN), existing.find(SECTION_END)
    if start != -1 and end > start:
        return existing[:start] + section + existing[end + len(SECTION_END):].lstrip("\n")
    separator = "" if not existing else "\n" if existing.endswith("\n") else "\n\n"
    return existing + separator + section
