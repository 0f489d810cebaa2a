"""The user-view commands and loggers import no optional heavy package until one is used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).parents[2] / "src"


def test_importing_the_cli_and_loggers_loads_no_optional_package() -> None:
    code = (
        "import sys; import agent_evolve.cli.main, agent_evolve.tracking.mlflow_logger, agent_evolve.tracking.wandb_logger;"
        "print(sorted(m for m in ('mlflow', 'wandb', 'matplotlib') if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(SRC)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
