"""Run untrusted Python in a locked-down subprocess: temp directory, time and memory limits, no network.

Layers, outermost first: a fresh temporary directory as the working directory and an environment with nothing
inherited; a new session whose whole process group is killed at the wall-clock limit; a new network namespace
(`unshare -n`, or `unshare -r -n` for unprivileged users) when the OS allows it; and, always, the child's own
guards (see sandbox_child.py): resource limits on address space, file size and CPU time, and an audit hook that
refuses sockets, new processes, ctypes and any write outside the temporary directory.

The audit hook stops programs written by a model, not a determined attacker inside the interpreter; run the
grader in a container when the code may be hostile.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

CHILD_SCRIPT = Path(__file__).with_name("sandbox_child.py")
_probe_lock = threading.Lock()


@dataclass(frozen=True)
class SandboxLimits:
    """Limits for one run; `tail_chars` bounds the stdout and stderr kept in the result."""

    timeout_s: float = 10.0
    memory_mb: int = 1024
    max_output_mb: int = 16
    tail_chars: int = 4000
    network_namespace: bool = True


@dataclass
class SandboxResult:
    """How a run ended. `passed` means the program ran to its end: no exception, no exit() before the end."""

    passed: bool
    timed_out: bool
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    error_type: str | None = None
    error_message: str | None = None
    error_line: int | None = None
    violations: list[str] = field(default_factory=list)
    isolation: str = "audit-hook"

    def to_dict(self) -> dict:
        """A JSON-ready copy, for Feedback.raw."""
        return dict(self.__dict__)


@functools.cache
def _unshare_prefix() -> tuple[str, ...]:
    """The `unshare` command line that gives a fresh network namespace here, or () when none works."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    for prefix in ((unshare, "-n"), (unshare, "-r", "-n")):
        try:
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            continue
        if probe.returncode == 0:
            return prefix
    return ()


def network_namespace_prefix() -> tuple[str, ...]:
    """The cached result of probing `unshare` once per process, under a lock."""
    with _probe_lock:
        return _unshare_prefix()


def _tail(handle: IO[bytes], chars: int) -> str:
    """The last `chars` characters (about) of an output file."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(max(0, size - 4 * chars))
    return handle.read().decode("utf-8", errors="replace")[-chars:]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's whole process group; the unreaped child keeps its group id reserved meanwhile."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def run_python(source: str, limits: SandboxLimits | None = None) -> SandboxResult:
    """Run `source` as __main__ in a fresh sandbox and report how it ended; thread-safe."""
    limits = limits or SandboxLimits()
    root = Path(tempfile.mkdtemp(prefix="agent-evolve-sandbox-"))
    try:
        work = root / "work"
        work.mkdir()
        program = root / "program.py"
        program.write_text(source, encoding="utf-8")
        result_path = root / "result.json"
        prefix = network_namespace_prefix() if limits.network_namespace else ()
        command = [
            *prefix,
            sys.executable,
            "-I",
            "-B",
            str(CHILD_SCRIPT),
            str(work),
            str(program),
            str(result_path),
            str(limits.memory_mb * 2**20),
            str(limits.max_output_mb * 2**20),
            str(math.ceil(limits.timeout_s) + 1),
        ]
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(work), "TMPDIR": str(work), "LC_ALL": "C.UTF-8"}
        with open(root / "stdout", "w+b") as out, open(root / "stderr", "w+b") as err:
            start = time.monotonic()
            proc = subprocess.Popen(
                command,
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
                close_fds=True,
            )
            try:
                proc.wait(timeout=limits.timeout_s)
                timed_out = False
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                timed_out = True
            duration = time.monotonic() - start
            timed_out = timed_out or proc.returncode == -signal.SIGXCPU
            stdout, stderr = _tail(out, limits.tail_chars), _tail(err, limits.tail_chars)
        report = _read_report(result_path)
        return SandboxResult(
            passed=not timed_out and proc.returncode == 0 and report.get("status") == "ok",
            timed_out=timed_out,
            exit_code=proc.returncode,
            stdout=stdout,
            stderr=stderr,
            duration_s=round(duration, 3),
            error_type=report.get("type"),
            error_message=report.get("message"),
            error_line=report.get("line"),
            violations=list(report.get("violations", [])),
            isolation="audit-hook+netns" if prefix else "audit-hook",
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _read_report(path: Path) -> dict:
    """The child's JSON report; empty when the child died before writing it."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return report if isinstance(report, dict) else {}
