"""Ratchet skills as a valid Agent Skill (`skills/<name>/SKILL.md`, Ratchet's fields under `metadata.ratchet`, so a
round trip loses nothing) and as a `RatchetSkill`; `load_yaml_bank` imports a user's Ratchet-style YAML bank."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agent_evolve.algorithms.ratchet.records import SKILL_ORIGINS, SKILL_STATUSES, RatchetSkill
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.contract.settings_rules import is_int, is_number
from agent_evolve.contract.skills import MAX_NAME_LENGTH, Skill, parse_skill, render_skill
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import SkillFormatError
from agent_evolve.io.safe_yaml import load_yaml

METADATA_KEY = "ratchet"
"""The frontmatter `metadata` key that holds a skill's Ratchet fields (its presence marks a governed skill)."""

_GUIDANCE_LISTS = ("common_pitfalls", "verify_before_returning")
_GUIDANCE_TEXTS = ("applies_when", "key_insight")
_STATE_KEYS = ("status", "do_not_retire", "origin", "created_round", "version", "tags", "preconditions", "author")
"""The `RatchetSkill` fields written after the guidance in `metadata.ratchet`, in this order."""
_BANK_SUFFIXES = (".yaml", ".yml")
_NOT_NAME = re.compile(r"[^a-z0-9]+")


def guidance_text(skill: RatchetSkill) -> str:
    """The readable guidance part of a SKILL.md body: title, intent, when it applies, insight, pitfalls, checks."""
    texts = (("Applies when", skill.applies_when), ("Key insight", skill.key_insight))
    lists = (("Common pitfalls", skill.common_pitfalls), ("Verify before returning", skill.verify_before_returning))
    parts = [f"# {skill.name}", skill.intent, *(f"{title}: {text}" for title, text in texts if text)]
    parts += [f"{title}:\n" + "\n".join(f"- {item}" for item in items) for title, items in lists if items]
    return "\n\n".join(parts) + "\n"


def to_agent_skill(skill: RatchetSkill) -> Skill:
    """The Agent Skill form: name, description, Ratchet fields under `metadata.ratchet`, rendered body."""
    data = asdict(skill)  # copies the lists
    fields = {"intent": skill.intent, "signals_match": data["signals_match"],
              "guidance": {key: data[key] for key in _GUIDANCE_TEXTS + _GUIDANCE_LISTS},
              **{key: data[key] for key in _STATE_KEYS}}
    body = guidance_text(skill) + (f"\n{skill.body}" if skill.body else "")
    return Skill(name=skill.name, description=skill.description, body=body, metadata={METADATA_KEY: fields})


def render_skill_md(skill: RatchetSkill) -> str:
    """The SKILL.md text of `skill`."""
    return render_skill(to_agent_skill(skill))


def from_agent_skill(skill: Skill) -> RatchetSkill:
    """The `RatchetSkill` of an Agent Skill; a plain one (no `metadata.ratchet`) becomes an ACTIVE seed skill. The
    body keeps what follows the rendered guidance, or all of it when that part was edited by hand (no edit lost)."""
    where = f"{skill.path or skill.name}: metadata.{METADATA_KEY}"
    fields = skill.metadata.get(METADATA_KEY)
    if fields is None:
        return RatchetSkill(skill.name, skill.description, skill.description, [], "", "", [], [], skill.body,
                            origin="seed")
    if not isinstance(fields, dict):
        raise SkillFormatError(f"{where} must be a mapping, got {type(fields).__name__}")
    created = fields.get("created_round", 0)
    _valid(created, is_int(created) and created >= 0, f"{where}.created_round", "a non-negative integer")
    parsed = RatchetSkill(
        name=skill.name, description=skill.description, body="", created_round=created,
        intent=_text(fields.get("intent"), f"{where}.intent") or skill.description,
        origin=_choice(fields.get("origin", "synthesized"), SKILL_ORIGINS, f"{where}.origin"),  # type: ignore[arg-type]
        **_shared_fields(fields, f"{where}.", fields.get("status", "ACTIVE")),
    )
    prefix = guidance_text(parsed)
    parsed.body = skill.body[len(prefix):].removeprefix("\n") if skill.body.startswith(prefix) else skill.body
    return parsed


def write_skills(workspace: AgentWorkspace, skills: Sequence[RatchetSkill]) -> None:
    """Put the bank on disk: each ACTIVE skill written (validated) as an Agent Skill, every other one removed; skills
    on disk not in `skills` are left alone (the ledger, not the folder, keeps retired skills)."""
    for skill in skills:
        if skill.status == "ACTIVE":
            text = render_skill_md(skill)
            path = workspace.path / "skills" / skill.name / "SKILL.md"
            if not path.is_file() or read_regular_text(path) != text:
                workspace.write_skill(skill.name, text)
        else:
            workspace.delete_skill(skill.name)


def read_skills(workspace: AgentWorkspace) -> list[RatchetSkill]:
    """Every readable skill of the workspace as a `RatchetSkill`, sorted by name."""
    return [from_agent_skill(parse_skill(workspace.read_skill(meta.name), path=meta.path))
            for meta in workspace.list_skills()]


