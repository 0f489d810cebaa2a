"""Start a command through a backend (namespaces or, by the user's choice, none) and the launcher; collect its output
through pipes; end all its processes."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent_evolve.environments import cgroup
from agent_evolve.environments.cgroup import ALLOW_UNBOUNDED_ENV, TreeBounds, refuse_unbounded, tree_bounds
from agent_evolve.environments.errors import ConfinementError
from agent_evolve.environments.spec import Confinement, Limits, python_executable

LAUNCHER = Path(__file__).with_name("launcher.py")
_READ = 65536
_GRACE_S = 1.0
_APPLY_GRACE_S = 10.0
"""How long a stopped command's init may take to apply its writes before it is killed."""


@dataclass(frozen=True)
class Backend:
    """Puts its isolation around the launcher: `unshare` with its own PID (its init's death ends every process in
    it), mount and network namespaces, `user` adding a user namespace (needed without root), `--kill-child` ending
    it when unshare is killed. Without `unshare` it is the opt-in unconfined backend, where the launcher builds no
    root: limits, an empty environment and a process group, but the whole file system, network and process table."""

    unshare: str | None = None
    user: bool = True

    @property
    def name(self) -> str:
        """`namespaces`, or `unconfined`."""
        return "namespaces" if self.unshare else "unconfined"

    @property
    def confines(self) -> bool:
        """False only for the unconfined backend."""
        return self.unshare is not None

    def prefix(self, confinement: Confinement) -> list[str]:
        """The command line in front of `python launcher.py ...` that enters this backend's isolation."""
        if self.unshare is None:
            return []
        flags = ["--user", "--map-root-user"] if self.user else []
        flags += ["--pid", "--fork", "--mount", "--kill-child=SIGKILL"]
        return [self.unshare, *flags, *([] if confinement.network else ["--net"])]


