"""VersionControl: the workspace as a git repository, behind a small subprocess wrapper."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_evolve.engine.recovery import recover_git
from agent_evolve.errors import WorkspaceError

_IDENTITY = ["-c", "user.name=agent-evolve", "-c", "user.email=agent-evolve@localhost", "-c", "commit.gpgsign=false"]
# Run records and caches live in the workspace folder but never in a snapshot, so a rollback cannot erase them.
IGNORED_PATTERNS = ("evolution/", "__pycache__/", "*.pyc")


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

    def _git(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            ["git", *_IDENTITY, *args], cwd=self.path, capture_output=True, text=True, timeout=120
        )
        if check and proc.returncode != 0:
            raise WorkspaceError(f"{self.path}: git {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout

    def is_repo(self) -> bool:
        return (self.path / ".git").exists()

    def init(self) -> None:
        """Create the repository (if needed) after undoing what a killed run left; keep run records out of snapshots.

        Only call it while holding the workspace lock (``RunSession.open``): that is what makes any lock stale.
        """
        recover_git(self.path)
        if not self.is_repo():
            self._git("init", "-q", "-b", "main")
        exclude = self.path / ".git" / "info" / "exclude"
        exclude.parent.mkdir(parents=True, exist_ok=True)
        existing = exclude.read_text(encoding="utf-8").splitlines() if exclude.exists() else []
        missing = [p for p in IGNORED_PATTERNS if p not in existing]
        if missing:
            exclude.write_text("\n".join([*existing, *missing]) + "\n", encoding="utf-8")

    def commit(self, message: str, tag: str | None = None) -> str:
        """Commit every change (an empty commit if none) and optionally tag it; returns the commit id."""
        self._git("add", "-A")
        self._git("commit", "-q", "--allow-empty", "-m", message)
        sha = self.head()
        if tag:
            self.tag(tag, sha)
        return sha

    def tag(self, name: str, ref: str = "HEAD") -> None:
        self._git("tag", "-f", name, ref)

    def has_ref(self, ref: str) -> bool:
        return self._git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip() != ""

    def resolve(self, ref: str) -> str:
        return self._git("rev-parse", f"{ref}^{{commit}}").strip()

    def head(self) -> str:
        return self.resolve("HEAD")

    def has_commits(self) -> bool:
        return self.has_ref("HEAD")

    def get_diff(self, from_ref: str, to_ref: str) -> str:
        return self._git("diff", from_ref, to_ref)

    def show_file_at(self, ref: str, path: str) -> str:
        return self._git("show", f"{ref}:{path}")

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
        """Paths that differ between `ref` and the working tree, untracked files included."""
        self._git("add", "-A")
        out = self._git("diff", "--cached", "--name-only", "--no-renames", ref)
        return sorted(p for p in out.splitlines() if p)

    def restore_paths(self, ref: str, paths: list[str]) -> None:
        """Put `paths` back as they are at `ref`; paths absent at `ref` are removed."""
        for rel in paths:
            if self._exists_at(ref, rel):
                self._git("checkout", ref, "--", rel)
                continue
            self._git("rm", "-q", "-f", "--cached", "--ignore-unmatch", "--", rel)
            target = self.path / rel
            if target.is_file() or target.is_symlink():
                target.unlink()

    def _exists_at(self, ref: str, rel: str) -> bool:
        proc = subprocess.run(
            ["git", "cat-file", "-e", f"{ref}:{rel}"], cwd=self.path, capture_output=True, timeout=60
        )
        return proc.returncode == 0

    def reset_to(self, ref: str) -> None:
        """Make the branch and the working tree exactly `ref`; ignored run records are left alone."""
        self._git("reset", "-q", "--hard", ref)
        self._git("clean", "-q", "-f", "-d")


def _tag_sort_key(tag: str) -> tuple[str, int, str]:
    stem, _, number = tag.rpartition("-")
    return (stem, int(number), "") if number.isdigit() else (tag, -1, tag)
