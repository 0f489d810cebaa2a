"""Make a git repository of a folder with one deterministic commit (fixed author and date, user configuration
ignored), so the same files give the same base commit on every machine; built once per target."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from agent_evolve.benchmarks.support.staging import build_once
from agent_evolve.errors import AgentEvolveError

BASE_MESSAGE = "base"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "agent-evolve", "GIT_AUTHOR_EMAIL": "suites@agent-evolve.invalid",
    "GIT_COMMITTER_NAME": "agent-evolve", "GIT_COMMITTER_EMAIL": "suites@agent-evolve.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00+0000", "GIT_COMMITTER_DATE": "2025-01-01T00:00:00+0000",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` with the fixed identity; AgentEvolveError with git's message when it fails."""
    env = {**os.environ, **_IDENTITY}
    done = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AgentEvolveError(f"git {' '.join(args)} failed in {cwd}: {(done.stderr or done.stdout).strip()}")
    return done.stdout.strip()


def base_repository(source: Path, target: Path) -> str:
    """The commit id of `target`, a repository of `source`'s files in one commit, built on first use."""

    def build(scratch: Path) -> None:
        shutil.copytree(source, scratch, dirs_exist_ok=True)
        _git(scratch, "init", "-q")
        _git(scratch, "add", "-A")
        _git(scratch, "commit", "-q", "-m", BASE_MESSAGE)

    build_once(target, build, done=lambda path: (path / ".git").is_dir())
    return _git(target, "rev-parse", "HEAD")
