"""Which backend confines commands on this machine (probed once per process; unconfined only by the user's choice),
and the entry points that start or run one command in it."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Sequence

from agent_evolve.environments.errors import ConfinementError, ConfinementUnavailable
from agent_evolve.environments.process import Backend, ConfinedProcess, ExecResult
from agent_evolve.environments.spec import Confinement, Limits

ALLOW_UNCONFINED_ENV = "AGENT_EVOLVE_ALLOW_UNCONFINED"
"""Set to 1 to run untrusted code without confinement where no backend works (at your own risk)."""
_lock = threading.Lock()


def candidates() -> list[Backend]:
    """The backends to try, strongest first: unshare with a user namespace, then without one (root only)."""
    unshare = shutil.which("unshare")
    return [Backend(unshare, user=True), Backend(unshare, user=False)] if unshare else []


def probe(backend: Backend) -> str | None:
    """Why `backend` cannot run `true` in a confined view here, or None when it can."""
    try:
        result = ConfinedProcess(["true"], Confinement(), Limits(timeout_s=20), backend, allow_unbounded=True).collect()
    except (OSError, ConfinementError) as exc:
        return str(exc)
    if result.exit_code != 0:
        return (result.stderr or result.stdout).decode("utf-8", errors="replace").strip() or f"exit {result.exit_code}"
    return None


@functools.cache
def _detected() -> tuple[Backend | None, str]:
    reasons = []
    for backend in candidates():
        reason = probe(backend)
        if reason is None:
            return backend, ""
        reasons.append(f"{backend.name} ({backend.prefix(Confinement())[1:3]}): {reason}")
    return None, "; ".join(reasons) or "util-linux `unshare` is not installed"


def confining_backend() -> tuple[Backend | None, str]:
    """The first backend that works here and, when none does, why each failed."""
    with _lock:
        return _detected()


def backend_for_untrusted_code() -> Backend:
    """A confining backend; the unconfined one only when the user set AGENT_EVOLVE_ALLOW_UNCONFINED=1."""
    found, why = confining_backend()
    if found is not None:
        return found
    if os.environ.get(ALLOW_UNCONFINED_ENV) == "1":
        return Backend()
    raise ConfinementUnavailable(
        f"refusing to run untrusted code: no kernel confinement works on this machine ({why}). Allow unprivileged "
        f"user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run as root, or set "
        f"{ALLOW_UNCONFINED_ENV}=1 to run it without isolation at your own risk"
    )


def start_confined(argv: Sequence[str], confinement: Confinement, limits: Limits, pass_fds: Sequence[int] = (),
                   merge_stderr: bool = False) -> ConfinedProcess:
    """Start `argv` confined; the caller collects it (see `collect_all` for several processes that talk)."""
    return ConfinedProcess(argv, confinement, limits, backend_for_untrusted_code(), pass_fds, merge_stderr)


def run_confined(argv: Sequence[str], confinement: Confinement, limits: Limits,
                 merge_stderr: bool = False) -> ExecResult:
    """Run `argv` confined to the end; every process it started has ended when this returns."""
    return start_confined(argv, confinement, limits, merge_stderr=merge_stderr).collect()
