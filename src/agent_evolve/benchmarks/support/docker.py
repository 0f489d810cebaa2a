"""A small Docker runner over the `docker` command line, with a daemon check that says what to start, and the images
of task folders (a prebuilt one, or one built from the task's Dockerfile)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.benchmarks.support.taskdir import TaskDir
from agent_evolve.errors import AgentEvolveError, MissingDependencyError

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


def _slug(text: str) -> str:
    """A Docker-safe lower-case name."""
    return re.sub(r"[^a-z0-9_.-]+", "-", text.lower()).strip("-.") or "task"


@dataclass
class ImageBuilder:
    """A task's prebuilt `docker_image`, or one built from its Dockerfile as `agent-evolve/<task>:latest` (`:noskills`
    without its skills folder), remembered for the builder's life."""

    docker: DockerCLI
    build_timeout: float = 1800.0
    exclude_skills: bool = False
    _built: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def image_for(self, task: TaskDir) -> str:
        """The prebuilt image, else the built one (built once); AgentEvolveError when the task has neither."""
        if task.docker_image:
            return task.docker_image
        if task.dockerfile is None:
            raise AgentEvolveError(f"{task.id}: no Dockerfile or docker_image to start its container from")
        with self._lock:
            if task.id not in self._built:
                self._built[task.id] = self._build(task, task.dockerfile)
            return self._built[task.id]

    def _build(self, task: TaskDir, dockerfile: Path) -> str:
        """`docker build` of the Dockerfile's folder (a copy without the skills folder when asked)."""
        self.docker.require()
        tag = f"agent-evolve/{_slug(task.id)}:{'noskills' if self.exclude_skills else 'latest'}"
        with tempfile.TemporaryDirectory(prefix="ae-build-", ignore_cleanup_errors=True) as scratch:
            context = dockerfile.parent
            if self.exclude_skills and (context / "skills").is_dir():
                context = Path(scratch) / "context"
                shutil.copytree(dockerfile.parent, context)
                shutil.rmtree(context / "skills")
                (context / "skills").mkdir()
            built = self.docker.run(["build", "-t", tag, str(context)], timeout=self.build_timeout)
        if not built.ok:
            tail = "\n".join(built.output.strip().splitlines()[-12:])
            raise AgentEvolveError(f"{task.id}: `docker build` failed (exit {built.returncode}):\n{tail}")
        return tag
