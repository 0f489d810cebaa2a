"""What a run learned from its data, in one line: the worked examples, demonstrations and failure notes the accepted
version added over the baseline, their source tasks and the holdout scores (else the files it changed)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_evolve.algorithms.common.demos import DEMO_FRAGMENT
from agent_evolve.algorithms.common.failure_notes import NOTES_FRAGMENT
from agent_evolve.contract.check_settings import CHECK_SETTINGS
from agent_evolve.contract.experience import EXPERIENCE_FILE, EXPERIENCE_SETTINGS, parse_experience_settings
from agent_evolve.contract.workspace import PROGRAM_PROMPT
from agent_evolve.engine.records import RunRecords, read_json
from agent_evolve.engine.versioning import BASELINE_TAG, VersionControl
from agent_evolve.errors import AgentEvolveError
from agent_evolve.io.safe_yaml import load_yaml

DEMOS_PATH = f"prompts/fragments/{DEMO_FRAGMENT}"
NOTES_PATH = f"prompts/fragments/{NOTES_FRAGMENT}"
IDS_SHOWN = 4  # source tasks named before "..."
SWITCHES = frozenset({PROGRAM_PROMPT, CHECK_SETTINGS})  # files the built-in engines write from templates, not data


def _example_ids(text: str) -> list[str]:
    """The source task ids of an experience file's examples, in file order (unreadable lines skipped)."""
    ids = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("task_id"), str):
            ids.append(entry["task_id"])
    return ids


def _named(ids: list[str]) -> str:
    return ", ".join(ids[:IDS_SHOWN]) + (", ..." if len(ids) > IDS_SHOWN else "")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text, flags=re.MULTILINE))


def learned_parts(vc: VersionControl, tag: str) -> list[str]:
    """What the version `tag` holds that the baseline does not and that was built from the run's solves."""
    parts = []
    before = set(_example_ids(vc.text_at(BASELINE_TAG, EXPERIENCE_FILE)))
    added = [i for i in _example_ids(vc.text_at(tag, EXPERIENCE_FILE)) if i not in before]
    if added:
        settings_text = vc.text_at(tag, EXPERIENCE_SETTINGS)
        try:
            settings = parse_experience_settings(load_yaml(settings_text, EXPERIENCE_SETTINGS) if settings_text else None)
            shown = f", the {settings.k} nearest shown per task"
        except AgentEvolveError:
            shown = ""
        parts.append(f"{_plural(len(added), 'worked example')} from verified train solves ({_named(added)}){shown}")
    for path, pattern, noun, source in ((DEMOS_PATH, r"^## Example ", "demonstration", "verified train solves"),
                                        (NOTES_PATH, r"^## Mistake: ", "note", "train failures")):
        gained = _count(pattern, vc.text_at(tag, path)) - _count(pattern, vc.text_at(BASELINE_TAG, path))
        if gained > 0:
            parts.append(f"{_plural(gained, noun)} from {source}")
    return parts


def _solved(table: object) -> tuple[float, int] | None:
    """Tasks solved (mean over repeats) and tasks scored in a gate table of per-task scores; None when unreadable."""
    if not isinstance(table, dict) or not table:
        return None
    means = [sum(v) / len(v) for v in table.values() if isinstance(v, list) and v]
    return (sum(means), len(means)) if len(means) == len(table) else None


def _tasks(solved: float, scored: int) -> str:
    return f"{solved:.0f}/{scored}" if solved == int(solved) else f"{solved:.1f}/{scored}"


def _holdout(details: Mapping[str, Any], final_score: float, tag: str) -> str:
    """The holdout before and after as tasks solved of tasks scored (the gate's tables; a task that failed to run
    is not scored), else as scores."""
    workspace = Path(str(details.get("workspace", ".")))
    records = RunRecords(workspace)
    before, after = (_solved(read_json(records.holdout_table(t), None)) for t in (BASELINE_TAG, tag))
    if before is not None and after is not None:
        return f"holdout {_tasks(*before)} -> {_tasks(*after)}"
    return f"holdout {float(details.get('baseline_score', 0.0)):.3f} -> {final_score:.3f}"


def learned_line(details: Mapping[str, Any], final_score: float) -> str | None:
    """One line: what the accepted version learned from the data and on what evidence; None when nothing was
    accepted or the workspace has no versions."""
    tag = details.get("accepted_tag")
    workspace = Path(str(details.get("workspace", ".")))
    if not details.get("accepted", 0) or not tag or not (workspace / ".git").exists():
        return None
    vc = VersionControl(workspace)
    parts = learned_parts(vc, str(tag))
    evidence = f"{_holdout(details, final_score, str(tag))} ({tag})"
    if parts:
        return f"{'; '.join(parts)}; {evidence}"
    try:
        changed = [p for p in vc.changed_between(BASELINE_TAG, str(tag)) if not p.startswith("evolution/")]
    except AgentEvolveError:
        changed = []
    if changed and not SWITCHES.issuperset(changed):  # an engine's own edit: what it learned is not known here
        return f"changed {', '.join(changed)}; {evidence}"
    return f"nothing from the data (a built-in switch: {', '.join(changed) or 'no file'}); {evidence}"
