"""A small Docker runner over the `docker` command line, with a daemon check that says what to start."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from agent_evolve.errors import MissingDependencyError

INSTALL_URL = "https://docs.docker.com/engine/install/"


@dataclass(frozen=True)
class DockerResult:
    """What one command returned; `timed_out` is set when it ran past its limit and was killed."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """Exited 0 within its time limit."""
        return self.returncode == 0 and not self.timed_out

    @property
    def output(self) -> str:
        """Standard output and standard error together."""
        return self.stdout + ("\n" + self.stderr if self.stderr else "")


def docker_problem(binary: str = "docker") -> str | None:
    """None when the Docker CLI exists and its daemon answers; otherwise what is wrong."""
    if shutil.which(binary) is None:
        return f"Docker CLI `{binary}` not found: install Docker ({INSTALL_URL})"
    try:
        probe = subprocess.run([binary, "info", "--format", "{{.ServerVersion}}"],
                               capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "Docker daemon not reachable: `docker info` did not answer within 30 s"
    if probe.returncode != 0:
        said = (probe.stderr or probe.stdout).strip().splitlines()
        return ("Docker daemon not reachable: start Docker (`sudo systemctl start docker`, or Docker Desktop)"
                + (f"; `docker info` said: {said[0]}" if said else ""))
    return None


@dataclass
class DockerCLI:
    """Runs `docker` subcommands; every call returns a DockerResult and never raises on a non-zero exit."""

    purpose: str
    binary: str = "docker"

    def require(self) -> None:
        """Raise MissingDependencyError naming what to install or start when Docker cannot be used."""
        problem = docker_problem(self.binary)
        if problem is not None:
            raise MissingDependencyError(f"{problem} to {self.purpose}.")

    def run(self, args: Sequence[str], *, timeout: float | None = None) -> DockerResult:
        """Run `docker <args>`, killed after timeout seconds."""
        try:
            done = subprocess.run([self.binary, *args], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            return DockerResult(124, _text(exc.stdout), _text(exc.stderr), timed_out=True)
        return DockerResult(done.returncode, done.stdout, done.stderr)


def _text(data: bytes | str | None) -> str:
    """Decode partial output captured before a timeout."""
    if data is None:
        return ""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data
