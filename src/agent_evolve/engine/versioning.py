"""VersionControl: the workspace as a git repository, every call through `run_git` (hooks, fsmonitor, system and user
config and `GIT_*` off; another git's lock waited for briefly); `recover_git` undoes what a killed run left."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from agent_evolve.contract.paths import RECORDS_DIR
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.errors import AgentEvolveError, WorkspaceError

log = logging.getLogger(__name__)

# Run records and caches live in the workspace folder but never in a snapshot, so a rollback cannot erase them.
IGNORED_PATTERNS = (f"{RECORDS_DIR}/", "__pycache__/", "*.pyc")
_REF_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/^~{}@-]*")  # no spaces or newlines: one update-ref line each
GIT_TIMEOUT_S = 120.0
LOCK_WAIT_S = 2.0  # how long a command waits, in all, for a lock another git holds (git's packed-refs wait is 1 s)
HARDENING = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "commit.gpgsign=false",
             "-c", "tag.gpgsign=false", "-c", "user.name=agent-evolve", "-c", "user.email=agent-evolve@localhost")


def run_git(cwd: str | Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` in `cwd`, hardened, retried with backoff (10 ms doubling, at most 250 ms, within `LOCK_WAIT_S`)
    while it fails only because another git holds a lock; the finished process."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    delay, waited = 0.01, 0.0
    while True:
        done = subprocess.run(["git", *HARDENING, *args], cwd=cwd, input=stdin, capture_output=True,
                              timeout=GIT_TIMEOUT_S, env=env)
        locked = done.returncode != 0 and b".lock': File exists" in done.stderr
        if not locked or waited + delay > LOCK_WAIT_S:
            return done
        time.sleep(delay)
        waited += delay
        delay = min(delay * 2, 0.25)


def accepted_tag(cycle: int) -> str:
    """The tag of the version accepted at `cycle` (cycle 0: the bootstrapped starting workspace)."""
    return f"evo-{cycle}"


def candidate_tag(cycle: int) -> str:
    """The tag of the candidate the engine wrote at `cycle`, kept whether or not the gate accepted it."""
    return f"cand-{cycle}"


def pre_evolution_tag(cycle: int) -> str:
    """The tag of the workspace just before the engine's step of `cycle` (cycle 0: before bootstrap)."""
    return f"pre-evo-{cycle}"


BASELINE_TAG = accepted_tag(0)


