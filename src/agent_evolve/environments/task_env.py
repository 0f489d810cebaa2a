"""The task environment where an agent acts and its work is graded: one protocol, two backends (`local`, `docker`);
file paths are relative to the work tree, and one that leaves it is refused."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Protocol, Self

from agent_evolve.environments.errors import ConfinementError
from agent_evolve.environments.spec import Limits

DEFAULT_COMMAND_LIMITS = Limits(timeout_s=60.0, memory_mb=2048, processes=256, file_size_mb=64,
                                output_bytes=16 * 1024, write_mb=1024)
"""Limits of one `exec` unless the spec says otherwise: room for a test suite and its build files in the work
tree (writes wait in memory until the command ends, so `write_mb` also counts against `memory_mb`), bounded
output for a model."""

BACKENDS: Mapping[str, str] = {
    "local": "agent_evolve.environments.local_task:LocalTaskEnvironment",
    "docker": "agent_evolve.environments.docker_task:DockerTaskEnvironment",
}
"""Backend name -> `module:class`, imported on first use so the docker SDK stays optional."""


class EnvironmentPathError(ConfinementError):
    """A file path given to a task environment leaves its work tree (absolute, `..`, or through a symlink)."""


def checked_relative(path: str) -> PurePosixPath:
    """`path` as a relative POSIX path; EnvironmentPathError for an absolute path, a `..` part or a NUL byte."""
    if not isinstance(path, str) or not path.strip():
        raise EnvironmentPathError(f"path {path!r} refused: give a non-empty path relative to the work tree")
    if "\x00" in path:
        raise EnvironmentPathError(f"path {path!r} refused: it contains a NUL byte")
    pure = PurePosixPath(path)
    if pure.is_absolute():
        raise EnvironmentPathError(f"path {path!r} refused: absolute paths are not allowed; give it relative to "
                                   "the work tree")
    if ".." in pure.parts:
        raise EnvironmentPathError(f"path {path!r} refused: '..' is not allowed")
    return pure


def resolve_inside(root: Path, path: str) -> Path:
    """The real path of `path` under `root` (which need not exist); refused where a symlink leads out of `root`."""
    relative = checked_relative(path)
    base = Path(os.path.realpath(root))
    target = Path(os.path.realpath(base.joinpath(*relative.parts)))
    if target != base and not target.is_relative_to(base):
        raise EnvironmentPathError(f"path {path!r} refused: it resolves outside the work tree (through a symlink)")
    return target


@dataclass(frozen=True)
class EnvironmentSpec:
    """Where a task starts (`source_dir` copied, `git_repo` at `commit`, or the image's `workdir`; `diff()` counts
    from there) and what its commands may use."""

    backend: str = "local"
    source_dir: str | None = None
    git_repo: str | None = None
    commit: str | None = None
    image: str | None = None
    workdir: str = "/task"
    network: bool = False
    limits: Limits = DEFAULT_COMMAND_LIMITS
    env: Mapping[str, str] = field(default_factory=dict)
    setup_commands: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommandResult:
    """How one command ended: stdout and stderr merged in order, cut to the limit, with the full size kept."""

    exit_code: int | None
    output: str
    output_size: int
    timed_out: bool = False
    duration_s: float = 0.0

    @property
    def truncated(self) -> bool:
        return self.output_size > len(self.output.encode("utf-8", errors="replace"))

    def render(self) -> str:
        """The observation a model reads: the output, a truncation note with the sizes, and how it ended."""
        shown = len(self.output.encode("utf-8", errors="replace"))
        note = f"\n[output truncated: {shown} of {self.output_size} bytes shown]" if self.truncated else ""
        ending = "[timed out]" if self.timed_out else f"[exit code {self.exit_code}]"
        return f"{self.output}{note}\n{ending}"


class TaskEnvironment(Protocol):
    """A task's work tree and a way to run commands in it; `close` always cleans up (also via `with`, which the
    backends inherit by subclassing this protocol)."""

    backend: str
    workdir: str

    def exec(self, command: str, timeout_s: float | None = None) -> CommandResult:
        """Run a shell command in the work tree, confined, within the spec's limits (or `timeout_s`)."""

    def read_file(self, path: str) -> str:
        """The text of a file of the work tree."""

    def write_file(self, path: str, content: str) -> None:
        """Create or replace a file of the work tree (parent folders made)."""

    def list_files(self, path: str = ".") -> list[str]:
        """Files under `path`, relative to the work tree, sorted; version-control folders left out."""

    def diff(self) -> str:
        """A unified `git diff` of the work tree against its starting state, new files included."""

    def close(self) -> None:
        """Stop everything the environment started and remove what it created; safe to call twice."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def open_environment(spec: EnvironmentSpec) -> TaskEnvironment:
    """Start the environment `spec.backend` names; an unknown backend is a ConfinementError naming the known ones."""
    target = BACKENDS.get(spec.backend)
    if target is None:
        raise ConfinementError(f"unknown task environment backend {spec.backend!r}; known: {sorted(BACKENDS)}")
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)(spec)
