"""The entry points: start or run one command in the confinement this machine provides."""

from __future__ import annotations

from collections.abc import Sequence

from agent_evolve.environments.detect import backend_for_untrusted_code
from agent_evolve.environments.process import ConfinedProcess, ExecResult
from agent_evolve.environments.spec import Confinement, Limits


def start_confined(argv: Sequence[str], confinement: Confinement, limits: Limits, pass_fds: Sequence[int] = (),
                   merge_stderr: bool = False) -> ConfinedProcess:
    """Start `argv` confined; the caller collects it (see `collect_all` for several processes that talk)."""
    return ConfinedProcess(argv, confinement, limits, backend_for_untrusted_code(), pass_fds, merge_stderr)


def run_confined(argv: Sequence[str], confinement: Confinement, limits: Limits,
                 merge_stderr: bool = False) -> ExecResult:
    """Run `argv` confined to the end; every process it started has ended when this returns."""
    return start_confined(argv, confinement, limits, merge_stderr=merge_stderr).collect()
