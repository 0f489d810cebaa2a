"""VersionControl: the workspace as a git repository, behind a small subprocess wrapper.

Every git call goes through `git_command.run_git` (hooks and fsmonitor off, brief waits for another git's locks).
Lean by design: after git left the tree equal to a commit, the tree's file stamps (`tree_stamps`) prove it still
is without a git call, so a reset to where the tree already is costs no subprocess; otherwise one `git status`
decides. A commit runs at most one `add` (none when no file is new), and tags are loose ref files written the
way git writes them (a `.lock` file renamed into place), with `update-ref` for anything else.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from agent_evolve.contract.git_command import retry_while_locked, run_git
from agent_evolve.contract.paths import RECORDS_DIR
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.engine.recovery import recover_git
from agent_evolve.engine.tree_stamps import TreeStamps, Walk, commit_all_suffices, record, touched_since, unchanged
from agent_evolve.errors import AgentEvolveError, WorkspaceError

# Run records and caches live in the workspace folder but never in a snapshot, so a rollback cannot erase them.
IGNORED_PATTERNS = (f"{RECORDS_DIR}/", "__pycache__/", "*.pyc")
_KEPT_DIRS = (".git", RECORDS_DIR, "__pycache__")  # never swept: the repository and ignored records
_READ_ONLY = ("--no-optional-locks", "status", "rev-parse", "diff", "show", "archive", "tag", "log", "ls-tree", "update-ref")
_SHA = re.compile(r"[0-9a-f]{40}")
_REF_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/^~{}@-]*")  # no spaces or newlines: one update-ref line each
_PLAIN_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,200}")  # written in-process: always a valid ref name
_SKIPPED_SUFFIXES = (".pyc",)  # what IGNORED_PATTERNS ignores besides the kept folders
_SKIPS = (_KEPT_DIRS, _SKIPPED_SUFFIXES)
STATUS_PATHS_LIMIT = 200  # more changed paths than this: one whole-tree status instead of a path list


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
    """Commits, tags, diffs and restores of one workspace; every evolution version is a tagged commit.

    `_head` is the commit this object last left HEAD at: only a hint that lets a reset skip a check that could
    not succeed. `_clean` holds the tree's stamps from when git last made it equal a commit; work is skipped only
    when the stamps prove nothing changed since (files can change behind our back; then git's index decides).
    """

    def __init__(self, workspace_path: str | Path):
        self.path = Path(workspace_path)
        self._head: str | None = None
        self._clean: TreeStamps | None = None
        self._walked: TreeStamps | None = None

    def _run(self, *args: str, check: bool = True, stdin: bytes | None = None) -> bytes:
        if args[0] not in _READ_ONLY:
            self._clean = None
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

        Only call it while holding the workspace lock (``RunSession.open``): that is what makes any lock stale.
        """
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
        """Commit every change (an empty commit if none) and optionally tag it; returns the commit id.

        When the stamps show no new file since git last left the tree clean, `commit -a` stages everything.
        """
        clean = self._clean
        walked = None
        if clean is not None and self._branch_sha() == clean.head:
            walked = commit_all_suffices(self.path, clean, _SKIPS)
        if walked is not None:
            self._git("commit", "-q", "-a", "--allow-empty", "-m", message)
        else:
            self._git("add", "-A")
            self._git("commit", "-q", "--allow-empty", "-m", message)
        sha = self._branch_sha() or self.resolve("HEAD")
        self._head = sha
        self._remember_clean(sha, walked)
        if tag:
            self.tag_many({tag: sha})
        return sha

    def commit_if_changed(self, message: str, tag: str) -> str:
        """Tag HEAD as `tag` when the tree equals it (no commit), else commit the changes and tag that."""
        head = self._peek("HEAD")
        if head is not None and self._is_clean_at(head):
            self.tag_many({tag: head})
            return head
        return self.commit(message, tag=tag)

    def tag(self, name: str, ref: str = "HEAD") -> None:
        self.tag_many({name: ref})

    def tag_many(self, tags: dict[str, str]) -> None:
        """Create or move several tags (name -> ref) in one transaction: all of them are written or none."""
        bad = [f"{n} -> {r}" for n, r in tags.items() if not (_REF_WORD.fullmatch(n) and _REF_WORD.fullmatch(r))]
        if bad:
            raise WorkspaceError(f"{self.path}: not a tag name and ref: {bad[0]!r}")
        if not tags:
            return
        shas = {name: self._peek(ref) for name, ref in tags.items()}
        if all(sha is not None and _PLAIN_TAG.fullmatch(name) for name, sha in shas.items()):
            self._write_tags({name: str(sha) for name, sha in shas.items()})
            return
        lines = "".join(f"update refs/tags/{name} {ref}\n" for name, ref in tags.items())
        self._run("update-ref", "--stdin", stdin=lines.encode("utf-8"))

    def _write_tags(self, shas: dict[str, str]) -> None:
        """Loose tag refs as git writes them: every `<ref>.lock` created exclusively first (waiting briefly while
        another git holds one, as git does), then each renamed."""
        folder = self.path / ".git" / "refs" / "tags"
        folder.mkdir(parents=True, exist_ok=True)
        locks: list[Path] = []
        try:
            for name, sha in shas.items():
                lock = folder / f"{name}.lock"
                fd = _create_lock(lock)
                locks.append(lock)
                with os.fdopen(fd, "w", encoding="ascii") as handle:
                    handle.write(sha + "\n")
        except OSError as exc:
            for lock in locks:
                lock.unlink(missing_ok=True)
            raise WorkspaceError(f"{self.path}: cannot write tag {name!r}: {exc}") from None
        for lock in locks:
            os.replace(lock, lock.with_suffix(""))

    def has_ref(self, ref: str) -> bool:
        return self._git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip() != ""

    def resolve(self, ref: str) -> str:
        return self._git("rev-parse", f"{ref}^{{commit}}").strip()

    def head(self) -> str:
        return self.resolve("HEAD")

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
        """Paths that differ between `ref` and the working tree, untracked files included.

        When `ref` is HEAD's commit (the usual case) this is one `git status`, read from git's index stamps; under a
        kernel watch, limited to the paths changed since git last left the tree clean at `ref`.
        """
        target = self._peek(ref)
        if target is not None and self._stamped_clean(target):
            return []
        if target is not None and target == self._head:
            head, paths = self._status(self._touched_since_clean(target))
            if head == target:
                if not paths:
                    self._remember_clean(head)
                return sorted(set(paths))
        self._git("add", "-A")
        out = self._git("diff", "--cached", "--name-only", "-z", "--no-renames", ref)
        return sorted(p for p in out.split("\0") if p)

    def restore_paths(self, ref: str, paths: list[str]) -> None:
        """Put `paths` back as they are at `ref`; paths absent at `ref` are removed."""
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

    def reset_to(self, ref: str) -> None:
        """Make the branch and the working tree exactly `ref`; ignored run records are left alone.

        A workspace already at `ref` with nothing changed costs no git call when its stamps prove it, else one
        `git status`, and no write.
        """
        target = self._peek(ref)
        if target is not None and self._is_clean_at(target):
            return
        self._git("reset", "-q", "--hard", ref)
        self._git("clean", "-q", "-f", "-d")
        self._head = target if target is not None else self.resolve("HEAD")
        self._remember_clean(self._head)

    def _is_clean_at(self, target: str) -> bool:
        """Whether HEAD is `target` and the tree equals it (empty folders removed): stamps first, then git status."""
        if self._stamped_clean(target):
            return True
        if target != self._head:
            return False
        head, changes = self._status()
        if head != target or changes:
            return False
        _remove_empty_dirs(self.path)
        self._remember_clean(head)
        return True

    def _stamped_clean(self, target: str) -> bool:
        clean = self._clean
        return clean is not None and self._branch_sha() == target and unchanged(self.path, target, clean, _SKIPS)

    def _remember_clean(self, head: str | None, walked: Walk | None = None) -> None:
        """Record the tree's stamps right after git made it equal `head` (nothing is recorded without a head).

        The last recording, even one a git write made stale, still names the entries of folders whose stamp held;
        `walked` is a walk of the tree taken just before a git call that changed only the index and HEAD.
        """
        self._clean = record(self.path, head, _SKIPS, self._walked, walked) if head else None
        self._walked = self._clean or self._walked

    def _touched_since_clean(self, target: str) -> list[str] | None:
        """The paths that may differ from `target`, when the tree was recorded clean there and a watch saw since."""
        clean = self._clean
        if clean is None or clean.head != target or self._branch_sha() != target:
            return None
        return touched_since(self.path, clean, _SKIPS, STATUS_PATHS_LIMIT)

    def _status(self, only: list[str] | None = None) -> tuple[str | None, list[str]]:
        """HEAD's commit (None before the first) and every path that differs from it, untracked included.

        `only`: the paths to ask about, when every other one is known to be unchanged.
        """
        limit = ["--", *(f":(literal){path}" for path in only)] if only else []
        out = self._run("--no-optional-locks", "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all",
                        "--no-renames", *limit)
        head: str | None = None
        paths: list[str] = []
        tokens = iter(out.decode("utf-8", "replace").split("\0"))
        for token in tokens:
            if token.startswith("# branch.oid "):
                oid = token.removeprefix("# branch.oid ")
                head = oid if _SHA.fullmatch(oid) else None
            elif token.startswith("1 "):
                paths.append(token.split(" ", 8)[8])
            elif token.startswith("2 "):
                paths.extend([token.split(" ", 9)[9], next(tokens, "")])
            elif token.startswith("u "):
                paths.append(token.split(" ", 10)[10])
            elif token.startswith("? "):
                paths.append(token[2:])
        self._head = head
        return head, [p for p in paths if p]

    def _peek(self, ref: str) -> str | None:
        """`ref`'s commit read from git's files when that is unambiguous (HEAD, a sha, a loose tag), else rev-parse."""
        if _SHA.fullmatch(ref):
            return ref
        if ref == "HEAD":
            return self._branch_sha() or (self.resolve("HEAD") if self.has_commits() else None)
        git_dir = self.path / ".git"
        shadowed = (git_dir / ref).exists() or (git_dir / "refs" / ref).exists()
        if "/" not in ref and not shadowed:
            sha = _read_ref_file(git_dir / "refs" / "tags" / ref)
            if sha is not None:
                return sha
        return self._git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip() or None

    def _branch_sha(self) -> str | None:
        """The commit of the branch HEAD names, read from its loose ref file; None if it is packed or absent."""
        git_dir = self.path / ".git"
        head = _read_git_file(git_dir / "HEAD")
        if head is None or not head.startswith("ref: "):
            return head if head is not None and _SHA.fullmatch(head) else None
        return _read_ref_file(git_dir / head.removeprefix("ref: "))


def _read_git_file(path: Path) -> str | None:
    """The stripped text of one of git's small files; None when it is absent, gone (a concurrent `pack-refs` moved
    it into `packed-refs`) or not a regular file."""
    try:
        return read_regular_text(path, encoding="ascii", errors="replace").strip()
    except OSError:
        return None


def _read_ref_file(path: Path) -> str | None:
    """The commit a loose ref file names, or None when there is no such loose ref (git itself then decides)."""
    sha = _read_git_file(path)
    return sha if sha is not None and _SHA.fullmatch(sha) else None


def _create_lock(lock: Path) -> int:
    """Create `lock` exclusively, retrying with backoff while another git holds it; FileExistsError after that."""

    def attempt() -> int | None:
        try:
            return os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return None

    fd = retry_while_locked(attempt, lambda created: created is None)
    if fd is None:
        raise FileExistsError(errno.EEXIST, "another git holds the lock", str(lock))
    return fd


def _remove_empty_dirs(folder: str | Path, top: bool = True) -> bool:
    """What `git clean -d` does to a tree with no untracked files: drop empty folders (git cannot hold them).

    Returns whether `folder` itself was removed (never the top one).
    """
    occupied = False
    with os.scandir(folder) as entries:
        for entry in list(entries):
            if not entry.is_dir(follow_symlinks=False) or entry.name in _KEPT_DIRS:
                occupied = True
            elif not _remove_empty_dirs(entry.path, top=False):
                occupied = True
    if occupied or top:
        return False
    os.rmdir(folder)
    return True


def _tag_sort_key(tag: str) -> tuple[str, int, str]:
    stem, _, number = tag.rpartition("-")
    return (stem, int(number), "") if number.isdigit() else (tag, -1, tag)
