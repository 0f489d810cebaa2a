"""The engine's folders in the run records: the context handed to each call, and per-cycle state snapshots."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.config import EvolveConfig
from agent_evolve.contract.regular_files import copy_tree
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EngineContext
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.engine.trial import TrialRunner


@dataclass(frozen=True)
class EngineFiles:
    """`state/` persists (snapshotted per cycle, restored on resume), `scratch/` is emptied per call, `output/`."""

    root: Path

    @property
    def state(self) -> Path:
        return self.root / "state"

    def context(
        self,
        config: EvolveConfig,
        workspace: AgentWorkspace,
        history: EvolutionHistory,
        cycle: int,
        trial: TrialRunner | None = None,
    ) -> EngineContext:
        """A fresh context for one engine call of `cycle`."""
        scratch, output = self.root / "scratch", self.output_dir(cycle)
        if not _is_empty_dir(scratch):
            shutil.rmtree(scratch, ignore_errors=True)
        for folder in (self.state, scratch, output):
            folder.mkdir(parents=True, exist_ok=True)
        return EngineContext(
            config=config,
            workspace=workspace,
            history=history,
            state_dir=self.state,
            scratch_dir=scratch,
            output_dir=output,
            cycle=cycle,
            trial=trial,
        )

    def output_dir(self, cycle: int) -> Path:
        """The reports folder of `cycle`'s engine calls (trial logs included)."""
        return self.root / "output" / f"cycle_{cycle}"

    def wipe_state(self) -> None:
        shutil.rmtree(self.state, ignore_errors=True)

    def snapshot(self, label: str) -> None:
        """Copy `state/` to `snapshots/<label>` through a staging folder, so a crash never leaves half a copy.

        An empty (or absent) state is no snapshot at all: `restore` reads a missing one as empty.
        """
        target = self.root / "snapshots" / label
        if not self.state.exists() or _is_empty_dir(self.state):
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            return
        staging = target.with_name(f".{label}.tmp")
        shutil.rmtree(staging, ignore_errors=True)
        copy_tree(self.state, staging)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)

    def restore(self, label: str) -> None:
        """Make `state/` exactly the snapshot `label` (empty when there is none)."""
        snapshot = self.root / "snapshots" / label
        shutil.rmtree(self.state, ignore_errors=True)
        if snapshot.exists():
            copy_tree(snapshot, self.state)
        else:
            self.state.mkdir(parents=True, exist_ok=True)


def _is_empty_dir(folder: Path) -> bool:
    """True for an existing folder with no entries (False when absent or not a folder)."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is None
    except OSError:
        return False
