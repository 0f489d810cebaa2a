"""Kernel change notification for a folder tree (inotify on Linux): proof, without a walk, that nothing changed.

A :class:`TreeWatch` watches every folder of a tree and counts what the kernel reports: any change moves its
generation, and the set of files and links in the tree is kept up to date. A :class:`Mark` taken now and compared
later says whether anything under the tree changed in between, at the cost of one non-blocking read, where a walk
costs an ``lstat`` per path. The kernel queues an event before the writing call returns, so a change made before
a ``mark()`` call is always in it. Where notification cannot be trusted (no inotify, its queue overflowed, a watched
folder was moved, another process than the one that opened it) ``mark()`` is None and callers walk as before.
Writes through a shared memory map, or made by another machine on a network file system, raise no event;
nothing here writes that way, and a live run's workspace is not to be edited from another machine.
"""

from __future__ import annotations

import itertools
import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass

try:  # Linux only; elsewhere every caller falls back to walking
    from inotify_simple import INotify, flags
except ImportError:  # pragma: no cover - the dependency is declared for Linux
    INotify = None  # type: ignore[assignment,misc]

WATCHES_KEPT = 8
"""Trees watched at once per process (each holds one inotify descriptor); the least recently used is closed."""

TOUCHED_KEPT = 20_000
"""Paths remembered as touched before the watch starts afresh (a new epoch; older marks then match nothing)."""

_EPOCHS = itertools.count(1)

if INotify is not None:
    _MASK = (flags.MODIFY | flags.ATTRIB | flags.CLOSE_WRITE | flags.CREATE | flags.DELETE | flags.MOVED_FROM
             | flags.MOVED_TO | flags.DELETE_SELF | flags.MOVE_SELF | flags.DONT_FOLLOW | flags.ONLYDIR
             | flags.EXCL_UNLINK)
    _NEW = flags.CREATE | flags.MOVED_TO
    _GONE = flags.DELETE | flags.MOVED_FROM
    _UNTRUSTED = flags.Q_OVERFLOW | flags.MOVE_SELF | flags.UNMOUNT


@dataclass(frozen=True)
class Mark:
    """A tree's state as the watch saw it: equal marks mean nothing under the tree changed in between."""

    epoch: int
    generation: int


