"""The learner's confinement: skillforge's confined shell plus read-only views of the learning material, the
instructions, `check_spec` and the learner program itself; holdout, validation and test material are never there."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash
from agent_evolve.environments import Confinement, Limits, Mount


@dataclass
class LearnerShell(ConfinedBash):
    """A ConfinedBash with extra read-only mounts, extra environment, and larger limits for a CLI agent."""

    extra_mounts: tuple[Mount, ...] = ()
    extra_env: dict[str, str] = field(default_factory=dict)
    memory_mb: int = 8192
    processes: int = 256

    def _confinement(self) -> Confinement:
        base = super()._confinement()
        return Confinement(mounts=(*base.mounts, *self.extra_mounts), cwd=base.cwd,
                           env={**base.env, **self.extra_env}, network=base.network)

    def _limits(self) -> Limits:
        base = super()._limits()
        return Limits(timeout_s=base.timeout_s, memory_mb=self.memory_mb, processes=self.processes,
                      file_size_mb=base.file_size_mb, output_bytes=base.output_bytes,
                      max_output_bytes=base.max_output_bytes)
