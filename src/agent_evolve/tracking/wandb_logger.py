"""Weights & Biases logger (the `[wandb]` extra): metrics per cycle, the run report as an artifact; `mode="offline"`
writes everything under `directory` with no account or network (sync later with `wandb sync`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_evolve.report.build import build_report
from agent_evolve.tracking.run import RunEvent
from agent_evolve.errors import optional_module


class WandbTracker:
    """Logs each recorded cycle's metrics at step = cycle and, when the run finishes, its HTML report."""

    def __init__(self, directory: str | Path, project: str = "agent-evolve", mode: str = "offline", run_name: str | None = None):
        self.wandb: Any = optional_module("wandb", "wandb", "the W&B logger")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.run = self.wandb.init(project=project, dir=str(self.directory), mode=mode, name=run_name)

    def on_event(self, event: RunEvent) -> None:
        if event.kind == "cycle_recorded":
            self.run.log({**event.data["metrics"], "cycle": event.cycle}, step=event.cycle)
        elif event.kind == "run_finished":
            report = build_report(event.data["workspace"], self.directory / "report.html")
            artifact = self.wandb.Artifact("report", type="report")
            artifact.add_file(str(report))
            self.run.log_artifact(artifact)
            self.run.finish()
