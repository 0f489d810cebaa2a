"""Grade untrusted Python where it cannot reach its verdict: the candidate and the tests in separate confinements,
talking over a pipe in plain literals; only the tests' process writes the verdict (docs/security.md)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.environments import (Confinement, ExecResult, Limits, Mount, collect_all, python_executable,
                                       start_confined)

CHILD_SCRIPT = Path(__file__).with_name("sandbox_child.py")
PYTHON_FLAGS = ("-I", "-S", "-B")  # isolated, standard library only: no site-packages, no user paths


@dataclass(frozen=True)
class SandboxLimits:
    """Limits for one grading run; `tail_chars` bounds the output kept, `scratch_mb` the candidate's tmpfs."""

    timeout_s: float = 10.0
    memory_mb: int = 1024
    max_output_mb: int = 16
    tail_chars: int = 4000
    processes: int = 64
    scratch_mb: int = 64

    def limits(self) -> Limits:
        """The same limits for the confinement of each process."""
        return Limits(timeout_s=self.timeout_s, memory_mb=self.memory_mb, processes=self.processes,
                      file_size_mb=self.max_output_mb, output_bytes=4 * self.tail_chars,
                      max_output_bytes=self.max_output_mb * 2**20)


@dataclass
class SandboxResult:
    """How a grading run ended: `passed` only on a passing verdict; `error_where` says whose line `error_line` is."""

    passed: bool
    timed_out: bool
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    error_type: str | None = None
    error_message: str | None = None
    error_line: int | None = None
    error_where: str | None = None
    isolation: str = ""


def _python(*args: str) -> list[str]:
    return [python_executable(), *PYTHON_FLAGS, str(CHILD_SCRIPT), *args]


def _confinement(files: Path, cwd: Path, scratch_mb: int = 0) -> Confinement:
    """`files` read-only, the child script, and as working directory `cwd` (a scratch folder when scratch_mb)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "TMPDIR": "/tmp", "LC_ALL": "C.UTF-8"}
    mounts = [Mount.bind(files), Mount.bind(CHILD_SCRIPT)]
    if scratch_mb:
        mounts.append(Mount.scratch(cwd, scratch_mb))
    return Confinement(mounts=tuple(mounts), cwd=str(cwd), env=env)


def run_tests(program: str, tests: str, entry_point: str, limits: SandboxLimits | None = None,
              check: str = "check") -> SandboxResult:
    """Run `program` (untrusted) and `tests` (trusted, defining `check(candidate)`) apart; report the verdict."""
    limits = limits or SandboxLimits()
    root = Path(tempfile.mkdtemp(prefix="agent-evolve-grade-"))
    calls, replies, verdict = os.pipe(), os.pipe(), os.pipe()
    children = [calls[0], calls[1], replies[0], replies[1], verdict[1]]  # the ends the two processes hold
    try:
        source, judge = root / "program", root / "tests"
        for folder in (source, judge, root / "work"):  # work: the scratch's mount point (and cwd when unconfined)
            folder.mkdir()
        (source / "program.py").write_text(program, encoding="utf-8")
        (judge / "tests.py").write_text(tests, encoding="utf-8")
        candidate = start_confined(_python("serve", str(source / "program.py"), str(calls[0]), str(replies[1])),
                                   _confinement(source, root / "work", limits.scratch_mb), limits.limits(),
                                   (calls[0], replies[1]))
        try:
            verifier = start_confined(_python("verify", str(judge / "tests.py"), entry_point, check, str(calls[1]),
                                              str(replies[0]), str(verdict[1])),
                                      _confinement(judge, judge), limits.limits(),
                                      (calls[1], replies[0], verdict[1]))
        except BaseException:
            candidate.kill()
            candidate.collect()
            raise
        while children:
            os.close(children.pop())
        ran, judged = collect_all([candidate, verifier])
        with os.fdopen(verdict[0], "rb", closefd=False) as handle:
            return _result(ran, judged, _verdict(handle.read(2**20)), limits)
    finally:
        for fd in (*children, verdict[0]):
            os.close(fd)
        shutil.rmtree(root, ignore_errors=True)


PASSED = {"status": "passed"}
_FAILURE_KEYS = {"status", "where", "type", "message", "line"}


def _verdict(data: bytes) -> dict:
    """The test process's verdict when it has exactly one of the two shapes that process writes; else empty (none)."""
    try:
        verdict = json.loads(data)
    except (ValueError, RecursionError):
        return {}
    if verdict == PASSED:
        return verdict
    if not isinstance(verdict, dict) or verdict.keys() != _FAILURE_KEYS or verdict["status"] != "failed":
        return {}
    typed = (verdict["where"] in ("candidate", "tests") and isinstance(verdict["type"], str | None)
             and isinstance(verdict["message"], str | None)
             and (verdict["line"] is None or type(verdict["line"]) is int))
    return verdict if typed else {}


def _result(ran: ExecResult, judged: ExecResult, verdict: dict, limits: SandboxLimits) -> SandboxResult:
    """The verdict decides; the candidate's own exit code and output are kept only to explain it."""
    timed_out = ran.timed_out or judged.timed_out
    passed = not timed_out and judged.exit_code == 0 and verdict == PASSED
    if verdict.get("status") != "failed" and not passed and not timed_out:
        verdict = {"type": "GraderError", "message": f"the tests ended without a valid verdict "
                   f"(exit {judged.exit_code}): {judged.text('stderr')[-500:]}", "where": "tests"}
    error = {} if passed else verdict
    return SandboxResult(passed=passed, timed_out=timed_out, exit_code=ran.exit_code,
                         stdout=ran.text("stdout")[-limits.tail_chars:], stderr=ran.text("stderr")[-limits.tail_chars:],
                         duration_s=max(ran.duration_s, judged.duration_s), error_type=error.get("type"),
                         error_message=error.get("message"), error_line=error.get("line"),
                         error_where=error.get("where"), isolation=ran.backend)

