"""The docker task environment: a task's work tree inside a container started from the task's image, with a diff
baseline outside the work tree (files in and out as tar archives, paths resolved inside the container); `close()`
removes the container and its volume, also after a failed start."""

from __future__ import annotations

import contextlib
import io
import posixpath
import tarfile
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_evolve.environments.docker_task_client import (STATE_DIR, connect_docker, container_options, docker_sdk,
                                                         run_exec)
from agent_evolve.environments.errors import ConfinementError
from agent_evolve.environments.local_task_git import (DIFF_EXCLUDES, GIT_IDENTITY, VCS_DIRS, EnvironmentSetupError,
                                                     check_setup, clone_at)
from agent_evolve.environments.task_env import (CommandResult, EnvironmentPathError, EnvironmentSpec, TaskEnvironment,
                                                checked_relative)

_PURPOSE = "the docker task environment"
_OUTSIDE = 5
INTERNAL_TIMEOUT_S = 600.0
"""Deadline of this class's own commands (the baseline of a large repository, its diff, a listing)."""
BASELINE_GIT = "baseline.git"

RESOLVE_SCRIPT = r"""
cd -P -- "$1" || exit 3
root=$(pwd -P)
target="$2"
while [ ! -e "$target" ] && [ ! -L "$target" ]; do
  case "$target" in */*) target="${target%/*}" ;; *) target=. ; break ;; esac
done
real=$(readlink -f -- "$target") || exit 4
case "$real/" in "$root"/*) ;; *) echo "$real"; exit 5 ;; esac
if [ "$target" = "$2" ]; then echo "$real"
elif [ "$target" = . ]; then echo "$real/$2"
else echo "$real/${2#"$target"/}"; fi
"""
"""`sh -c RESOLVE_SCRIPT sh WORKDIR PATH`: prints PATH's real absolute place, exit 5 when it is outside WORKDIR; a
path that does not exist yet is judged by its deepest existing ancestor (what `mkdir -p` would extend)."""


def archive_of_file(name: str, content: bytes, mode: int = 0o644) -> bytes:
    """A tar archive holding one regular file `name`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(content), mode
        tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def archive_of_tree(root: Path) -> bytes:
    """A tar archive of the contents of `root` (names relative to it, symlinks kept as links)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for child in sorted(root.iterdir()):
            tar.add(str(child), arcname=child.name)
    return buffer.getvalue()


def file_from_archive(chunks: bytes, path: str) -> bytes:
    """The content of the one regular file in a `get_archive` stream; EnvironmentPathError when it is not one."""
    with tarfile.open(fileobj=io.BytesIO(chunks), mode="r") as tar:
        members = tar.getmembers()
        if members and members[0].isdir():
            raise IsADirectoryError(f"{path!r} is a folder of the work tree, not a file")
        if len(members) != 1 or not members[0].isfile():
            raise EnvironmentPathError(f"{path!r} is not a regular file of the work tree")
        extracted = tar.extractfile(members[0])
        assert extracted is not None
        return extracted.read()


def listed_files(output: str, base: str) -> list[str]:
    """Work-tree paths from `find . -type f -print0` run in `base`, sorted, version-control folders left out."""
    paths = (posixpath.normpath(posixpath.join(base, name)) for name in output.split("\0") if name)
    return sorted(path for path in paths if not any(part in VCS_DIRS for part in path.split("/")))


def git_argv(state_dir: str, workdir: str, *args: str) -> list[str]:
    """A git command on the baseline repository kept in `state_dir`, whose work tree is the task's."""
    return ["git", f"--git-dir={state_dir}/{BASELINE_GIT}", f"--work-tree={workdir}", *GIT_IDENTITY, *args]