@dataclass(frozen=True)
class ExecResult:
    """How a command ended. Output keeps the first `Limits.output_bytes` of each stream; sizes count all of it."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes
    stdout_size: int
    stderr_size: int
    timed_out: bool
    output_overflow: bool
    duration_s: float
    backend: str
    bounds: TreeBounds | None = None
    """What bounded the whole process tree (cgroups or per-process limits); see `cgroup.tree_bounds`."""

    def text(self, stream: str = "stdout") -> str:
        """A stream decoded, with a closing note when it was truncated."""
        data, size = (self.stdout, self.stdout_size) if stream == "stdout" else (self.stderr, self.stderr_size)
        text = data.decode("utf-8", errors="replace")
        return text + (f"\n[output truncated: {len(data)} of {size} bytes shown]" if size > len(data) else "")


@dataclass
class KeptBytes:
    """The first `keep` bytes of a stream and the size of all of it (a pipe's, or an exec's in `docker_task_client`)."""

    keep: int
    data: bytearray = field(default_factory=bytearray)
    size: int = 0

    def feed(self, chunk: bytes) -> None:
        """Keep what fits of `chunk`, count all of it."""
        self.data += chunk[: max(0, self.keep - len(self.data))]
        self.size += len(chunk)


@dataclass
class _Stream(KeptBytes):
    fd: int = -1


class ConfinedProcess:
    """One running confined command. `collect` (or `collect_all` for several at once) waits and ends it."""

    def __init__(self, argv: Sequence[str], confinement: Confinement, limits: Limits, backend: Backend,
                 pass_fds: Sequence[int] = (), merge_stderr: bool = False, allow_unbounded: bool | None = None) -> None:
        """Start the command; refused (ConfinementUnavailable) where nothing would bound its processes, unless
        `allow_unbounded` (default: AGENT_EVOLVE_ALLOW_UNBOUNDED=1)."""
        self.limits, self.backend = limits, backend
        self._cgroups = cgroup.create(limits.memory_mb * 2**20, limits.processes + 1)
        self.bounds = tree_bounds(limits, self._cgroups.memory, self._cgroups.pids, 0 in (os.getuid(), os.geteuid()))
        allowed = os.environ.get(ALLOW_UNBOUNDED_ENV) == "1" if allow_unbounded is None else allow_unbounded
        self._private: str | None = None
        try:
            refuse_unbounded(self.bounds, allowed)
            self._private = tempfile.mkdtemp(prefix="agent-evolve-") if backend.confines else None
            spec = self._spec(argv, confinement, limits, pass_fds)
        except BaseException:
            self._cleanup()
            raise
        status_read, status_write = os.pipe()
        command = [*backend.prefix(confinement), python_executable(), "-I", "-S", "-B", str(LAUNCHER),
                   json.dumps(spec), str(status_write)]
        self.started = time.monotonic()
        try:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                                         pass_fds=(status_write, *pass_fds), start_new_session=True, env={},
                                         cwd="/")
        except BaseException:
            os.close(status_read)
            self._cleanup()
            raise
        finally:
            os.close(status_write)
        self._status = status_read
        self._streams = {name: _Stream(limits.output_bytes, fd=pipe.fileno())  # no stderr pipe when it is merged
                         for name, pipe in (("stdout", self.proc.stdout), ("stderr", self.proc.stderr))
                         if pipe is not None}
        self.timed_out = self.overflow = False
        self.stopped_at: float | None = None

    def _spec(self, argv: Sequence[str], confinement: Confinement, limits: Limits,
              pass_fds: Sequence[int]) -> dict[str, object]:
        """What the launcher needs; makes the private folders for the root and the writable layers."""
        root = layers = None
        if self._private:
            root, layers = os.path.join(self._private, "root"), os.path.join(self._private, "layers")
            os.mkdir(root, 0o700)
            os.mkdir(layers, 0o700)
        return {
            "root": root,
            "layers": layers,
            "cgroups": [str(path) for path in self._cgroups.paths],
            "mounts": [asdict(m) for m in confinement.view()] if root else [],
            "cwd": confinement.cwd,
            "env": dict(confinement.env),
            "argv": list(argv),
            "keep_fds": list(pass_fds),
            "limits": {"cpu_s": limits.cpu_seconds(), "memory_bytes": limits.memory_mb * 2**20,
                       "processes": limits.processes, "file_size_bytes": limits.file_size_mb * 2**20,
                       "write_bytes": limits.write_mb * 2**20},
        }

    @property
    def deadline(self) -> float:
        """When the wall-clock limit passes."""
        return self.started + self.limits.timeout_s

    def kill(self) -> None:
        """SIGKILL the namespace's init (found while the backend's process is unreaped, so its pid cannot be reused),
        ending every process in it, and the backend's process group."""
        self._signal_init(signal.SIGKILL)
        if self.proc.returncode is None or not self.backend.confines:  # unconfined: stragglers keep the group
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def _signal_init(self, signum: int) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(OSError):
                children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
                for child in children:
                    os.kill(int(child), signum)

    def stop(self, now: float, overflow: bool = False) -> None:
        """End the command early (deadline or output cap): confined, its init is asked (SIGTERM) to end every process
        and apply the writes; `_finish` kills it after `_APPLY_GRACE_S`."""
        if self.stopped_at is None:
            self.stopped_at = now
            self.overflow = overflow
            self.timed_out = not overflow and self.proc.poll() is None
            if self.backend.confines:
                self._signal_init(signal.SIGTERM)
            else:
                self.kill()

    def _cleanup(self) -> None:
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)
        cgroup.remove(self._cgroups)

    def collect(self) -> ExecResult:
        """Wait for this command alone."""
        return collect_all([self])[0]

    def _finish(self) -> ExecResult:
        """Reap, clean up, and turn a launcher failure into a ConfinementError."""
        if self.timed_out or self.overflow:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=_APPLY_GRACE_S)
        self.kill()
        self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        with os.fdopen(self._status, "rb") as status:
            word, _, detail = status.read(4096).decode("utf-8", errors="replace").partition(" ")
        self._cleanup()
        if word == "error":
            raise ConfinementError(f"the confined command failed with {self.backend.name}: {detail}")
        out, err = self._streams["stdout"], self._streams.get("stderr") or KeptBytes(0)  # no stderr when merged
        exit_code = int(detail) if word == "exit" and not (self.timed_out or self.overflow) else None
        return ExecResult(exit_code=exit_code, stdout=bytes(out.data), stderr=bytes(err.data), stdout_size=out.size,
                          stderr_size=err.size, timed_out=self.timed_out, output_overflow=self.overflow,
                          duration_s=round(time.monotonic() - self.started, 3), backend=self.backend.name,
                          bounds=self.bounds)


def collect_all(processes: Sequence[ConfinedProcess]) -> list[ExecResult]:
    """Read every process's pipes at once until each ends, passes its deadline or its output cap; then end it."""
    with selectors.DefaultSelector() as selector:
        for process in processes:
            for stream in process._streams.values():
                selector.register(stream.fd, selectors.EVENT_READ, (process, stream))
        while selector.get_map():
            now = time.monotonic()
            for process in processes:
                if now >= process.deadline:
                    process.stop(now)
                if process.stopped_at is not None and now > process.stopped_at + _GRACE_S:
                    for stream in process._streams.values():  # a pipe kept open by an escaped process
                        with contextlib.suppress(KeyError):
                            selector.unregister(stream.fd)
            for key, _ in selector.select(timeout=0.1):
                process, stream = key.data
                chunk = os.read(stream.fd, _READ)
                if not chunk:
                    selector.unregister(stream.fd)
                    continue
                stream.feed(chunk)
                if sum(s.size for s in process._streams.values()) > process.limits.max_output_bytes:
                    process.stop(time.monotonic(), overflow=True)
    for process in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.proc.wait(timeout=max(0.0, process.deadline - time.monotonic()))
        process.stop(time.monotonic())
    return [process._finish() for process in processes]