def skill_name(raw: str) -> str:
    """An Agent Skill name for a Ratchet id (`sliding_window` -> `sliding-window`); '' when nothing is left."""
    return _NOT_NAME.sub("-", raw.lower()).strip("-")[:MAX_NAME_LENGTH].strip("-")


def load_yaml_bank(path: str | Path) -> list[RatchetSkill]:
    """The skills of a Ratchet-style YAML bank: one file (a skill, a list of skills, or `skills: [...]`) or a
    folder of such files. `intent` and `description` are required; errors name the file and the skill."""
    source = Path(path)
    if source.is_dir():
        files = sorted(p for p in source.iterdir() if p.suffix in _BANK_SUFFIXES and p.is_file())
        if not files:
            raise SkillFormatError(f"{source}: no .yaml or .yml skill files in this folder")
    elif source.is_file():
        files = [source]
    else:
        raise SkillFormatError(f"{source}: no such skill bank file or folder")
    skills: list[RatchetSkill] = []
    seen: dict[str, str] = {}
    for file in files:
        for index, entry in enumerate(_bank_entries(file), start=1):
            where = f"{file}: skill {index}"
            skill = _bank_skill(entry, where)
            if skill.name in seen:
                raise SkillFormatError(f"{where} ({skill.name!r}) has the same name as {seen[skill.name]}")
            seen[skill.name] = where
            skills.append(skill)
    return skills


def _bank_entries(file: Path) -> list[Any]:
    try:
        text = read_regular_text(file)
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillFormatError(f"{file}: cannot read: {exc}") from None
    data = load_yaml(text, str(file), SkillFormatError)
    if isinstance(data, dict) and "skills" in data and "intent" not in data:
        data = data["skills"]
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list) and data:
        return data
    raise SkillFormatError(f"{file}: a skill bank must be a skill mapping, a non-empty list of them, or 'skills:'")


def _bank_skill(entry: Any, where: str) -> RatchetSkill:
    if not isinstance(entry, dict):
        raise SkillFormatError(f"{where}: must be a mapping, got {type(entry).__name__}")
    raw = entry.get("id") or entry.get("name")  # Ratchet keys skills by id; name is a label, used without one
    if not isinstance(raw, str) or not skill_name(raw):
        raise SkillFormatError(f"{where}: needs an 'id' or 'name' with letters or digits")
    name = skill_name(raw)
    where = f"{where} ({raw!r})"
    for key in ("intent", "description"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise SkillFormatError(f"{where}: missing required field '{key}' (a non-empty string)")
    return RatchetSkill(
        name=name, description=entry["description"].strip(), intent=entry["intent"].strip(), origin="imported",
        body=_text(entry.get("body"), f"{where}: body"),
        **_shared_fields(entry, f"{where}: ", str(entry.get("status", "ACTIVE")).upper()),
    )


def _shared_fields(data: dict[str, Any], where: str, status: Any) -> dict[str, Any]:
    """The fields both forms carry (signals, guidance, status, lock, Ratchet's schema fields), checked; `where`
    starts each error, missing fields take their defaults."""
    guidance = data.get("guidance") or {}
    if not isinstance(guidance, dict):
        raise SkillFormatError(f"{where}guidance must be a mapping")
    version, lock = data.get("version", "0.1.0"), data.get("do_not_retire", False)
    _valid(version, isinstance(version, str) or is_number(version), where + "version", "a string such as 0.1.0")
    return {"signals_match": _items(data.get("signals_match"), where + "signals_match"),
            **{key: _text(guidance.get(key), f"{where}guidance.{key}") for key in _GUIDANCE_TEXTS},
            **{key: _items(guidance.get(key), f"{where}guidance.{key}") for key in _GUIDANCE_LISTS},
            "status": _choice(status, SKILL_STATUSES, where + "status"),
            "do_not_retire": _valid(lock, isinstance(lock, bool), where + "do_not_retire", "true or false"),
            "version": str(version), "tags": _items(data.get("tags"), where + "tags"),
            "preconditions": _items(data.get("preconditions"), where + "preconditions"),
            "author": _text(data.get("author"), where + "author")}


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise SkillFormatError(f"{where} must be a string, got {type(value).__name__}")
    return value.strip()


def _items(value: Any, where: str) -> list[str]:
    """A list of strings; one string is a list of one, nothing is an empty list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if not isinstance(value, list) or not all(isinstance(item, (str, int, float)) for item in value):
        raise SkillFormatError(f"{where} must be a string or a list of strings")
    return [str(item).strip() for item in value if str(item).strip()]


def _choice(value: Any, allowed: tuple[str, ...], where: str) -> str:
    if value not in allowed:
        raise SkillFormatError(f"{where} is {value!r}; expected one of {', '.join(allowed)}")
    return str(value)


def _valid(value: Any, ok: bool, where: str, expected: str) -> Any:
    """`value` when `ok`, else SkillFormatError: `where` must be `expected`, got `value`."""
    if not ok:
        raise SkillFormatError(f"{where} must be {expected}, got {value!r}")
    return value
