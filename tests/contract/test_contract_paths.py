from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from agent_evolve.contract.paths import atomic_write, check_category, check_name, clean_text, safe_join
from agent_evolve.errors import WorkspaceError


def test_safe_join_inside(tmp_path: Path) -> None:
    assert safe_join(tmp_path, "a", "b.txt") == tmp_path.resolve() / "a" / "b.txt"
    assert safe_join(tmp_path, "a/../b") == tmp_path.resolve() / "b"
    assert safe_join(tmp_path) == tmp_path.resolve()


@pytest.mark.parametrize("part", ["../x", "a/../../x", "..", "/etc/passwd"])
def test_safe_join_refuses_escapes(tmp_path: Path, part: str) -> None:
    with pytest.raises(WorkspaceError) as info:
        safe_join(tmp_path / "root", part)
    assert repr(part) in str(info.value)


def test_safe_join_refuses_symlink_escape(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    with pytest.raises(WorkspaceError, match="escapes"):
        safe_join(root, "link", "secret.txt")
    (root / "inner").mkdir()
    (root / "ok").symlink_to(root / "inner")
    assert safe_join(root, "ok", "f") == (root / "inner" / "f").resolve()


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "a\\b", "/abs", "x\x00y"])
def test_check_name_refuses(name: str) -> None:
    with pytest.raises(WorkspaceError, match="fragment"):
        check_name(name, "fragment")


def test_check_name_accepts() -> None:
    assert check_name("style.md", "fragment") == "style.md"


@pytest.mark.parametrize("category", ["episodic", "domain_knowledge", "a-b", "X1"])
def test_check_category_accepts(category: str) -> None:
    assert check_category(category) == category


@pytest.mark.parametrize("category", ["", "../x", "a b", "_hidden", "a.b", "x" * 65])
def test_check_category_refuses(category: str) -> None:
    with pytest.raises(WorkspaceError, match="memory category"):
        check_category(category)


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "f.txt"
    atomic_write(target, "one\r\nline")
    assert target.read_bytes() == b"one\r\nline"
    atomic_write(target, "two")
    assert target.read_text() == "two"
    assert os.listdir(target.parent) == ["f.txt"]


def test_atomic_write_failure_keeps_old_content(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old")
    with pytest.raises(WorkspaceError, match="f.txt: content is not valid Unicode"):
        atomic_write(target, "bad \udc80 surrogate")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["f.txt"]


def test_a_refused_write_leaves_no_folder_behind(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="lone surrogate"):
        atomic_write(tmp_path / "skills" / "new" / "SKILL.md", "x \ud800")
    assert os.listdir(tmp_path) == []


def test_clean_text_replaces_each_lone_surrogate() -> None:
    assert clean_text("a\udc80b\ud83d") == "a\ufffdb\ufffd"
    assert clean_text("plain ü") == "plain ü"


def test_atomic_write_concurrent_readers_never_see_partial(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    a, b = "a" * 200_000, "b" * 200_000
    atomic_write(target, a)
    seen: set[str] = set()
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            seen.add(target.read_text())

    thread = threading.Thread(target=reader)
    thread.start()
    for i in range(30):
        atomic_write(target, a if i % 2 else b)
    stop.set()
    thread.join()
    assert seen <= {a, b}