class DockerTaskEnvironment(TaskEnvironment):
    """A TaskEnvironment backed by one container; see the module docstring for what start and close do."""

    backend = "docker"

    def __init__(self, spec: EnvironmentSpec) -> None:
        if not spec.image:
            raise ConfinementError("the docker task environment needs EnvironmentSpec.image (an image name)")
        if not spec.workdir.startswith("/"):
            raise ConfinementError(f"EnvironmentSpec.workdir must be absolute inside the container: {spec.workdir!r}")
        self.spec = spec
        self.workdir = posixpath.normpath(spec.workdir)
        self._client = connect_docker(_PURPOSE)
        self._stream = docker_sdk().from_env(timeout=None, version=self._client.api.api_version)
        self._container: Any = None
        self._closed = False
        self._has_baseline = False
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    @property
    def container_id(self) -> str | None:
        """The id of the running container (None before start and after close)."""
        return None if self._container is None or self._closed else str(self._container.id)

    def _start(self) -> None:
        """Start the container, fill the work tree, run the set-up commands, record the baseline."""
        image = str(self.spec.image)
        with self._api(f"starting a container from {image!r}"):
            self._ensure_image(image)
            name = f"agent-evolve-{uuid.uuid4().hex[:12]}"
            self._container = self._client.containers.run(image, **container_options(self.spec, name))
        self._populate()
        for command in self.spec.setup_commands:
            check_setup(command, self.exec(command), f" in {image!r}")
        self._has_baseline = self._internal(["sh", "-c", "command -v git"]).exit_code == 0
        if self._has_baseline:
            self._checked(git_argv(STATE_DIR, self.workdir, "init", "-q"), "recording the starting state")
            self._checked(["sh", "-c", 'printf "%s\\n" "$@" > "$0"', f"{STATE_DIR}/{BASELINE_GIT}/info/exclude",
                           *DIFF_EXCLUDES], "recording the starting state")
            for args in (("add", "-A"), ("commit", "-q", "--allow-empty", "-m", "baseline")):
                self._checked(git_argv(STATE_DIR, self.workdir, *args), "recording the starting state")

    def _ensure_image(self, image: str) -> None:
        """The image must be present locally or pullable; say which and how to provide it otherwise."""
        errors = docker_sdk().errors
        try:
            self._client.images.get(image)
        except errors.ImageNotFound:
            try:
                self._client.images.pull(image)
            except errors.DockerException as exc:
                raise EnvironmentSetupError(
                    f"image {image!r} is not present locally and could not be pulled ({str(exc)[:200]}); "
                    "build it (`docker build`) or import a root file system (`tar -C ROOT -c . | docker import - "
                    f"{image}`)") from exc

    def _populate(self) -> None:
        """Copy the task's files into the work tree (nothing when the image already holds them)."""
        if self.spec.source_dir:
            source = Path(self.spec.source_dir)
            if not source.is_dir():
                raise EnvironmentSetupError(f"EnvironmentSpec.source_dir {str(source)!r} is not a directory")
            self._put(self.workdir, archive_of_tree(source))
        elif self.spec.git_repo:  # a temporary clone on the host
            with tempfile.TemporaryDirectory(prefix="agent-evolve-checkout-", ignore_cleanup_errors=True) as folder:
                tree, home = Path(folder, "tree"), Path(folder, "home")
                home.mkdir()
                clone_at(self.spec.git_repo, self.spec.commit, tree, home)
                self._put(self.workdir, archive_of_tree(tree))

    def exec(self, command: str, timeout_s: float | None = None) -> CommandResult:
        """Run `command` with /bin/sh in the work tree, stderr into stdout's pipe (`exec 2>&1`) so the two keep
        their order; output cut to the spec's limit, killed at the deadline."""
        return self._run(["/bin/sh", "-c", "exec 2>&1\n" + command], timeout_s or self.spec.limits.timeout_s,
                         self.spec.limits.output_bytes, self.workdir)

    def read_file(self, path: str) -> str:
        """The text of a work-tree file (undecodable bytes replaced)."""
        real = self._resolve(path)
        with self._api(f"reading {path!r}"):
            try:
                chunks, _ = self._container.get_archive(real)
            except docker_sdk().errors.NotFound as exc:
                raise FileNotFoundError(f"{path!r} does not exist in the work tree {self.workdir}") from exc
            data = b"".join(chunks)
        return file_from_archive(data, path).decode("utf-8", errors="replace")

    def write_file(self, path: str, content: str) -> None:
        """Create or replace a work-tree file; parent folders are made and an existing file keeps its mode."""
        real = self._resolve(path)
        parent, name = posixpath.split(real)
        probe = self._checked(["sh", "-c", 'mkdir -p -- "$1" && { [ ! -d "$2" ] || exit 7; } && '
                               '{ stat -c %a -- "$2" 2>/dev/null || echo 644; }', "sh", parent, real],
                              f"preparing {path!r}", refused={7: f"{path!r} is a directory"})
        mode = int(probe.output.strip() or "644", 8)
        self._put(parent, archive_of_file(name, content.encode("utf-8"), mode))

    def list_files(self, path: str = ".") -> list[str]:
        """Files under `path`, relative to the work tree, sorted; .git, .hg and .svn left out."""
        real = self._resolve(path)
        root = self._checked(["sh", "-c", 'cd -P -- "$1" && pwd -P', "sh", self.workdir], "resolving the work tree")
        base = posixpath.relpath(real, root.output.strip())  # relative to the work tree's real path
        found = self._checked(["sh", "-c", 'cd -- "$1" && find . \\( -name .git -o -name .hg -o -name .svn \\) '
                               "-prune -o -type f -print0", "sh", real], f"listing {path!r}")
        return listed_files(found.output, base)

    def diff(self) -> str:
        """`git diff` of the work tree against the starting state, new files included (needs git in the image)."""
        if not self._has_baseline:
            raise ConfinementError(f"diff() needs git in the image {self.spec.image!r}; it has none")
        self._checked(git_argv(STATE_DIR, self.workdir, "add", "-A"), "staging the work tree for the diff")
        return self._checked(git_argv(STATE_DIR, self.workdir, "diff", "--cached", "--no-color", "--no-ext-diff",
                                      "--no-renames", "HEAD"), "computing the diff").output

    def close(self) -> None:
        """Remove the container and its work-tree volume; safe to call twice and after a failed start."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._container is not None:
                with self._api(f"removing container {self._container.name}"):
                    with contextlib.suppress(docker_sdk().errors.NotFound):
                        self._container.remove(force=True, v=True)
        finally:
            self._stream.close()
            self._client.close()

    def _run(self, argv: list[str], timeout_s: float, keep_bytes: int, workdir: str) -> CommandResult:
        """One exec in the container, with Docker's errors turned into ConfinementError."""
        if self._closed or self._container is None:
            raise ConfinementError("the docker task environment is closed")
        with self._api(f"running {argv[-1][:80]!r}"):
            return run_exec(self._client.api, self._stream.api, self._container.id, argv, workdir=workdir,
                            timeout_s=timeout_s, keep_bytes=keep_bytes)

    def _internal(self, argv: list[str]) -> CommandResult:
        """A command of this class (not the agent's): a generous deadline, the large output limit."""
        return self._run(argv, INTERNAL_TIMEOUT_S, self.spec.limits.max_output_bytes, self.workdir)

    def _checked(self, argv: list[str], doing: str, refused: dict[int, str] | None = None) -> CommandResult:
        """`_internal`, raising ConfinementError (or EnvironmentPathError for `refused` codes) unless it exits 0."""
        result = self._internal(argv)
        refusal = (refused or {}).get(result.exit_code) if result.exit_code is not None else None
        if refusal is not None:
            raise EnvironmentPathError(refusal)
        if result.exit_code != 0 or result.truncated:
            raise ConfinementError(f"{doing} failed in the container "
                                   f"({'output too large' if result.truncated else result.render()[-1000:]})")
        return result

    def _resolve(self, path: str) -> str:
        """The real absolute place of a work-tree path inside the container; EnvironmentPathError if outside."""
        relative = str(checked_relative(path))
        result = self._internal(["sh", "-c", RESOLVE_SCRIPT, "sh", self.workdir, relative])
        if result.exit_code == _OUTSIDE:
            raise EnvironmentPathError(f"{path!r} leaves the work tree {self.workdir} "
                                       f"(it resolves to {result.output.strip()!r})")
        if result.exit_code != 0:
            raise EnvironmentPathError(f"{path!r} cannot be resolved in the work tree: {result.render()[-500:]}")
        return result.output.strip()

    def _put(self, folder: str, archive: bytes) -> None:
        """Unpack a tar archive into a container folder."""
        with self._api(f"copying files into {folder}"):
            if not self._container.put_archive(folder, archive):
                raise ConfinementError(f"Docker refused to copy files into {folder}")

    @contextlib.contextmanager
    def _api(self, doing: str) -> Iterator[None]:
        """Turn the SDK's and the transport's errors (`requests`', which a dead or vanished daemon raises) into
        ConfinementError saying what was being done."""
        sdk = docker_sdk()
        import requests  # comes with the docker SDK

        try:
            yield
        except (sdk.errors.DockerException, requests.exceptions.RequestException) as exc:
            raise ConfinementError(f"Docker failed while {doing}: {type(exc).__name__}: {str(exc)[:300]}") from exc
