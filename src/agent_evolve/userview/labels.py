"""Version labels a user types (`evo-N`, `cand-N`, `pre-evo-N`, `baseline`, `final`) resolved to git tags, and the
diffs and file contents at them (the evolvable layers by default)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from agent_evolve.config import EvolveConfig
from agent_evolve.contract.manifest import LAYER_PATHS, enabled_layers
from agent_evolve.engine.versioning import BASELINE_TAG, VersionControl, accepted_tag, candidate_tag, pre_evolution_tag
from agent_evolve.errors import WorkspaceError
from agent_evolve.userview.run import accepted_tags, accepted_version, load_run

BASELINE_LABEL = "baseline"
FINAL_LABEL = "final"
_TAG_KINDS: tuple[Callable[[int], str], ...] = (accepted_tag, candidate_tag, pre_evolution_tag)


def parse_tag(label: str) -> tuple[Callable[[int], str], int] | None:
    """The tag maker and cycle of a versioned label (`cand-3` -> (candidate_tag, 3)), None for anything else."""
    _, _, number = label.rpartition("-")
    if not number.isdigit():
        return None
    for make in _TAG_KINDS:
        if make(int(number)) == label:
            return make, int(number)
    return None


def resolve_label(workspace: str | Path, label: str) -> str:
    """The git tag behind `label`; an unknown or missing label is an error listing what exists."""
    if label == BASELINE_LABEL:
        tag = BASELINE_TAG
    elif label == FINAL_LABEL:
        tag = accepted_version(load_run(workspace).journal)[0]
    elif parse_tag(label) is not None:
        tag = label
    else:
        raise WorkspaceError(
            f"{label!r} is not a version label; use {accepted_tag(1)}, {candidate_tag(1)}, {pre_evolution_tag(1)},"
            f" {BASELINE_LABEL} or {FINAL_LABEL}"
        )
    vc = VersionControl(workspace)
    if not vc.is_repo() or not vc.has_ref(tag):
        raise WorkspaceError(f"{workspace}: version {label!r} does not exist (no tag {tag})")
    return tag


def accepted_name(workspace: str | Path, tag: str) -> str | None:
    """`tag` when it was ever the accepted version (an `evo-N` tag, or one a rollback made accepted), else an
    accepted tag on the same commit (`cand-1` is `evo-1` when the gate accepted that candidate as it was), else None."""
    parsed = parse_tag(tag)
    if parsed is not None and parsed[0] is accepted_tag:
        return tag
    rolled_back = accepted_tags(load_run(workspace).journal)
    if tag in rolled_back:
        return tag
    vc = VersionControl(workspace)
    commit = vc.resolve(tag)
    named = [*vc.list_tags(), *rolled_back]  # evo-N tags, then rolled-back ones
    return next((t for t in named if vc.has_ref(t) and vc.resolve(t) == commit), None)


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
