"""Whole-workspace checks (the ``check_spec`` the engines and the loop share). They only read."""

from __future__ import annotations

from pathlib import Path

from agent_evolve.contract.experience import experience_problems
from agent_evolve.contract.jsonl import jsonl_problems
from agent_evolve.contract.manifest import MANIFEST_FILE, manifest_problems, read_manifest_data
from agent_evolve.contract.paths import safe_join
from agent_evolve.contract.regular_files import read_text_if_present
from agent_evolve.contract.skill_bank import scan_bank
from agent_evolve.contract.tool_entries import tool_entries
from agent_evolve.contract.workspace import check_registry
from agent_evolve.errors import ManifestError, WorkspaceError
from agent_evolve.io.safe_yaml import load_yaml


def validate_workspace(path: str | Path, require_manifest: bool = True) -> list[str]:
    """Every problem (each naming its file, and key or line) of the workspace at ``path``: manifest, skills, memory,
    experience, tool registry; [] when valid. ``require_manifest=False`` allows no manifest (a user's own agent)."""
    root = Path(path)
    if not root.is_dir():
        return [f"{root}: workspace directory does not exist"]
    found: list[str] = []

    if require_manifest or (root / MANIFEST_FILE).exists():
        try:
            data = read_manifest_data(root)
        except ManifestError as exc:
            found.append(str(exc))
        else:
            found += manifest_problems(data, root / MANIFEST_FILE)

    for entry in scan_bank(root):
        if entry.error:
            found.append(entry.error)
        elif entry.skill is None:
            found.append(f"{entry.path}: skill folder {entry.folder!r} has no SKILL.md")
        else:
            found += [f"{entry.path}: {p}" for p in entry.problems]

    memory_dir = root / "memory"
    if memory_dir.is_dir():
        for memory_file in sorted(memory_dir.glob("*.jsonl")):
            try:
                safe_join(root, "memory", memory_file.name)
            except WorkspaceError as exc:
                found.append(str(exc))
                continue
            found += jsonl_problems(memory_file)
    found += experience_problems(root)

    registry = root / "tools" / "registry.yaml"
    if registry.is_file():
        try:
            tools = load_yaml(read_text_if_present(registry) or "", str(registry))
            if tools is not None:
                check_registry(tools, registry)
                tool_entries(root, tools, registry)
        except WorkspaceError as exc:
            found.append(str(exc))
    return found

