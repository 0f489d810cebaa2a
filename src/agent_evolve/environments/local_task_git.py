"""Git for the task environments: a checkout at a commit, and (local) a baseline git directory outside the work tree
(so `diff()` is exact whatever the agent does); no user config, no hooks, a fixed identity."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from agent_evolve.environments.errors import ConfinementError
from agent_evolve.environments.task_env import CommandResult

VCS_DIRS: tuple[str, ...] = (".git", ".hg", ".svn")
DIFF_EXCLUDES: tuple[str, ...] = ("__pycache__/", "*.py[cod]", ".pytest_cache/")
"""Left out of every diff (the baseline repository's info/exclude): what running Python and its tests leave."""
GIT_IDENTITY = ("-c", "user.name=agent-evolve", "-c", "user.email=agent-evolve@localhost", "-c", "core.autocrlf=false",
                "-c", "commit.gpgsign=false", "-c", "safe.directory=*")
"""The options of every git call on a task's tree (local and docker): a fixed identity, no signing."""

GIT_TIMEOUT_S = 300.0
SETUP_OUTPUT_CHARS = 2000
"""How much of a failed set-up command's output its error message quotes (the end, where errors are)."""


class EnvironmentSetupError(ConfinementError):
    """A task environment could not be prepared (copy, clone, checkout or a setup command failed)."""


def check_setup(command: str, result: CommandResult, where: str = "") -> None:
    """Raise EnvironmentSetupError when a set-up command (run `where`) failed, quoting the end of its output."""
    if result.exit_code != 0 or result.timed_out:
        ending = "timed out" if result.timed_out else f"exit code {result.exit_code}"
        raise EnvironmentSetupError(f"set-up command {command!r} failed{where} ({ending}): "
                                    f"{result.output[-SETUP_OUTPUT_CHARS:].strip()}")


def run_git(args: Sequence[str], *, home: Path, git_dir: Path | None = None, work_tree: Path | None = None,
            cwd: Path | None = None) -> str:
    """`git ARGS` with a clean configuration; its stdout, or EnvironmentSetupError with git's own message."""
    location = [f"--git-dir={git_dir}"] if git_dir is not None else []
    location += [f"--work-tree={work_tree}"] if work_tree is not None else []
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(["git", *GIT_IDENTITY, *location, *args], cwd=cwd, env=env, capture_output=True,
                              text=True, errors="replace", timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvironmentSetupError(f"git {' '.join(args[:2])} failed: {exc}") from exc
    if done.returncode != 0:
        raise EnvironmentSetupError(f"git {' '.join(args[:2])} failed: {done.stderr.strip() or done.returncode}")
    return done.stdout


def clone_at(repo: str, commit: str | None, tree: Path, home: Path) -> None:
    """Clone `repo` into `tree` and check out `commit` (detached), or the default branch when None."""
    run_git(["clone", "--quiet", "--template=", "--no-checkout", repo, str(tree)], home=home)
    try:
        run_git(["checkout", "--quiet", "--detach", commit or "HEAD"], home=home, cwd=tree)
    except EnvironmentSetupError as exc:
        raise EnvironmentSetupError(f"{repo}: cannot check out commit {commit!r}: {exc}") from None


def record_baseline(git_dir: Path, tree: Path, home: Path) -> None:
    """Commit every file of `tree` into the private `git_dir`: its `.gitignore` respected, `.git` folders and
    the caches Python and pytest leave (`DIFF_EXCLUDES`, the docker backend's too) never."""
    run_git(["init", "--quiet", "--template="], home=home, git_dir=git_dir, work_tree=tree)
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "exclude").write_text("".join(f"{pattern}\n" for pattern in DIFF_EXCLUDES), encoding="utf-8")
    run_git(["add", "--all"], home=home, git_dir=git_dir, work_tree=tree)
    run_git(["commit", "--quiet", "--allow-empty", "--no-verify", "-m", "baseline"], home=home, git_dir=git_dir,
            work_tree=tree)


def diff_from_baseline(git_dir: Path, tree: Path, home: Path) -> str:
    """The unified diff of `tree` now against the baseline: changed, deleted and new files."""
    run_git(["add", "--all"], home=home, git_dir=git_dir, work_tree=tree)
    return run_git(["diff", "--cached", "--no-color", "--no-ext-diff", "HEAD"], home=home, git_dir=git_dir,
                   work_tree=tree)
