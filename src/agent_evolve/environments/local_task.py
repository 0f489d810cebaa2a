"""The `local` task environment: a private copy of the task's tree, commands confined by this package's namespaces.

Each `exec` runs `bash -c` (not a login shell, so the system profile cannot reset PATH, whose first entry is this
interpreter's folder) with the tree writable at `spec.workdir`, the system read-only and only PATH, LANG, HOME,
TMPDIR and `spec.env` set. Unconfined (AGENT_EVOLVE_ALLOW_UNCONFINED=1), `workdir` is the tree's real path.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from dataclasses import replace
from pathlib import Path, PurePosixPath

from agent_evolve.environments.detect import backend_for_untrusted_code, run_confined
from agent_evolve.environments.errors import ConfinementError
from agent_evolve.environments.local_task_git import (VCS_DIRS, EnvironmentSetupError, check_setup, clone_at,
                                                     diff_from_baseline, record_baseline)
from agent_evolve.environments.spec import DEFAULT_PATH, Confinement, Mount
from agent_evolve.environments.task_env import CommandResult, EnvironmentSpec, TaskEnvironment, resolve_inside

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""This package, hidden from every command: its shipped suites hold hidden tests and reference fixes."""


def hidden_package_mounts() -> tuple[Mount, ...]:
    """A mask over this package where the confined view would show it (an install under the Python prefix)."""
    package = str(PACKAGE_DIR)
    shown = [m.target.rstrip("/") for m in Confinement().view() if m.kind in ("ro", "rw")]
    return (Mount.mask(package),) if any(package.startswith(target + "/") for target in shown) else ()


class LocalTaskEnvironment(TaskEnvironment):
    """A task's work tree in a private temporary folder; commands confined to it (see the module docstring)."""

    backend = "local"

    def __init__(self, spec: EnvironmentSpec) -> None:
        self.spec = spec
        self._private = Path(tempfile.mkdtemp(prefix="agent-evolve-task-"))
        self.tree = self._private / "tree"
        """The work tree's real path on this machine (outside the confinement)."""
        self._baseline = self._private / "baseline.git"
        self._closed = False
        try:
            confines = backend_for_untrusted_code().confines
            self.workdir = os.path.normpath(spec.workdir) if confines else str(self.tree)
            if not os.path.isabs(self.workdir) or self.workdir == "/":
                raise EnvironmentSetupError(f"workdir {spec.workdir!r} must be an absolute path below /, "
                                            "such as /task")
            env = {"PATH": f"{os.path.dirname(sys.executable)}:{DEFAULT_PATH}", "LANG": "C.UTF-8", "HOME": "/tmp",
                   "TMPDIR": "/tmp", **spec.env}
            mounts = (Mount("rw", self.workdir, str(self.tree)), *hidden_package_mounts()) if confines else ()
            self._confinement = Confinement(mounts=mounts, cwd=self.workdir, env=env, network=spec.network)
            self._populate()
            for command in spec.setup_commands:
                check_setup(command, self.exec(command))
            record_baseline(self._baseline, self.tree, self._private)
        except BaseException:
            self.close()
            raise

    def _populate(self) -> None:
        spec = self.spec
        if spec.source_dir is not None and spec.git_repo is not None:
            raise EnvironmentSetupError("an environment spec names both source_dir and git_repo; give one")
        if spec.git_repo is not None:
            clone_at(spec.git_repo, spec.commit, self.tree, self._private)
        elif spec.source_dir is not None:
            if not os.path.isdir(spec.source_dir):
                raise EnvironmentSetupError(f"{spec.source_dir}: the task's source_dir is not a directory")
            shutil.copytree(spec.source_dir, self.tree, symlinks=True)
        else:
            self.tree.mkdir()

    def _check_open(self) -> None:
        if self._closed:
            raise ConfinementError("this task environment is closed")

    def exec(self, command: str, timeout_s: float | None = None) -> CommandResult:
        """Run `bash -c command` confined in the work tree; output merged, cut at the limit, size kept."""
        self._check_open()
        limits = self.spec.limits if timeout_s is None else replace(self.spec.limits, timeout_s=timeout_s)
        result = run_confined(["bash", "-c", command], self._confinement, limits, merge_stderr=True)
        return CommandResult(exit_code=result.exit_code, output=result.stdout.decode("utf-8", errors="replace"),
                             output_size=result.stdout_size, timed_out=result.timed_out,
                             duration_s=result.duration_s)

    def read_file(self, path: str) -> str:
        """The text of a file of the work tree (undecodable bytes replaced)."""
        self._check_open()
        target = resolve_inside(self.tree, path)
        if target.is_dir():
            raise IsADirectoryError(f"{path}: is a folder of the work tree, not a file")
        if not target.is_file():
            raise FileNotFoundError(f"{path}: no such file in the work tree")
        return target.read_text(encoding="utf-8", errors="replace")

    def write_file(self, path: str, content: str) -> None:
        """Create or replace a file of the work tree, making its parent folders."""
        self._check_open()
        target = resolve_inside(self.tree, path)
        if target == self.tree or target.is_dir():
            raise IsADirectoryError(f"{path}: is a folder of the work tree, not a file")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")

    def list_files(self, path: str = ".") -> list[str]:
        """Files (and symlinks) under `path`, relative to the work tree, sorted; version-control folders left out."""
        self._check_open()
        start = resolve_inside(self.tree, path)
        root = Path(os.path.realpath(self.tree))
        if start.is_file():
            return [start.relative_to(root).as_posix()]
        if not start.is_dir():
            raise FileNotFoundError(f"{path}: no such file or folder in the work tree")
        found: list[str] = []
        for folder, dirs, files in os.walk(start):
            dirs[:] = [d for d in dirs if d not in VCS_DIRS]
            base = PurePosixPath(Path(folder).relative_to(root).as_posix())
            found += [str(base / name) for name in files]
            found += [str(base / name) for name in dirs if os.path.islink(os.path.join(folder, name))]
        return sorted(found)

    def diff(self) -> str:
        """The unified diff of the work tree against its state after setup, new and deleted files included."""
        self._check_open()
        return diff_from_baseline(self._baseline, self.tree, self._private)

    def close(self) -> None:
        """Remove the work tree and the baseline; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        shutil.rmtree(self._private, onerror=_make_writable_and_retry)


def _make_writable_and_retry(function: object, path: str, _error: object) -> None:
    """rmtree's error hook: a command may have left a folder without write or search rights; restore them."""
    parent = os.path.dirname(path)
    try:
        os.chmod(parent, stat.S_IRWXU)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, stat.S_IRWXU)
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass
