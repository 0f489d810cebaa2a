"""Tree stamps: proof, without a git call, that a working tree is still exactly as git last left it.

Right after git made the tree equal a commit (a commit, a hard reset, a clean status) the loop records every
path's stamp (inode, size, mtime, ctime) and the stamps of git's index and HEAD. Later the same walk either finds
every stamp unchanged, so the tree still equals that commit, or it does not, and git decides. A file whose ctime
is too close to the recording to be trusted (a later write in the same clock tick would keep its stamp; git calls
these "racily clean") is compared by content instead. ctime cannot be set from user space, so a tool that
restores mtimes still changes it. Paths git ignores for us (the run records, caches) are not walked.

Where the kernel reports changes (`contract.tree_watch`), no walk is made at all: the recording keeps the watch's
mark, and an equal mark later (with git's index and HEAD unchanged) is the proof.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.contract.regular_files import read_regular_bytes
from agent_evolve.contract.tree_watch import Mark, tree_watch

RACY_NS = 100_000_000
"""A file or folder changed less than this before the recording is not trusted by stamp (coarse clock ticks)."""

Stamp = tuple[int, int, int, int, int]
Skips = tuple[tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class TreeStamps:
    """One working tree at one moment: every path's stamp (with git's index and HEAD), each trusted folder's entry
    names (so a later walk lists only folders whose stamp moved), and the content digests of racy files; or, under
    a kernel watch, its `mark`, the files and links it saw (`paths`) and only git's stamps."""

    head: str
    stamps: dict[str, Stamp]
    children: dict[str, tuple[str, ...]]
    digests: dict[str, bytes]
    mark: Mark | None = None
    paths: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Walk:
    """One walk of a tree: when it started, every path's stamp and each folder's entry names."""

    started: int
    stamps: dict[str, Stamp]
    children: dict[str, tuple[str, ...]]


def record(root: Path, head: str, skips: Skips, prior: TreeStamps | None = None, walked: Walk | None = None
           ) -> TreeStamps:
    """Stamp every path under `root` except folders named in `skips[0]` and files ending in a suffix of `skips[1]`.

    `walked`: a walk taken since the tree last changed (only git's index and HEAD moved since: they are re-read).
    """
    watch = tree_watch(root, *skips)
    mark = watch.mark() if watch is not None else None
    paths = watch.paths() if mark is not None else None
    if mark is not None and paths is not None:
        return TreeStamps(head, _git_stamps(root), {}, {}, mark, paths)
    if walked is None:
        started = time.time_ns()
        stamps, children = _walk(root, skips, prior)
    else:
        started, children = walked.started, walked.children
        stamps = {path: s for path, s in walked.stamps.items() if not path.startswith(".git/")}
        stamps.update(_git_stamps(root))
    racy = started - RACY_NS
    digests = {path: _digest(root / path) for path, s in stamps.items() if s[0] and s[4] >= racy}
    trusted = {folder: names for folder, names in children.items() if stamps[folder][4] < racy}
    return TreeStamps(head, stamps, trusted, digests)


def unchanged(root: Path, head: str, recorded: TreeStamps, skips: Skips) -> bool:
    """True when the tree at `root` (with HEAD at `head`) is provably as `recorded`; False means: ask git."""
    if head != recorded.head:
        return False
    if recorded.mark is not None:
        return _mark(root, skips) == recorded.mark and _git_stamps(root) == recorded.stamps
    if _walk(root, skips, recorded)[0] != recorded.stamps:
        return False
    return all(_digest(root / path) == digest for path, digest in recorded.digests.items())


def commit_all_suffices(root: Path, recorded: TreeStamps, skips: Skips) -> Walk | None:
    """The walk proving that `git commit -a` commits what `add -A` would (git's index untouched, no file or link
    new), or None when it does not."""
    started = time.time_ns()
    if recorded.mark is not None:
        watch = tree_watch(root, *skips)
        mark = watch.mark() if watch is not None else None
        paths = watch.paths() if mark is not None and mark.epoch == recorded.mark.epoch else None
        fits = (paths is not None and paths <= recorded.paths
                and _git_stamps(root).get(".git/index") == recorded.stamps.get(".git/index"))
        return Walk(started, {}, {}) if fits else None
    now, children = _walk(root, skips, recorded)
    if now.get(".git/index") != recorded.stamps.get(".git/index"):
        return None
    if any(path not in recorded.stamps for path, s in now.items() if s[0] != 0):
        return None
    return Walk(started, now, children)


def _walk(root: Path, skips: Skips, prior: TreeStamps | None) -> tuple[dict[str, Stamp], dict[str, tuple[str, ...]]]:
    """Relative path -> (kind, inode, size, mtime_ns, ctime_ns), kind 0 a folder ("" the root), 1 a file, 2 a link;
    and each folder's entry names. A folder whose stamp equals `prior`'s is not listed again."""
    skipped_names, skipped_suffixes = skips
    found = _git_stamps(root)
    children: dict[str, tuple[str, ...]] = {}
    pending = [("", str(root), os.lstat(root))]
    while pending:
        rel, folder, info = pending.pop()
        found[rel] = stamp = (0, info.st_ino, 0, info.st_mtime_ns, info.st_ctime_ns)
        known = prior.children.get(rel) if prior is not None and prior.stamps.get(rel) == stamp else None
        names = known if known is not None else tuple(e.name for e in os.scandir(folder))
        children[rel] = names
        prefix = rel + "/" if rel else ""
        for name in names:
            path = os.path.join(folder, name)
            try:
                entry = os.lstat(path)
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(entry.st_mode):
                if name not in skipped_names:
                    pending.append((prefix + name, path, entry))
            elif not name.endswith(skipped_suffixes):
                kind = 2 if stat.S_ISLNK(entry.st_mode) else 1
                found[prefix + name] = (kind, entry.st_ino, entry.st_size, entry.st_mtime_ns, entry.st_ctime_ns)
    return found, children


def touched_since(root: Path, recorded: TreeStamps, skips: Skips, limit: int) -> list[str] | None:
    """The paths an event named since the recording (at most `limit`, git's index untouched), under a kernel
    watch; None when they are not known. Every other path is provably as recorded."""
    watch = tree_watch(root, *skips) if recorded.mark is not None else None
    touched = watch.touched_since(recorded.mark) if watch is not None else None
    if touched is None or len(touched) > limit:
        return None
    if _git_stamps(root).get(".git/index") != recorded.stamps.get(".git/index"):
        return None
    return touched


def _mark(root: Path, skips: Skips) -> Mark | None:
    watch = tree_watch(root, *skips)
    return watch.mark() if watch is not None else None


def _git_stamps(root: Path) -> dict[str, Stamp]:
    """The stamps of git's index and HEAD files (a staged change or a moved branch changes them)."""
    found: dict[str, Stamp] = {}
    for name in ("index", "HEAD"):
        try:
            info = os.stat(root / ".git" / name)
        except FileNotFoundError:
            continue
        found[f".git/{name}"] = (1, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return found


def _digest(path: Path) -> bytes:
    try:
        data = os.readlink(path).encode("utf-8", "surrogateescape") if path.is_symlink() else read_regular_bytes(path)
    except OSError:
        return b""
    return hashlib.blake2b(data, digest_size=16).digest()
