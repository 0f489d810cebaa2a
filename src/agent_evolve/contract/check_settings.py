"""``prompts/check.yaml``: when present, a code reply that fails an example of its task's docstring is answered
again by fresh samples, and the first that passes is kept (``agents.redraw``).

    redraws: 4          # fresh replies drawn at most per task (1-16)
    temperature: 0.8    # their sampling temperature (above 0, at most 2)

Both keys are optional; an empty file means the defaults. Anything else is an error naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_evolve.errors import WorkspaceError

CHECK_SETTINGS = "prompts/check.yaml"
MAX_REDRAWS = 16


@dataclass(frozen=True)
class CheckSettings:
    """How many fresh replies a failed example check draws, and how hot."""

    redraws: int = 4  # the embedded model fixed 3 of 7 caught failures with 4 (experiments/probes)
    temperature: float = 0.8

    def to_yaml(self) -> str:
        return f"redraws: {self.redraws}\ntemperature: {self.temperature:g}\n"


def parse_check_settings(data: Any, where: str = CHECK_SETTINGS) -> CheckSettings:
    """The settings of a loaded ``check.yaml`` (None: the defaults); a WorkspaceError names what is wrong."""
    if data is None:
        return CheckSettings()
    if not isinstance(data, dict):
        raise WorkspaceError(f"{where}: must be a mapping with redraws and temperature, got {type(data).__name__}")
    unknown = sorted(str(k) for k in data if k not in ("redraws", "temperature"))
    if unknown:
        raise WorkspaceError(f"{where}: unknown key(s) {', '.join(unknown)}; known: redraws, temperature")
    redraws = data.get("redraws", CheckSettings.redraws)
    temperature = data.get("temperature", CheckSettings.temperature)
    if isinstance(redraws, bool) or not isinstance(redraws, int) or not 1 <= redraws <= MAX_REDRAWS:
        raise WorkspaceError(f"{where}: redraws must be a whole number from 1 to {MAX_REDRAWS}, got {redraws!r}")
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) or not 0 < temperature <= 2:
        raise WorkspaceError(f"{where}: temperature must be a number above 0 and at most 2, got {temperature!r}")
    return CheckSettings(redraws, float(temperature))
