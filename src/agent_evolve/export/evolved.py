"""What evolved: the files the accepted version (the run's `final`) changed from `evo-0`, read from the committed
history, never from uncommitted edits."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.engine.executors.remote import WorkspaceSnapshot
from agent_evolve.engine.versioning import BASELINE_TAG, VersionControl
from agent_evolve.errors import WorkspaceError
from agent_evolve.userview.run import accepted_version, load_run


@dataclass(frozen=True)
class EvolvedVersion:
    """The accepted version's tag and the paths it changed from the starting workspace (added, edited, removed)."""

    tag: str
    changed: tuple[str, ...]


def accepted_tag_of(workspace: Path) -> str:
    """The run's accepted version: from its journal, else (records kept elsewhere) the newest `evo-N` tag."""
    try:
        return accepted_version(load_run(workspace).journal)[0]
    except WorkspaceError:
        return VersionControl(workspace).list_tags()[-1]  # evo-N tags in cycle order


def evolved_version(workspace: str | Path) -> EvolvedVersion | None:
    """What the accepted version changed; None for a workspace with no evolution history (no `evo-0`)."""
    path = Path(workspace)
    vc = VersionControl(path)
    if not vc.is_repo() or not vc.has_ref(BASELINE_TAG):
        return None
    tag = accepted_tag_of(path)
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
