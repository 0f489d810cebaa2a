"""Learners' candidates (GEPA, SkillOpt): texts of evolved workspace files, identified by content; read from and
written to disk, copied for trials, and found again among the accepted versions."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evolve.algorithms.common.candidate_search import copy_with_files
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.contract.skills import split_frontmatter
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import ConfigError, TrialError

if TYPE_CHECKING:
    from agent_evolve.engine.trial import TrialRunner


def validation_runner(engine: str, trial: TrialRunner | None) -> TrialRunner:
    """The loop's trial runner, which a learner needs with validation tasks and scores; else an error saying why."""
    if trial is None:
        raise TrialError(f"{engine} needs the loop's trial runner to score candidates")
    if trial.hide_feedback:
        raise ConfigError(f"{engine} selects candidates by their scores, which trajectory_only hides; turn it off")
    if not trial.validation_ids:
        raise ConfigError(f"{engine} needs validation tasks: set val_ratio (and optionally val_limit) in the config")
    return trial


@dataclass(frozen=True)
class Candidate:
    """One point of the search: the evolved files' texts, and where it came from."""

    files: dict[str, str]
    parent: str | None = None
    cycle: int = 0
    id: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        # a short, stable id of the texts: the same texts always get the same id
        object.__setattr__(self, "id", hashlib.sha256(json.dumps(self.files, sort_keys=True).encode()).hexdigest()[:16])

    def with_component(self, path: str, text: str, cycle: int) -> Candidate:
        """A child with one component's editable text replaced (a skill keeps its frontmatter)."""
        return Candidate({**self.files, path: join_editable(self.files[path], text)}, self.id, cycle)

    def to_dict(self) -> dict[str, Any]:
        return {"files": self.files, "parent": self.parent, "cycle": self.cycle}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Candidate:
        return cls(dict(data["files"]), data.get("parent"), int(data.get("cycle", 0)))


def default_components(root: Path, layers: set[str]) -> list[str]:
    """The system prompt and fragments (prompts layer) and each skill's SKILL.md (skills layer) that exist."""
    found: list[str] = []
    if "prompts" in layers:
        found += ["prompts/system.md"] if (root / "prompts" / "system.md").is_file() else []
        found += sorted(p.relative_to(root).as_posix() for p in (root / "prompts" / "fragments").glob("*") if p.is_file())
    if "skills" in layers:
        found += sorted(p.relative_to(root).as_posix() for p in (root / "skills").glob("*/SKILL.md")
                        if not p.parent.name.startswith("_"))
    return found


def check_components(components: list[str], layers: set[str]) -> None:
    """Every component must be a file of an enabled, evolvable layer."""
    outside = [c for c in components if c.split("/", 1)[0] not in layers or ".." in Path(c).parts]
    if outside:
        raise ConfigError(f"components {outside} are not files of the editable layers {sorted(layers)}")
    if not components:
        raise ConfigError("nothing to evolve: no system prompt, fragment or skill in the editable layers")


def read_candidate(root: Path, components: list[str], cycle: int = 0) -> Candidate:
    """The workspace's current texts of the components (a missing file reads as empty)."""
    return Candidate({c: read_regular_text(root / c) if (root / c).is_file() else "" for c in components},
                     None, cycle)


def materialize(workspace: Path, candidate: Candidate, folder: Path) -> Path:
    """A copy of the workspace holding the candidate's texts, for a trial (made once per candidate)."""
    target = folder / candidate.id
    if not target.exists():
        staging = folder / f".{candidate.id}.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        copy_with_files(workspace, staging, candidate.files)
        staging.rename(target)
    return target


def editable_text(text: str) -> str:
    """What the reflector rewrites: a skill's body (frontmatter kept aside), else the whole file."""
    parts = split_frontmatter(text)
    return parts[1].strip() if parts else text


def join_editable(original: str, new_text: str) -> str:
    """Put rewritten editable text back, keeping a skill's original frontmatter."""
    parts = split_frontmatter(original)
    return f"---\n{parts[0].strip()}\n---\n\n{new_text.strip()}\n" if parts else new_text.strip() + "\n"


def best_accepted_tag(workspace: Path, paths: list[str], scores: Mapping[str, float]) -> str | None:
    """The accepted version (`evo-N` tag) whose texts of `paths` are the candidate with the best score in `scores`
    (by candidate id); the earliest wins a tie, None when no accepted version is a scored candidate."""
    vc = VersionControl(workspace)
    best: tuple[float, str] | None = None
    for tag in vc.list_tags():
        candidate = Candidate({p: vc.text_at(tag, p) for p in paths})
        if candidate.id in scores and (best is None or scores[candidate.id] > best[0]):
            best = (scores[candidate.id], tag)
    return best[1] if best else None
