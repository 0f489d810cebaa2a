"""`--track mlflow=URI` / `--track wandb=DIR` for `agent-evolve run`: trackers that receive the run's events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from agent_evolve.errors import ConfigError
from agent_evolve.tracking.events import RunTracker

TRACKERS = ("mlflow", "wandb")


def trackers_from(specs: Sequence[str]) -> list[RunTracker]:
    """Build the trackers named by `kind=target` specs (MLflow tracking URI, W&B offline directory)."""
    found: list[RunTracker] = []
    for spec in specs:
        kind, _, target = spec.partition("=")
        if kind not in TRACKERS or not target:
            raise ConfigError(f"--track {spec!r}: use mlflow=TRACKING_URI or wandb=DIRECTORY")
        if kind == "mlflow":
            from agent_evolve.tracking.mlflow_logger import MlflowTracker

            found.append(MlflowTracker(target))
        else:
            from agent_evolve.tracking.wandb_logger import WandbTracker

            found.append(WandbTracker(target))
    return found


def track_option(func: Any) -> Any:
    return click.option(
        "--track", multiple=True, metavar="KIND=TARGET",
        help="Log metrics per cycle and the report: mlflow=TRACKING_URI or wandb=DIR (offline). Repeatable.",
    )(func)
