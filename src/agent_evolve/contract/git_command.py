"""git as a tool, never a host: every git call on a workspace goes through :func:`run_git`.

A workspace's ``.git`` is data the run does not fully control, so nothing in it may run on the host: hooks
(``core.hooksPath`` points at no folder) and ``core.fsmonitor`` are switched off on every command line, the
system and user configuration are not read, and no ``GIT_*`` variable of the caller (``GIT_DIR`` from a hook,
say) can point a command at another repository. Messages are in English so that lock contention can be told
apart: a lock held by another git (an auto ``gc``'s ``pack-refs``, a person's ``git status``) is waited for
briefly with backoff, as git itself waits for ``packed-refs.lock``, instead of failing at once.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TypeVar

GIT_TIMEOUT_S = 120.0
LOCK_WAIT_S = 2.0
"""How long a command waits, in all, for a lock another git holds (git's own packed-refs timeout is 1 s)."""

HARDENING = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "commit.gpgsign=false",
             "-c", "tag.gpgsign=false")
IDENTITY = ("-c", "user.name=agent-evolve", "-c", "user.email=agent-evolve@localhost")
_LOCK_HELD = b".lock': File exists"

T = TypeVar("T")


def git_env(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The caller's environment without any ``GIT_*`` variable, reading neither system nor user git config."""
    env = {key: value for key, value in environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return env


def git_argv(*args: str) -> list[str]:
    """The command line of ``git ARGS`` with hooks and fsmonitor off and the fixed identity."""
    return ["git", *HARDENING, *IDENTITY, *args]


def lock_retry_delays(total_s: float = LOCK_WAIT_S) -> Iterator[float]:
    """Backoff sleeps (10 ms doubling, at most 250 ms) whose sum stays within ``total_s``."""
    delay, spent = 0.01, 0.0
    while spent + delay <= total_s:
        yield delay
        spent += delay
        delay = min(delay * 2, 0.25)


def retry_while_locked(attempt: Callable[[], T], is_locked: Callable[[T], bool], total_s: float = LOCK_WAIT_S) -> T:
    """``attempt()`` again after each backoff delay while its result ``is_locked``; the last result otherwise."""
    result = attempt()
    for delay in lock_retry_delays(total_s):
        if not is_locked(result):
            break
        time.sleep(delay)
        result = attempt()
    return result


def lock_is_held(done: subprocess.CompletedProcess[bytes]) -> bool:
    """Whether git failed only because another process holds one of its lock files."""
    return done.returncode != 0 and _LOCK_HELD in done.stderr


def run_git(cwd: str | Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``cwd``, hardened, retried briefly while a lock is held; the finished process."""
    argv, env = git_argv(*args), git_env()

    def attempt() -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, timeout=GIT_TIMEOUT_S, env=env)

    return retry_while_locked(attempt, lock_is_held)
