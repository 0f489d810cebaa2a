"""``AgentWorkspace``: typed, path-safe access to an agent's workspace folder (the layout: docs/concepts.md).

A missing prompt, memory, history, registry or metrics reads as empty; a missing fragment, skill or tool raises
:class:`WorkspaceError`. Every name goes through :func:`safe_join`, so nothing can leave the workspace. Writes are
atomic, except memory appends (one ``write`` of one line under a lock); reading never writes.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from agent_evolve.contract.check_settings import CHECK_SETTINGS, CheckSettings, parse_check_settings
from agent_evolve.contract.jsonl import append_line, dump_line, read_jsonl
from agent_evolve.contract.manifest import Manifest, load_manifest, read_manifest_data
from agent_evolve.contract.paths import CATEGORY_RE, RECORDS_DIR, atomic_write, check_category, check_name, safe_join
from agent_evolve.contract.regular_files import read_text_if_present
from agent_evolve.contract.skill_bank import SKILL_FILE, scan_bank
from agent_evolve.contract.skills import parse_skill, validate_skill
from agent_evolve.errors import SkillFormatError, WorkspaceError
from agent_evolve.io.safe_json import parse_json
from agent_evolve.io.safe_yaml import load_yaml
from agent_evolve.types import SkillMeta

log = logging.getLogger(__name__)
DRAFTS_DIR = "_drafts"
PROGRAM_PROMPT = "prompts/program.md"
_APPEND_LOCK = threading.Lock()  # memory appends and rewrites, for every workspace in this process


class AgentWorkspace:
    """The file-system contract of one agent. ``path`` is the absolute workspace root."""

    def __init__(self, path: str | Path):
        root = Path(path).expanduser()
        if not root.is_dir():
            what = "is not a directory" if root.exists() else "does not exist"
            raise WorkspaceError(f"{root}: workspace directory {what}")
        self.path: Path = root.resolve()

    def __repr__(self) -> str:
        return f"AgentWorkspace({str(self.path)!r})"

    def _file(self, *parts: str) -> Path:
        return safe_join(self.path, *parts)

    def _read(self, path: Path, missing: str | None = None) -> str:
        """Text of ``path``; if absent, ``missing`` or (when None) a WorkspaceError."""
        text = read_text_if_present(path)
        if text is not None:
            return text
        if missing is None:
            raise WorkspaceError(f"{path}: file not found")
        return missing

    # ----- prompts -----------------------------------------------------------------------------------
    def read_prompt(self) -> str:
        """``prompts/system.md``; "" when the workspace has no prompt yet."""
        return self._read(self._file("prompts", "system.md"), missing="")

    def write_prompt(self, content: str) -> None:
        atomic_write(self._file("prompts", "system.md"), content)

    def read_program_prompt(self) -> str | None:
        """``prompts/program.md`` (program-of-thought answers), or None when the agent answers in text."""
        text = self._read(self._file(*PROGRAM_PROMPT.split("/")), missing="")
        return text if text.strip() else None

    def read_check_settings(self) -> CheckSettings | None:
        """``prompts/check.yaml`` (draw again when a reply fails a check), or None when it is absent."""
        path = self._file(*CHECK_SETTINGS.split("/"))
        if not path.is_file():
            return None
        return parse_check_settings(load_yaml(self._read(path), str(path)), str(path))

    def read_fragment(self, name: str) -> str:
        return self._read(self._file("prompts", "fragments", check_name(name, "fragment")))

    def write_fragment(self, name: str, content: str) -> None:
        atomic_write(self._file("prompts", "fragments", check_name(name, "fragment")), content)

    def list_fragments(self) -> list[str]:
        return _list_files(self._file("prompts", "fragments"))

    # ----- skills ------------------------------------------------------------------------------------
    def _skill_file(self, name: str) -> Path:
        check_name(name, "skill")
        if name == DRAFTS_DIR:
            raise WorkspaceError(f"{self.path / 'skills' / name}: '{DRAFTS_DIR}' is reserved for drafts, not a skill")
        return self._file("skills", name, SKILL_FILE)

    def list_skills(self) -> list[SkillMeta]:
        """Every readable ``skills/<name>/SKILL.md`` (``_``/``.`` folders skipped), sorted by name: one breaking a
        spec rule is listed with a warning, an unreadable one skipped with a warning (validation is strict)."""
        metas = []
        for entry in scan_bank(self.path):
            if entry.error:
                log.warning("skipping an unreadable skill: %s", entry.error)
            elif entry.skill is not None:
                if entry.problems:
                    log.warning("%s: loaded despite: %s", entry.path, "; ".join(entry.problems))
                metas.append(SkillMeta(name=entry.folder, description=entry.skill.description, path=str(entry.path)))
        return metas

    def read_skill(self, name: str) -> str:
        """Full text of ``skills/<name>/SKILL.md``, frontmatter included."""
        path = self._skill_file(name)
        if not path.is_file():
            raise WorkspaceError(f"{path}: no skill named {name!r}")
        return self._read(path)

    def write_skill(self, name: str, content: str) -> None:
        """Write ``content`` atomically once valid as the Agent Skill ``name`` (equal to its folder); else
        :class:`SkillFormatError` naming the file and the problems, and nothing is written."""
        path = self._skill_file(name)
        skill = parse_skill(content, path=path)
        problems = validate_skill(skill, dir_name=name)
        if problems:
            raise SkillFormatError(f"{path}: " + "; ".join(problems))
        atomic_write(path, content)

    def delete_skill(self, name: str) -> None:
        """Remove the folder ``skills/<name>``; does nothing when it does not exist."""
        folder = self._skill_file(name).parent
        if folder.is_dir():
            shutil.rmtree(folder)

    # ----- drafts ------------------------------------------------------------------------------------
    def _draft_file(self, name: str) -> Path:
        check_name(name, "draft")
        return self._file("skills", DRAFTS_DIR, name if name.endswith(".md") else f"{name}.md")

    def list_drafts(self) -> list[dict[str, str]]:
        """``[{"name", "content"}]`` for every ``skills/_drafts/<name>.md``, sorted by name."""
        drafts_dir = self._file("skills", DRAFTS_DIR)
        names = [n for n in _list_files(drafts_dir) if n.endswith(".md")]
        return [{"name": n[:-3], "content": self._read(self._file("skills", DRAFTS_DIR, n))} for n in names]

    def write_draft(self, name: str, content: str) -> None:
        """Write a proposed skill; drafts are not validated (review happens when one becomes a skill)."""
        atomic_write(self._draft_file(name), content)

    def clear_drafts(self) -> None:
        drafts_dir = self._file("skills", DRAFTS_DIR)
        if drafts_dir.is_dir():
            shutil.rmtree(drafts_dir)

    # ----- memory ------------------------------------------------------------------------------------
    def _memory_file(self, category: str) -> Path:
        return self._file("memory", f"{check_category(category)}.jsonl")

    def list_memory_categories(self) -> list[str]:
        """Categories that have a ``memory/<category>.jsonl`` file, sorted."""
        names = _list_files(self._file("memory"))
        return [n[:-6] for n in names if n.endswith(".jsonl") and CATEGORY_RE.match(n[:-6])]

    def add_memory(self, entry: dict[str, Any], category: str = "episodic") -> None:
        """Append ``entry`` as one JSON line to ``memory/<category>.jsonl``."""
        path = self._memory_file(category)
        with _APPEND_LOCK:
            append_line(path, entry)

    def read_memories(self, category: str = "episodic", limit: int | None = 100) -> list[dict[str, Any]]:
        """The last ``limit`` entries of a category (all when ``limit`` is None), oldest first."""
        entries = read_jsonl(self._memory_file(category))
        if limit is None:
            return entries
        return entries[-limit:] if limit > 0 else []

    def read_all_memories(self, limit: int | None = 100) -> list[dict[str, Any]]:
        """The last ``limit`` entries of every category (sorted by category), each with a ``"category"`` key."""
        return [{**entry, "category": category} for category in self.list_memory_categories()
                for entry in self.read_memories(category, limit)]

    def rewrite_memories(self, category: str, entries: Iterable[dict[str, Any]]) -> None:
        """Replace a category's entries atomically (consolidation, pruning)."""
        path = self._memory_file(category)
        text = "".join(dump_line(entry, path) for entry in entries)
        with _APPEND_LOCK:
            atomic_write(path, text)

    # ----- tools -------------------------------------------------------------------------------------
    def read_tool_registry(self) -> list[dict[str, Any]]:
        """``tools/registry.yaml`` as a list of dicts; [] when absent or empty."""
        path = self._file("tools", "registry.yaml")
        data = load_yaml(self._read(path, missing=""), str(path))
        if data is None:
            return []
        check_registry(data, path)
        return data

    def write_tool_registry(self, tools: list[dict[str, Any]]) -> None:
        path = self._file("tools", "registry.yaml")
        check_registry(tools, path)
        atomic_write(path, yaml.safe_dump(list(tools), sort_keys=False, allow_unicode=True))

    def read_tool(self, name: str) -> str:
        return self._read(self._file("tools", check_name(name, "tool")))

    def write_tool(self, name: str, content: str) -> None:
        if check_name(name, "tool") == "registry.yaml":
            raise WorkspaceError(f"{self.path / 'tools' / name}: use write_tool_registry for the registry")
        atomic_write(self._file("tools", name), content)

    # ----- evolution records -------------------------------------------------------------------------
    def read_evolution_history(self) -> list[dict[str, Any]]:
        """``evolution/history.jsonl`` as a list of dicts; [] when absent."""
        return read_jsonl(self._file(RECORDS_DIR, "history.jsonl"))

    def read_evolution_metrics(self) -> dict[str, Any]:
        """``evolution/metrics.json``; {} when absent."""
        path = self._file(RECORDS_DIR, "metrics.json")
        text = self._read(path, missing="")
        if not text.strip():
            return {}
        data = parse_json(text, str(path))
        if not isinstance(data, dict):
            raise WorkspaceError(f"{path}: must hold a JSON object, got {type(data).__name__}")
        return data

    # ----- manifest and layers -----------------------------------------------------------------------
    def read_manifest(self) -> dict[str, Any]:
        """The raw ``manifest.yaml`` mapping (parsed, not validated; see :meth:`manifest`)."""
        return read_manifest_data(self.path)

    def manifest(self) -> Manifest:
        """The validated manifest; raises :class:`ManifestError` naming the file and each bad key."""
        return load_manifest(self.path)

    @property
    def evolvable_layers(self) -> list[str]:
        return self.manifest().evolvable_layers


def _list_files(folder: Path) -> list[str]:
    """Names of the regular files directly in ``folder`` (hidden files excluded), sorted; [] if absent."""
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def check_registry(data: Any, path: Path) -> None:
    """Refuse a tool registry that is not a list of mappings."""
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise WorkspaceError(f"{path}: the tool registry must be a list of mappings, got {type(data).__name__}")