class VersionControl:
    """Commits, tags, diffs and restores of one workspace; every evolution version is a tagged commit."""

    def __init__(self, workspace_path: str | Path):
        self.path = Path(workspace_path)

    def _run(self, *args: str, check: bool = True, stdin: bytes | None = None) -> bytes:
        proc = run_git(self.path, *args, stdin=stdin)
        if check and proc.returncode != 0:
            detail = proc.stderr.decode("utf-8", "replace").strip()
            raise WorkspaceError(f"{self.path}: git {' '.join(args)} failed: {detail}")
        return proc.stdout

    def _git(self, *args: str, check: bool = True) -> str:
        return self._run(*args, check=check).decode("utf-8", "replace")

    def is_repo(self) -> bool:
        return (self.path / ".git").exists()

    def init(self) -> None:
        """Create the repository (if needed) after undoing what a killed run left; keep run records out of snapshots.
        Only under the workspace lock (``RunSession.open``): that is what makes any lock stale."""
        recover_git(self.path)
        if not self.is_repo():
            self._git("init", "-q", "-b", "main")
        exclude = self.path / ".git" / "info" / "exclude"
        exclude.parent.mkdir(parents=True, exist_ok=True)
        existing = read_regular_text(exclude).splitlines() if exclude.exists() else []
        missing = [p for p in IGNORED_PATTERNS if p not in existing]
        if missing:
            exclude.write_text("\n".join([*existing, *missing]) + "\n", encoding="utf-8")

    def commit(self, message: str, tag: str | None = None) -> str:
        """Commit every change (an empty commit if none) and optionally tag it; returns the commit id."""
        self._git("add", "-A")
        self._git("commit", "-q", "--allow-empty", "-m", message)
        sha = self.head()
        if tag:
            self.tag_many({tag: sha})
        return sha

    def commit_if_changed(self, message: str, tag: str) -> str:
        """Tag HEAD as `tag` when the tree equals it (no commit), else commit the changes and tag that."""
        head = self._commit_of("HEAD")
        if head is not None and not self._git("status", "--porcelain", "-z", "--untracked-files=all"):
            self.tag_many({tag: head})
            return head
        return self.commit(message, tag=tag)

    def tag_many(self, tags: dict[str, str]) -> None:
        """Create or move several tags (name -> ref) in one `update-ref` transaction: all of them or none."""
        bad = [f"{n} -> {r}" for n, r in tags.items() if not (_REF_WORD.fullmatch(n) and _REF_WORD.fullmatch(r))]
        if bad:
            raise WorkspaceError(f"{self.path}: not a tag name and ref: {bad[0]!r}")
        if not tags:
            return
        lines = "".join(f"update refs/tags/{name} {ref}^{{commit}}\n" for name, ref in tags.items())
        self._run("update-ref", "--stdin", stdin=lines.encode("utf-8"))

    def _commit_of(self, ref: str) -> str | None:
        return self._git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip() or None

    def has_ref(self, ref: str) -> bool:
        return self._commit_of(ref) is not None

    def resolve(self, ref: str) -> str:
        return self._git("rev-parse", f"{ref}^{{commit}}").strip()

    def head(self) -> str:
        return self.resolve("HEAD")

    def tree(self, ref: str) -> str:
        """The id of the files `ref` holds: two versions with the same files have the same tree."""
        return self._git("rev-parse", f"{ref}^{{tree}}").strip()

    def has_commits(self) -> bool:
        return self.has_ref("HEAD")

    def get_diff(self, from_ref: str, to_ref: str, paths: tuple[str, ...] = ()) -> str:
        return self._git("diff", "--no-ext-diff", "--no-textconv", from_ref, to_ref, "--", *paths)

    def changed_between(self, from_ref: str, to_ref: str) -> list[str]:
        """The paths whose content differs between two commits (added, changed or removed), sorted."""
        out = self._git("diff", "--name-only", "-z", "--no-renames", from_ref, to_ref)
        return sorted(p for p in out.split("\0") if p)

    def show_file_at(self, ref: str, path: str) -> str:
        return self._git("show", f"{ref}:{path}")

    def text_at(self, ref: str, path: str) -> str:
        """A file's text at a version; "" when the version lacks it."""
        try:
            return self.show_file_at(ref, path)
        except AgentEvolveError:
            return ""

    def archive(self, ref: str = "HEAD") -> bytes:
        """The committed tree at `ref` as a tar archive: a version shipped to workers, never the live tree."""
        return self._run("archive", "--format=tar", f"{ref}^{{commit}}")

    def list_tags(self, prefix: str = "evo-") -> list[str]:
        tags = self._git("tag", "--list", f"{prefix}*").split()
        return sorted(tags, key=_tag_sort_key)

    def get_log(self, max_entries: int = 50) -> list[dict]:
        out = self._git("log", f"-n{max_entries}", "--format=%H%x1f%an%x1f%aI%x1f%s", check=False)
        entries = []
        for line in out.splitlines():
            sha, author, date, subject = line.split("\x1f", 3)
            entries.append({"sha": sha, "author": author, "date": date, "message": subject})
        return entries

    def changed_paths(self, ref: str) -> list[str]:
        """Paths that differ between `ref` and the working tree, untracked files included: `git status` at HEAD's
        commit (it also sees a change only in git's index), else the staged tree diffed."""
        both = run_git(self.path, "rev-parse", "HEAD^{commit}", f"{ref}^{{commit}}")
        if both.returncode == 0 and len(set(both.stdout.split())) == 1:
            out = self._git("status", "--porcelain", "-z", "--untracked-files=all", "--no-renames")
            return sorted({entry[3:] for entry in out.split("\0") if entry})
        self._git("add", "-A")
        out = self._git("diff", "--cached", "--name-only", "-z", "--no-renames", ref)
        return sorted(p for p in out.split("\0") if p)

    def is_committed(self) -> bool:
        """True for a repository whose working tree is its HEAD commit: git can undo whatever changes next."""
        return self.is_repo() and self.has_commits() and not self.changed_paths("HEAD")

    def discard(self, paths: list[str]) -> None:
        """Undo uncommitted changes to `paths` (back as HEAD has them, new files removed); HEAD does not move."""
        self.restore_paths("HEAD", paths)

    def restore_paths(self, ref: str, paths: list[str]) -> None:
        """Put `paths` back as they are at `ref`; paths absent at `ref` are removed, with the folders they empty."""
        if not paths:
            return
        listed = self._run("ls-tree", "-r", "-z", "--name-only", ref, "--", *paths)
        present = {p for p in listed.decode("utf-8", "replace").split("\0") if p}
        kept = [p for p in paths if p in present]
        gone = [p for p in paths if p not in present]
        if kept:
            self._git("checkout", ref, "--", *kept)
        if gone:
            self._git("rm", "-q", "-f", "--cached", "--ignore-unmatch", "--", *gone)
            for rel in gone:
                target = self.path / rel
                if target.is_file() or target.is_symlink():
                    target.unlink()
                    _prune_empty(target.parent, self.path)

    def reset_to(self, ref: str) -> None:
        """Make the branch and the working tree exactly `ref`; ignored run records are left alone."""
        self._git("reset", "-q", "--hard", ref)
        self._git("clean", "-q", "-f", "-d")

    def keep_uncommitted(self, before: str) -> str | None:
        """Commit the changes no version holds (hand edits, a killed run's) under refs/kept/ before a reset would
        discard them, the branch unmoved, and say where; the ref, or None when there is nothing to keep."""
        if not self.has_commits() or not self._git("status", "--porcelain", "-z", "--untracked-files=all"):
            return None
        self._git("add", "-A")
        message = f"changes no version held, kept before {before}"
        commit = self._git("commit-tree", self._git("write-tree").strip(), "-p", "HEAD", "-m", message).strip()
        ref = f"refs/kept/{time.strftime('%Y%m%dT%H%M%S')}-{commit[:8]}"
        self._git("update-ref", ref, commit)
        log.warning("%s: changes no version held (hand edits, or a stopped run's) are kept at %s (`git diff HEAD %s`) "
                    "before %s resets the workspace", self.path, ref, ref, before)
        return ref


