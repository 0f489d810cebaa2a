"""The local task environment: a private tree, confined commands, file methods, the diff, checkouts, clean-up."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from agent_evolve.environments import EnvironmentSpec, Limits, open_environment
from agent_evolve.environments.local_task import LocalTaskEnvironment
from agent_evolve.environments.local_task_git import EnvironmentSetupError
from agent_evolve.environments.task_env import DEFAULT_COMMAND_LIMITS


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "README.md").write_text("calc\n")
    return root


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_exec_runs_in_the_work_tree_at_workdir_with_output_merged(source: Path) -> None:
    with open_environment(EnvironmentSpec(source_dir=str(source))) as env:
        assert isinstance(env, LocalTaskEnvironment) and env.workdir == "/task"
        result = env.exec("pwd; echo out; echo err >&2; python -c 'import sys; print(sys.version_info[0])'; exit 3")
        assert result.exit_code == 3 and not result.timed_out
        assert result.output.splitlines() == ["/task", "out", "err", "3"]
        assert result.render().endswith("[exit code 3]")


def test_the_tree_is_a_copy_and_the_source_is_untouched(source: Path) -> None:
    with open_environment(EnvironmentSpec(source_dir=str(source))) as env:
        env.exec("echo changed > README.md && rm pkg/calc.py")
        assert env.read_file("README.md") == "changed\n"
    assert (source / "README.md").read_text() == "calc\n" and (source / "pkg" / "calc.py").exists()


def test_output_is_cut_at_the_limit_and_its_size_kept(source: Path) -> None:
    limits = replace(DEFAULT_COMMAND_LIMITS, output_bytes=500)
    with open_environment(EnvironmentSpec(source_dir=str(source), limits=limits)) as env:
        result = env.exec("head -c 20000 /dev/zero | tr '\\0' x")
    assert len(result.output) == 500 and result.output_size == 20000 and result.truncated
    assert "[output truncated: 500 of 20000 bytes shown]" in result.render()


def test_a_command_past_its_timeout_is_stopped(source: Path) -> None:
    with open_environment(EnvironmentSpec(source_dir=str(source))) as env:
        result = env.exec("sleep 30", timeout_s=1)
        assert result.timed_out and result.duration_s < 10 and result.render().endswith("[timed out]")
        assert env.exec("echo still usable").output == "still usable\n"


def test_diff_shows_changes_deletions_and_new_files(source: Path) -> None:
    with open_environment(EnvironmentSpec(source_dir=str(source))) as env:
        assert env.diff() == ""
        env.write_file("pkg/calc.py", "def add(a, b):\n    return a + b\n")
        env.exec("mkdir -p tests && echo 'assert True' > tests/test_new.py && rm README.md")
        diff = env.diff()
    assert "-    return a - b\n+    return a + b" in diff
    assert "new file mode" in diff and "+++ b/tests/test_new.py" in diff
    assert "deleted file mode" in diff and "--- a/README.md" in diff


def test_diff_leaves_out_what_running_python_and_pytest_leave(source: Path) -> None:
    (source / "test_calc.py").write_text("from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 1) == 0\n")
    with open_environment(EnvironmentSpec(source_dir=str(source))) as env:
        assert env.exec("python -m pytest -q test_calc.py", timeout_s=120).exit_code == 0
        assert env.list_files(".pytest_cache") and env.diff() == ""


def test_diff_is_measured_after_the_setup_commands(source: Path) -> None:
    spec = EnvironmentSpec(source_dir=str(source), setup_commands=("echo built > build.txt",))
    with open_environment(spec) as env:
        assert env.read_file("build.txt") == "built\n" and env.diff() == ""


def test_a_failing_setup_command_is_a_clear_error_and_leaves_nothing(source: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    spec = EnvironmentSpec(source_dir=str(source), setup_commands=("echo no such tool >&2; exit 7",))
    with pytest.raises(EnvironmentSetupError, match=r"exit code 7.*no such tool"):
        open_environment(spec)
    assert list(scratch.iterdir()) == []


def test_a_git_repo_is_checked_out_at_its_commit_and_diffed_from_it(source: Path) -> None:
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "first")
    first = git(source, "rev-parse", "HEAD")
    (source / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b  # fixed upstream\n")
    git(source, "commit", "-qam", "second")
    with open_environment(EnvironmentSpec(git_repo=str(source), commit=first)) as env:
        assert "return a - b" in env.read_file("pkg/calc.py")
        assert env.exec("git rev-parse HEAD").output.strip() == first
        env.write_file("NOTES.txt", "new\n")
        diff = env.diff()
        assert ".git" not in env.list_files() and "+++ b/NOTES.txt" in diff and "pkg/calc.py" not in diff


def test_an_unknown_commit_names_the_repository(source: Path) -> None:
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "first")
    with pytest.raises(EnvironmentSetupError, match="cannot check out commit 'deadbeef'"):
        open_environment(EnvironmentSpec(git_repo=str(source), commit="deadbeef"))


def test_files_are_read_written_and_listed(source: Path) -> None:
    with open_environment(EnvironmentSpec(source_dir=str(source))) as env:
        env.write_file("deep/er/new.txt", "hello\n")
        assert env.exec("cat deep/er/new.txt").output == "hello\n"
        assert env.list_files() == ["README.md", "deep/er/new.txt", "pkg/calc.py"]
        assert env.list_files("pkg") == ["pkg/calc.py"]
        with pytest.raises(FileNotFoundError, match="missing.txt"):
            env.read_file("missing.txt")
        with pytest.raises(IsADirectoryError):
            env.write_file("pkg", "x")
        with pytest.raises(IsADirectoryError):
            env.read_file("pkg")


def test_close_removes_everything_and_is_idempotent(source: Path) -> None:
    env = open_environment(EnvironmentSpec(source_dir=str(source)))
    assert isinstance(env, LocalTaskEnvironment)
    tree = env.tree
    env.exec("mkdir locked && touch locked/f && chmod 000 locked")
    env.close()
    env.close()
    assert not tree.exists() and not tree.parent.exists()


def test_the_spec_limits_apply_to_every_command(source: Path) -> None:
    spec = EnvironmentSpec(source_dir=str(source), limits=Limits(timeout_s=1.0))
    with open_environment(spec) as env:
        assert env.exec("sleep 5").timed_out


def test_spec_env_reaches_the_commands(source: Path) -> None:
    with open_environment(EnvironmentSpec(source_dir=str(source), env={"TASK_MODE": "strict"})) as env:
        assert env.exec("echo $TASK_MODE").output == "strict\n"
