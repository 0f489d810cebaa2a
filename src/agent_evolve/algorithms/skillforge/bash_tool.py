"""The bash tool of skillforge, confined to the workspace. What is enforced, and what is not:

Enforced on every command:
- It runs with the workspace as its working directory, a scrubbed environment (PATH, LANG, and HOME and TMPDIR
  in a private temporary folder), in its own process group.
- Refused before it runs: a word that is an absolute path (other than /dev/null) or starts with `~`; a path
  with `..` that leaves the workspace; any path into `evolution/` (the run records) or `.git/`; `$` expansions
  and backquotes (they could build such paths); the commands git, mount, umount, unshare, nsenter, chroot,
  sudo and su.
- A time limit: at the deadline the whole process group is killed (SIGKILL); so is a command whose output
  passes the output limit. Output (stdout and stderr together) is truncated to `output_limit` characters.
- `ulimit` caps written file sizes (16 MiB) and CPU time (the time limit).
- Where the kernel allows an unprivileged namespace (`unshare -rm`, probed once): a new mount namespace in which
  `evolution/` and `.git/` are covered by empty tmpfs mounts, so recursive commands (`grep -r`, `find`) neither
  see nor change them; and, unless `allow_network`, a new network namespace with no interfaces (`unshare -n`).
  Without namespaces, proxy variables point at a closed port, which stops only clients that honour them.

Not enforced: the path check reads the command text, so a program that computes a path at run time (for example
`python -c` building one from parts) can still reach other files the user can reach. This is a guard against a
model's mistakes, not a sandbox against an adversary; run the engine in a container for that.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.contract.paths import RECORDS_DIR

FORBIDDEN_DIRS: tuple[str, ...] = (RECORDS_DIR, ".git")
FORBIDDEN_COMMANDS = frozenset({"git", "mount", "umount", "unshare", "nsenter", "chroot", "sudo", "su"})
FILE_SIZE_KB = 16 * 1024
ALLOWED_ABSOLUTE: tuple[str, ...] = ("/dev/null",)
_EXPANSION = re.compile(r"\$[({A-Za-z_]|`")
_ABSOLUTE = re.compile(r"(?:^|[^\w.\-])[/~]")
_SPLIT = re.compile(r"[\s=:,;'\"()<>|&]+")
_MASK = 'for d in {dirs}; do [ -d "$d" ] && mount -t tmpfs -o size=1m tmpfs "$d"; done; exec bash -c "$1"'


def check_command(command: str, root: Path) -> str | None:
    """Why `command` is refused in the workspace `root`, or None when it may run."""
    if not command.strip():
        return "empty command"
    if _EXPANSION.search(command):
        return "variable expansion ($...) and backquotes are not allowed"
    try:
        words = shlex.split(command, comments=False, posix=True)
    except ValueError as exc:
        return f"cannot parse the command: {exc}"
    root = root.resolve()
    for word in words:
        if os.path.basename(word) in FORBIDDEN_COMMANDS:
            return f"the command {word!r} is not allowed"
        if _ABSOLUTE.search(_without_allowed(word)):
            return f"absolute or home paths are not allowed ({word!r}); use paths relative to the workspace"
        for part in (p for p in _SPLIT.split(_without_allowed(word)) if p):
            reason = _check_path(part, root)
            if reason:
                return reason
    return None


def _without_allowed(word: str) -> str:
    for path in ALLOWED_ABSOLUTE:
        word = word.replace(path, "")
    return word


def _check_path(part: str, root: Path) -> str | None:
    target = (root / part).resolve()
    if target != root and not target.is_relative_to(root):
        return f"the path {part!r} leaves the workspace"
    relative = target.relative_to(root).parts if target != root else ()
    if relative and relative[0] in FORBIDDEN_DIRS:
        return f"the path {part!r} is inside {relative[0]}/, which the engine may not touch"
    return None


@functools.cache
def _namespace_prefix(network: bool) -> tuple[str, ...]:
    """The unshare prefix that works on this machine ((): none)."""
    flags = "-rm" if network else "-rmn"
    if shutil.which("unshare") is None:
        return ()
    try:
        probe = subprocess.run(["unshare", flags, "sh", "-c", "mount -t tmpfs tmpfs /tmp >/dev/null 2>&1 && true"],
                               capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return ("unshare", flags) if probe.returncode == 0 else ()


@dataclass
class ConfinedBash:
    """Runs one shell command at a time inside `root` under the limits listed in the module docstring."""

    root: Path
    timeout_s: float = 10.0
    output_limit: int = 2000
    allow_network: bool = False

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()

    @property
    def isolation(self) -> str:
        """How this machine confines the commands: 'namespace' or 'path checks only'."""
        return "namespace" if _namespace_prefix(self.allow_network) else "path checks only"

    def _argv(self, command: str) -> list[str]:
        limits = f"ulimit -f {FILE_SIZE_KB}; ulimit -t {int(self.timeout_s) + 1}; "
        prefix = _namespace_prefix(self.allow_network)
        if not prefix:
            return ["bash", "-c", limits + command]
        mask = _MASK.format(dirs=" ".join(FORBIDDEN_DIRS))
        return [*prefix, "bash", "-c", mask, "confined-bash", limits + command]

    def _env(self, home: str) -> dict[str, str]:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "TMPDIR": home}
        if not self.allow_network and not _namespace_prefix(False):
            closed = "http://127.0.0.1:9"
            env.update({k: closed for k in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY",
                                             "HTTPS_PROXY", "ALL_PROXY")})
            env["no_proxy"] = env["NO_PROXY"] = ""
        return env

    def run(self, command: str) -> str:
        """The command's exit code and output, or the reason it was refused or stopped."""
        refusal = check_command(command, self.root)
        if refusal:
            return f"Refused: {refusal}."
        with tempfile.TemporaryDirectory(prefix="skillforge-home-") as home:
            proc = subprocess.Popen(self._argv(command), cwd=self.root, env=self._env(home),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            output, stopped = self._collect(proc)
        text = output.decode("utf-8", errors="replace")
        if len(text) > self.output_limit:
            text = text[: self.output_limit] + f"\n[output truncated at {self.output_limit} characters]"
        if stopped:
            return f"Error: {stopped}; the command and its processes were killed.\n{text}".rstrip()
        return f"exit code {proc.returncode}\n{text}".rstrip()

    def _collect(self, proc: subprocess.Popen[bytes]) -> tuple[bytes, str]:
        """Read output until the process ends, the deadline passes or the output limit is passed."""
        assert proc.stdout is not None
        deadline = time.monotonic() + self.timeout_s
        chunks: list[bytes] = []
        size, stopped = 0, ""
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    stopped = f"timed out after {self.timeout_s:g}s"
                    break
                if not selector.select(timeout=min(left, 0.2)):
                    if proc.poll() is not None and not _readable(proc):
                        break
                    continue
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > self.output_limit * 4 + 4096:
                    stopped = f"output passed {self.output_limit} characters"
                    break
        if not stopped:
            try:
                proc.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                stopped = f"timed out after {self.timeout_s:g}s"
        _kill_group(proc)
        proc.stdout.close()
        return b"".join(chunks), stopped


def _readable(proc: subprocess.Popen[bytes]) -> bool:
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        return bool(selector.select(timeout=0))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the command's whole process group, then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