def _prune_empty(folder: Path, root: Path) -> None:
    """Remove `folder` and its parents below `root` while they are empty (git keeps no empty folder)."""
    while folder != root and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _tag_sort_key(tag: str) -> tuple[str, int, str]:
    stem, _, number = tag.rpartition("-")
    return (stem, int(number), "") if number.isdigit() else (tag, -1, tag)


_TOP_LEVEL_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "FETCH_HEAD.lock", "config.lock",
                    "packed-refs.lock", "shallow.lock", "objects/maintenance.lock")


def stale_git_locks(git_dir: Path) -> list[Path]:
    """The lock files git left in ``git_dir`` (top-level ones and any under ``refs/`` and ``logs/``), sorted."""
    if not git_dir.is_dir():
        return []
    found = [git_dir / name for name in _TOP_LEVEL_LOCKS if (git_dir / name).is_file()]
    for tree in ("refs", "logs"):
        if (git_dir / tree).is_dir():
            found += [p for p in (git_dir / tree).rglob("*.lock") if p.is_file()]
    return sorted(found)


def is_half_initialised(git_dir: Path) -> bool:
    """True for a ``.git`` that ``git init`` did not finish: a part is missing and it holds no object or ref."""
    if not git_dir.is_dir():
        return False
    if (git_dir / "HEAD").is_file() and (git_dir / "objects").is_dir() and (git_dir / "refs").is_dir():
        return False
    return not [p for tree in ("objects", "refs") for p in (git_dir / tree).rglob("*") if p.is_file()]


def recover_git(workspace: str | Path) -> None:
    """Undo what a killed run left in ``workspace``'s repository. Only under the workspace lock."""
    git_dir = Path(workspace) / ".git"
    if is_half_initialised(git_dir):
        shutil.rmtree(git_dir)
        log.warning("removed a repository whose creation was cut short by a killed run: %s", git_dir)
    for lock in stale_git_locks(git_dir):
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()
            log.warning("removed a stale git lock left by a killed run: %s", lock)
