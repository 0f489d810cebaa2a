"""Export a workspace's accepted version (its committed history against `evo-0`) for a host: skills as strictly valid
Agent Skills, optionally its other instructions as a CLAUDE.md / AGENTS.md section; dropping files needs consent."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from agent_evolve.contract.check_settings import CHECK_SETTINGS, CheckSettings
from agent_evolve.contract.experience import (EXPERIENCE_CATEGORY, EXPERIENCE_FILE, read_experience,
                                              read_experience_settings)
from agent_evolve.contract.paths import atomic_write
from agent_evolve.contract.regular_files import copy_tree, read_regular_text
from agent_evolve.contract.skills import Skill, parse_skill, render_skill
from agent_evolve.contract.workspace import PROGRAM_PROMPT, AgentWorkspace
from agent_evolve.engine.executors.remote import WorkspaceSnapshot
from agent_evolve.engine.versioning import BASELINE_TAG, VersionControl
from agent_evolve.errors import ConfigError, SkillFormatError, WorkspaceError
from agent_evolve.export.coverage import (FRAGMENTS_DIR, HOSTS, SECTION_BEGIN, SECTION_END, ExportPlan, Host,
                                          plan_export)
from agent_evolve.export.portable import SKILL_FILE, skill_file_problems, to_portable
from agent_evolve.io.safe_json import parse_json
from agent_evolve.userview.run import accepted_version, load_run


@dataclass(frozen=True)
class EvolvedVersion:
    """The accepted version's tag and the paths it changed from the starting workspace (added, edited, removed)."""

    tag: str
    changed: tuple[str, ...]


def evolved_version(workspace: str | Path) -> EvolvedVersion | None:
    """What the accepted version changed; None for a workspace with no evolution history (no `evo-0`)."""
    path = Path(workspace)
    vc = VersionControl(path)
    if not vc.is_repo() or not vc.has_ref(BASELINE_TAG):
        return None
    try:
        tag = accepted_version(load_run(path).journal)[0]
    except WorkspaceError:  # records kept elsewhere: the newest `evo-N` tag (they list in cycle order)
        tag = vc.list_tags()[-1]
    if not vc.has_ref(tag):
        raise WorkspaceError(f"{path}: the accepted version {tag} has no tag in the workspace's history")
    return EvolvedVersion(tag, tuple(vc.changed_between(BASELINE_TAG, tag)))


@contextmanager
def version_tree(workspace: str | Path, version: EvolvedVersion | None) -> Iterator[Path]:
    """A folder holding `version`'s committed files (removed afterwards); the workspace itself when None."""
    if version is None:
        yield Path(workspace)
        return
    vc = VersionControl(workspace)
    snapshot = WorkspaceSnapshot(f"export-{vc.resolve(version.tag)}", vc.archive(version.tag))
    try:
        yield snapshot.materialize()
    finally:
        snapshot.discard()


EXPORT_RECORD = ".agent-evolve-export.json"  # in the host's skills folder: each exported skill's files and hashes


class EvolvedFilesDroppedError(WorkspaceError):
    """An export would leave out files evolution changed; the message names each and why."""


@dataclass(frozen=True)
class ExportResult:
    """What was written, the accepted version exported (None: a workspace without history), and the plan."""

    skills: list[Path]
    instructions: Path | None
    version: str | None = None
    plan: ExportPlan = field(default_factory=ExportPlan)


def skill_folders(workspace: Path) -> list[Path]:
    """The workspace's skill folders (drafts and hidden folders excluded), by name."""
    root = workspace / "skills"
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")) and (p / SKILL_FILE).is_file())


def portable_skill(folder: Path) -> Skill:
    """The skill in `folder` made strictly valid; a skill that cannot be is refused, naming it and why."""
    path = folder / SKILL_FILE
    try:
        skill = to_portable(parse_skill(read_regular_text(path), path=path))
    except ValueError as exc:
        raise SkillFormatError(f"cannot export skill {folder.name!r} ({path}): {exc}") from exc
    problems = skill_file_problems(render_skill(skill), folder.name)
    if problems:
        raise SkillFormatError(f"cannot export skill {folder.name!r} ({path}): " + "; ".join(problems))
    return skill


