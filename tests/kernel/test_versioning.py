"""VersionControl: commits, tags, resets and diffs, each exactly what git says."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from kernel_fakes import KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import WorkspaceError


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """Every git subcommand run, in order (the -c identity options dropped)."""
    calls: list[list[str]] = []
    real = subprocess.run

    def counting(args, *rest, **kwargs):  # noqa: ANN001, ANN002, ANN003 - mirrors subprocess.run
        if args and args[0] == "git":
            calls.append([a for a in args[1:] if "=" not in a and a != "-c"])
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting)
    yield calls


def repo(tmp_path: Path) -> VersionControl:
    workspace = make_workspace(tmp_path / "ws")
    (workspace / "evolution").mkdir()
    (workspace / "evolution" / "journal.jsonl").write_text("{}\n")
    vc = VersionControl(workspace)
    vc.init()
    vc.commit("start", tag="evo-0")
    return vc


def test_reset_to_where_the_tree_already_is_keeps_the_ignored_records(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    vc.reset_to("evo-0")
    assert (vc.path / "evolution" / "journal.jsonl").read_text() == "{}\n"
    assert vc.head() == vc.resolve("evo-0") and vc.changed_paths("evo-0") == []


def test_an_edit_that_keeps_size_and_restores_mtime_is_still_undone(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    prompt = vc.path / "prompts" / "system.md"
    before = prompt.stat()
    prompt.write_text("BASELINE\n")
    os.utime(prompt, ns=(before.st_atime_ns, before.st_mtime_ns))
    vc.reset_to("evo-0")
    assert prompt.read_text() == "baseline\n"


def test_tags_are_refs_git_reads_and_a_held_lock_writes_none(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    vc.tag_many({"pre-evo-1": "evo-0", "cand-1": "HEAD"})
    listed = subprocess.run(["git", "tag", "--list"], cwd=vc.path, capture_output=True, text=True, check=True)
    assert listed.stdout.split() == ["cand-1", "evo-0", "pre-evo-1"]
    assert vc.resolve("cand-1") == vc.resolve("evo-0")
    (vc.path / ".git" / "refs" / "tags" / "evo-2.lock").write_text("held by another writer\n")
    with pytest.raises(WorkspaceError, match="evo-2"):
        vc.tag_many({"evo-1": "HEAD", "evo-2": "HEAD"})
    assert vc.list_tags() == ["evo-0"]
    assert not (vc.path / ".git" / "refs" / "tags" / "evo-1.lock").exists()


@pytest.mark.parametrize("edit", ["modify", "untracked", "delete", "staged", "empty_dir", "nested_empty_dirs"])
def test_reset_to_undoes_outside_edits_even_when_this_object_left_the_tree_clean(tmp_path: Path, edit: str) -> None:
    vc = repo(tmp_path)
    prompt = vc.path / "prompts" / "system.md"
    if edit == "modify":
        prompt.write_text("baseline\n".upper())
    elif edit == "untracked":
        (vc.path / "skills" / "new").mkdir()
        (vc.path / "skills" / "new" / "SKILL.md").write_text("x")
    elif edit == "delete":
        prompt.unlink()
    elif edit == "staged":
        prompt.write_text("staged\n")
        subprocess.run(["git", "add", "-A"], cwd=vc.path, check=True)
        prompt.write_text("baseline\n")
    elif edit == "empty_dir":
        (vc.path / "skills" / "half-made").mkdir()
    else:
        (vc.path / "skills" / "a" / "b").mkdir(parents=True)
    vc.reset_to("evo-0")
    assert prompt.read_text() == "baseline\n"
    assert list((vc.path / "skills").glob("*")) == []
    assert vc.changed_paths("evo-0") == []
    assert (vc.path / "evolution" / "journal.jsonl").exists()


def test_reset_to_is_exact_when_another_process_moved_head(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    (vc.path / "prompts" / "system.md").write_text("second\n")
    other = VersionControl(vc.path)
    other.commit("moved behind the first object's back", tag="evo-1")
    vc.reset_to("evo-0")
    assert (vc.path / "prompts" / "system.md").read_text() == "baseline\n"
    assert vc.head() == vc.resolve("evo-0")
    vc.reset_to("evo-1")
    assert (vc.path / "prompts" / "system.md").read_text() == "second\n"


def test_commit_runs_one_add_and_returns_the_tagged_commit(tmp_path: Path, git_calls: list[list[str]]) -> None:
    vc = repo(tmp_path)
    (vc.path / "memory" / "episodic.jsonl").write_text('{"content": "m"}\n')
    assert vc.changed_paths("evo-0") == ["memory/episodic.jsonl"]
    git_calls.clear()
    sha = vc.commit("cycle 1", tag="cand-1")
    assert [c[0] for c in git_calls].count("add") == 1
    assert sha == vc.head() == vc.resolve("cand-1")
    assert vc.show_file_at("cand-1", "memory/episodic.jsonl") == '{"content": "m"}\n'


def test_changed_paths_reads_odd_names_and_refs_other_than_head(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    odd = vc.path / "memory" / "ünï code with space.jsonl"
    odd.write_text("{}\n")
    (vc.path / "prompts" / "system.md").unlink()
    (vc.path / "evolution" / "ignored.json").write_text("{}")
    assert vc.changed_paths("evo-0") == ["memory/ünï code with space.jsonl", "prompts/system.md"]
    vc.commit("second", tag="evo-1")
    assert vc.changed_paths("evo-0") == ["memory/ünï code with space.jsonl", "prompts/system.md"]
    assert vc.changed_paths("evo-1") == []


def test_changed_paths_sees_every_kind_of_change_and_one_only_in_git_s_index(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    prompt = vc.path / "prompts" / "system.md"
    text = prompt.read_text()
    prompt.write_text("edited\n")
    prompt.write_text(text)  # written back: the same content, so no change
    (vc.path / "skills" / "new-skill").mkdir(parents=True)
    (vc.path / "skills" / "new-skill" / "SKILL.md").write_text("---\nname: new-skill\ndescription: d\n---\n")
    (vc.path / "memory" / "episodic.jsonl").write_text('{"content": "m"}\n')
    assert vc.changed_paths("evo-0") == ["memory/episodic.jsonl", "skills/new-skill/SKILL.md"]
    vc.reset_to("evo-0")
    subprocess.run(["git", "rm", "-q", "--cached", "prompts/system.md"], cwd=vc.path, check=True)  # no file touched
    assert vc.changed_paths("evo-0") == ["prompts/system.md"]


def test_restore_paths_restores_and_removes_in_one_batch(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    (vc.path / "prompts" / "system.md").write_text("edited\n")
    (vc.path / "stray.txt").write_text("outside the layers\n")
    vc.restore_paths("evo-0", ["prompts/system.md", "stray.txt"])
    assert (vc.path / "prompts" / "system.md").read_text() == "baseline\n"
    assert not (vc.path / "stray.txt").exists()
    assert vc.changed_paths("evo-0") == []


def test_discard_undoes_uncommitted_changes_without_moving_head(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    assert vc.is_committed()
    head = vc.head()
    (vc.path / "manifest.yaml").unlink()
    (vc.path / "prompts" / "system.md").write_text("edited\n")
    (vc.path / "skills" / "junk").mkdir()
    (vc.path / "skills" / "junk" / "SKILL.md").write_text("junk\n")
    assert not vc.is_committed()
    vc.discard(vc.changed_paths("HEAD"))
    assert (vc.path / "manifest.yaml").is_file() and (vc.path / "prompts" / "system.md").read_text() == "baseline\n"
    assert not (vc.path / "skills" / "junk").exists()  # a folder the removed file left empty goes too
    assert vc.is_committed() and vc.head() == head
    assert (vc.path / "evolution" / "journal.jsonl").read_text() == "{}\n"  # ignored run records untouched
    assert not VersionControl(tmp_path / "elsewhere").is_committed()


def test_tag_many_writes_all_tags_or_none(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    vc.tag_many({"pre-evo-1": "evo-0", "cand-1": "HEAD"})
    assert vc.list_tags("") == ["cand-1", "evo-0", "pre-evo-1"]
    with pytest.raises(WorkspaceError, match="update-ref"):
        vc.tag_many({"evo-5": "HEAD", "evo-6": "no-such-ref"})
    assert vc.list_tags() == ["evo-0"]
    with pytest.raises(WorkspaceError, match="not a tag name"):
        vc.tag_many({"x HEAD\ndelete refs/heads/main": "HEAD"})
    assert vc.has_ref("main")


def test_archive_holds_the_commit_not_the_live_tree(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    (vc.path / "prompts" / "system.md").write_text("mid-edit\n")
    with tarfile.open(fileobj=io.BytesIO(vc.archive("evo-0"))) as tar:
        names = tar.getnames()
        prompt = tar.extractfile("prompts/system.md")
        assert prompt is not None and prompt.read() == b"baseline\n"
    assert not any(name.startswith("evolution") for name in names)


def test_a_solve_that_changed_nothing_tags_the_accepted_commit_as_pre_evolution(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.0, concurrency=1)
    engine = PlanEngine([("prompt", "k0\n"), ("prompt", "k0 k1\n")])
    ae.Evolver(str(workspace), KeywordBenchmark(), config, engine).run(3)
    vc = VersionControl(workspace)
    accepted = {vc.resolve(tag) for tag in vc.list_tags()}
    assert all(vc.resolve(f"pre-evo-{cycle}") in accepted for cycle in (1, 2, 3))


def test_commit_stages_edits_and_an_edit_after_it_is_still_undone(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    prompt = vc.path / "prompts" / "system.md"
    prompt.write_text("second\n")
    vc.commit("edit only", tag="evo-1")
    assert vc.show_file_at("evo-1", "prompts/system.md") == "second\n"
    (vc.path / "memory" / "new.jsonl").write_text("{}\n")
    vc.commit("a new file", tag="evo-2")
    assert vc.show_file_at("evo-2", "memory/new.jsonl") == "{}\n"
    prompt.write_text("SECOND\n")
    vc.reset_to("evo-2")
    assert prompt.read_text() == "second\n"