class TreeWatch:
    """Watches every folder under ``root`` except folders named in ``skip_names``; events for files ending in
    ``skip_suffixes`` are not counted. ``has_links``: a symbolic link was seen (its target is not watched)."""

    def __init__(self, root: str, skip_names: tuple[str, ...] = (), skip_suffixes: tuple[str, ...] = ()) -> None:
        self.root, self.skip_names, self.skip_suffixes = root, skip_names, skip_suffixes
        self.has_links = False
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._inotify: INotify | None = None
        self._folders: dict[int, str] = {}
        self._paths: set[str] = set()
        self._frozen: frozenset[str] | None = None
        self._touched: dict[str, int] = {}
        self._epoch = self._generation = 0

    def mark(self) -> Mark | None:
        """The tree's mark after every pending event is counted; None when notification cannot vouch for it."""
        with self._lock:
            return Mark(self._epoch, self._generation) if self._current() else None

    def paths(self) -> frozenset[str] | None:
        """Every file and link under the tree now (relative, '/'-separated), or None as for :meth:`mark`."""
        with self._lock:
            if not self._current():
                return None
            if self._frozen is None:
                self._frozen = frozenset(self._paths)
            return self._frozen

    def touched_since(self, mark: Mark) -> list[str] | None:
        """Every path (relative) an event named since ``mark``, sorted; a folder stands for all it holds. None
        when the watch was reopened since (then it cannot tell)."""
        with self._lock:
            if not self._current() or mark.epoch != self._epoch:
                return None
            return sorted(path for path, generation in self._touched.items() if generation > mark.generation)

    def _current(self) -> bool:
        """Count pending events (reopening the watch when they cannot be trusted); False when there is no watch."""
        if os.getpid() != self._pid:
            return False
        if self._inotify is None and not self._open():
            return False
        if not self._drain():
            self._close()
            return self._open()
        return True

    def close(self) -> None:
        with self._lock:
            if os.getpid() == self._pid:
                self._close()

    def _open(self) -> bool:
        """Start watching afresh: a new epoch, so no mark taken before can match one taken after."""
        try:
            self._inotify = INotify(nonblocking=True)
        except OSError:
            return False
        self._epoch, self._folders, self._paths, self._frozen, self.has_links = next(_EPOCHS), {}, set(), None, False
        self._touched = {}
        if not self._watch_tree(self.root):
            self._close()
            return False
        return True

    def _close(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
        self._inotify, self._folders, self._paths, self._frozen = None, {}, set(), None

    def _watch_tree(self, top: str) -> bool:
        """Watch ``top`` and every folder under it (links are noted, never followed); False when one cannot be."""
        pending, self._frozen = [top], None
        while pending:
            folder = pending.pop()
            try:
                self._folders[self._inotify.add_watch(folder, _MASK)] = folder
                entries = list(os.scandir(folder))
            except FileNotFoundError:
                if folder == top == self.root:
                    return False
                continue  # removed meanwhile: its parent's event already moved the generation
            except OSError:
                return False
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in self.skip_names:
                        pending.append(entry.path)
                elif not entry.name.endswith(self.skip_suffixes):
                    self.has_links = self.has_links or entry.is_symlink()
                    self._paths.add(self._relative(entry.path))
        return True

    def _relative(self, path: str) -> str:
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def _drain(self) -> bool:
        """Count every queued event; False when the watch can no longer be trusted (then it is reopened)."""
        for event in self._inotify.read(timeout=0):
            if event.mask & _UNTRUSTED or (event.mask & flags.DELETE_SELF and self._folders.get(event.wd) == self.root):
                return False
            if event.mask & flags.IGNORED:
                self._folders.pop(event.wd, None)
                continue
            name = event.name
            if event.mask & flags.ISDIR:
                if name in self.skip_names:
                    continue
            elif name.endswith(self.skip_suffixes) and name:
                continue
            self._generation += 1
            parent = self._folders.get(event.wd)
            if parent is None or not name:
                continue
            path = os.path.join(parent, name)
            self._touched[self._relative(path)] = self._generation
            if len(self._touched) > TOUCHED_KEPT:
                return False
            if event.mask & _GONE and not event.mask & flags.ISDIR:
                self._paths.discard(self._relative(path))
                self._frozen = None
            elif event.mask & _NEW and not self._note_new(path):
                return False
        return True

    def _note_new(self, path: str) -> bool:
        """A new entry: watch it (and what it holds) when it is a folder, else add it to the paths."""
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return True  # gone again: its removal is the next event
        if stat.S_ISDIR(info.st_mode):
            return self._watch_tree(path)
        self.has_links = self.has_links or stat.S_ISLNK(info.st_mode)
        self._paths.add(self._relative(path))
        self._frozen = None
        return True


_watches: OrderedDict[tuple[str, tuple[str, ...], tuple[str, ...]], TreeWatch] = OrderedDict()
_watches_lock = threading.Lock()


def tree_watch(root: str | os.PathLike[str], skip_names: tuple[str, ...] = (),
               skip_suffixes: tuple[str, ...] = ()) -> TreeWatch | None:
    """The process's watch of ``root`` (made on first use), or None where the kernel offers no notification."""
    if INotify is None:
        return None
    key = (os.path.realpath(root), tuple(skip_names), tuple(skip_suffixes))
    with _watches_lock:
        watch = _watches.get(key)
        if watch is None:
            watch = _watches[key] = TreeWatch(*key)
            while len(_watches) > WATCHES_KEPT:
                _watches.popitem(last=False)[1].close()
        _watches.move_to_end(key)
        return watch


def _forget_after_fork() -> None:
    """A forked child must not read its parent's queues (it would take their events): it starts its own."""
    for watch in _watches.values():
        if watch._inotify is not None:
            watch._inotify.close()
            watch._inotify = None
    _watches.clear()


os.register_at_fork(after_in_child=_forget_after_fork)
