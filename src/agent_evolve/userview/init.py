"""`init`: a new workspace from a built-in template, validated, with a README describing its own layout."""

from __future__ import annotations

import shutil
from pathlib import Path

from agent_evolve.contract.manifest import LAYER_PATHS, load_manifest
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import ConfigError, WorkspaceError
from agent_evolve.registry import seed_path

TEMPLATES: tuple[str, ...] = ("gsm8k", "humaneval", "jsonl", "swe", "terminal", "mcp")
README_FILE = "README.md"

_LAYER_TEXT = {
    "prompts": "`prompts/system.md` is the system prompt; `prompts/fragments/*` are extra prompt parts",
    "skills": "`skills/<name>/SKILL.md` are Agent Skills; `skills/_drafts/` holds skills the agent proposed",
    "memory": "`memory/<category>.jsonl` are memories, one JSON object a line",
    "tools": "`tools/registry.yaml` lists the tools the agent may call",
}


def layout_readme(path: Path, template: str) -> str:
    """A README for the workspace at `path`, listing what it holds now."""
    manifest = load_manifest(path)
    workspace = AgentWorkspace(path)
    skills = [s.name for s in workspace.list_skills()]
    memories = workspace.list_memory_categories()
    lines = [
        f"# {manifest.name}",
        "",
        f"An agent-evolve workspace made from the `{template}` template. The agent is `{manifest.entrypoint}`;",
        f"evolution may edit the layers {', '.join(manifest.evolvable_layers)} (the manifest's `evolvable_layers`).",
        "",
        "## Layout",
        "",
        "- `manifest.yaml`: name, contract version, the agent's entrypoint and settings, evolvable layers, reload strategy",
    ]
    lines += [f"- {_LAYER_TEXT[layer]}" for layer in LAYER_PATHS if (path / LAYER_PATHS[layer]).exists()]
    lines += [
        "- `evolution/` (after a run): run records, never versioned: history, metrics, journal, observations",
        "",
        f"Skills now: {', '.join(skills) or 'none'}. Memory categories now: {', '.join(memories) or 'none'}.",
        "",
        "Evolve it with `agent-evolve run --agent . --benchmark <name>`; look at the run with `agent-evolve history .`,",
        "`agent-evolve report . -o report.html` and `agent-evolve diff baseline final`.",
        "",
    ]
    return "\n".join(lines)


def init_workspace(target: str | Path, template: str) -> Path:
    """Copy the template to `target` (absent or empty), write its README, and check that it validates."""
    if template not in TEMPLATES:
        raise ConfigError(f"unknown template {template!r}; choose one of {', '.join(TEMPLATES)}")
    path = Path(target)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise WorkspaceError(f"{path}: exists and is not an empty directory; refusing to overwrite it")
    shutil.copytree(seed_path(template), path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in LAYER_PATHS.values():
        (path / folder).mkdir(exist_ok=True)
    (path / README_FILE).write_text(layout_readme(path, template), encoding="utf-8")
    problems = validate_workspace(path)
    if problems:
        raise WorkspaceError(f"{path}: the new workspace does not validate:\n  " + "\n  ".join(problems))
    return path
