"""Diffs and file contents at version labels, limited to the evolvable layers by default."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from agent_evolve.config import EvolveConfig
from agent_evolve.contract.manifest import LAYER_PATHS, enabled_layers
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.userview.labels import resolve_label

# Every layer switched on, so that the manifest alone decides which layers count as evolvable.
_ALL_LAYERS = dataclasses.replace(EvolveConfig(), evolve_prompts=True, evolve_skills=True, evolve_memory=True, evolve_tools=True)


def evolvable_paths(workspace: str | Path) -> tuple[str, ...]:
    """The folders of the layers the workspace's manifest lets evolution edit."""
    return tuple(LAYER_PATHS[layer] for layer in enabled_layers(_ALL_LAYERS, workspace))


def layer_diff(workspace: str | Path, a: str, b: str, *, all_files: bool = False) -> str:
    """git's diff between two labels, over the evolvable layers unless `all_files`."""
    paths = () if all_files else evolvable_paths(workspace)
    return VersionControl(workspace).get_diff(resolve_label(workspace, a), resolve_label(workspace, b), paths)


def show_at(workspace: str | Path, label: str, path: str = "") -> str:
    """A file's text at `label`, or the listing of a folder (the top folder when `path` is empty)."""
    return VersionControl(workspace).show_file_at(resolve_label(workspace, label), path.strip("/"))
