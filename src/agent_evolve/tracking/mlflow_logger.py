"""MLflow logger (the `[mlflow]` extra): metrics per cycle, the run report as an artifact. Any tracking URI,
e.g. a local file store `file:///path/mlruns` with no server."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from agent_evolve.report.build import build_report
from agent_evolve.tracking.run import RunEvent
from agent_evolve.errors import optional_module


class MlflowTracker:
    """Logs each recorded cycle's metrics at step = cycle and, when the run finishes, its HTML report."""

    def __init__(self, tracking_uri: str, experiment: str = "agent-evolve", run_name: str | None = None):
        tracking = optional_module("mlflow.tracking", "mlflow", "the MLflow logger")
        self.client: Any = tracking.MlflowClient(tracking_uri=tracking_uri)
        found = self.client.get_experiment_by_name(experiment)
        experiment_id = found.experiment_id if found else self.client.create_experiment(experiment)
        self.run_id: str = self.client.create_run(experiment_id, run_name=run_name).info.run_id

    def on_event(self, event: RunEvent) -> None:
        if event.kind == "cycle_recorded":
            for key, value in event.data["metrics"].items():
                self.client.log_metric(self.run_id, key, value, step=event.cycle)
        elif event.kind == "version_accepted":
            self.client.set_tag(self.run_id, "accepted_tag", event.data["tag"])
        elif event.kind == "run_finished":
            with tempfile.TemporaryDirectory() as folder:
                report = build_report(event.data["workspace"], Path(folder) / "report.html")
                self.client.log_artifact(self.run_id, str(report))
            self.client.set_terminated(self.run_id)