def dropped_message(plan: ExportPlan, host: Host) -> str:
    """The refusal: each evolved file the export would drop and why, and the two ways forward."""
    files = "; ".join(f"{path} ({why})" for path, why in plan.dropped.items())
    return (f"the export to {host.name} would drop {len(plan.dropped)} evolved file(s): {files}. Pass --with-prompt to "
            f"write prompts, fragments, answer settings and memories into {host.instructions_file}, or "
            "--allow-partial to export without them")


def file_hashes(folder: Path) -> dict[str, str]:
    """sha256 of each file under `folder`, by relative path."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def exported_before(skills_root: Path) -> dict[str, dict[str, str]]:
    """What earlier exports wrote into `skills_root`: each skill's file hashes ({} when none did)."""
    path = skills_root / EXPORT_RECORD
    record = parse_json(read_regular_text(path), str(path)) if path.is_file() else {}
    return record if isinstance(record, dict) else {}


def not_ours(names: list[str], skills_root: Path) -> list[str]:
    """The skill folders an export would replace that hold what no export wrote there: a host skill of the same name,
    or files added or edited since the last export."""
    record = exported_before(skills_root)
    return [name for name in names if (skills_root / name).exists()
            and record.get(name) != file_hashes(skills_root / name)]


def export_workspace(
    workspace: str | Path, host_name: str, target: str | Path, *, with_prompt: bool = False, allow_partial: bool = False,
    replace: bool = False,
) -> ExportResult:
    """Export the accepted version of `workspace` under `target` in the host's layout; refuses an invalid skill,
    a dropped evolved file (unless `allow_partial`) or a replaced folder holding others' files (unless `replace`)."""
    if host_name not in HOSTS:
        raise ConfigError(f"unknown export target {host_name!r}; choose one of {', '.join(HOSTS)}")
    host = HOSTS[host_name]
    version = evolved_version(workspace)
    with version_tree(workspace, version) as source:
        prepared = [(folder, portable_skill(folder)) for folder in skill_folders(source)]
        changed = version.changed if version is not None else ()
        present = {p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file()} if changed else set()
        plan = plan_export(changed, present, {f.name for f, _ in prepared}, host, with_prompt=with_prompt)
        if plan.dropped and not allow_partial:
            raise EvolvedFilesDroppedError(dropped_message(plan, host))
        skills_root = Path(target) / host.skills_dir
        if (kept := not_ours([f.name for f, _ in prepared], skills_root)) and not replace:
            raise WorkspaceError(f"{skills_root}: the skill folder(s) {', '.join(kept)} hold files no export wrote "
                                 "(a skill of the same name, or edits since the last export); move them or pass "
                                 "--replace to overwrite them")
        written = write_skills(prepared, skills_root)
        instructions = None
        if with_prompt:
            instructions = Path(target) / host.instructions_file
            existing = read_regular_text(instructions) if instructions.exists() else ""
            atomic_write(instructions, merge_section(existing, instructions_section(AgentWorkspace(source))))
    return ExportResult(written, instructions, version.tag if version is not None else None, plan)


def write_skills(prepared: list[tuple[Path, Skill]], skills_root: Path) -> list[Path]:
    """Copy each skill folder under `skills_root` with its portable SKILL.md; the SKILL.md paths written."""
    written = []
    for folder, skill in prepared:
        destination = skills_root / folder.name
        shutil.rmtree(destination, ignore_errors=True)
        copy_tree(folder, destination, ignore=shutil.ignore_patterns(SKILL_FILE, "__pycache__"))
        atomic_write(destination / SKILL_FILE, render_skill(skill))
        written.append(destination / SKILL_FILE)
    record = {**exported_before(skills_root), **{p.parent.name: file_hashes(p.parent) for p in written}}
    atomic_write(skills_root / EXPORT_RECORD, json.dumps(record, indent=2, sort_keys=True))
    return written


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
