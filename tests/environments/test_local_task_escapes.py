"""Escape attempts from the local task environment, through its file methods and through commands: all refused."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_evolve.environments import EnvironmentPathError, EnvironmentSpec
from agent_evolve.environments.local_task import LocalTaskEnvironment


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("host secret\n")
    return secret


@pytest.fixture
def env(tmp_path: Path, outside: Path) -> Iterator[LocalTaskEnvironment]:
    source = tmp_path / "src"
    source.mkdir()
    (source / "ok.txt").write_text("inside\n")
    (source / "link").symlink_to(outside)
    (source / "dirlink").symlink_to(outside.parent)
    with LocalTaskEnvironment(EnvironmentSpec(source_dir=str(source))) as environment:
        yield environment


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside/secret.txt", "sub/../../x", "link", "dirlink/secret.txt",
                                  "", "a\x00b"])
def test_file_methods_refuse_paths_that_leave_the_tree(env: LocalTaskEnvironment, path: str) -> None:
    with pytest.raises(EnvironmentPathError):
        env.read_file(path)
    with pytest.raises(EnvironmentPathError):
        env.write_file(path, "pwned\n")


def test_a_symlinked_folder_cannot_be_written_through_or_listed(env: LocalTaskEnvironment, outside: Path) -> None:
    with pytest.raises(EnvironmentPathError):
        env.write_file("dirlink/new.txt", "pwned\n")
    with pytest.raises(EnvironmentPathError):
        env.list_files("dirlink")
    with pytest.raises(EnvironmentPathError):
        env.list_files("..")
    assert sorted(os.listdir(outside.parent)) == ["secret.txt"] and outside.read_text() == "host secret\n"


def test_commands_cannot_read_or_write_outside_the_tree(env: LocalTaskEnvironment, outside: Path) -> None:
    result = env.exec(f"cat {outside} link; echo pwned > {outside}; echo pwned > /etc/agent-evolve-x; "
                      f"echo pwned > /usr/x; ls {outside.parent}; echo done")
    assert "host secret" not in result.output and result.output.rstrip().endswith("done")
    assert outside.read_text() == "host secret\n" and not Path("/etc/agent-evolve-x").exists()
    assert env.exec("echo ok > written.txt && cat written.txt").output == "ok\n"


def test_no_host_process_is_visible_in_proc(env: LocalTaskEnvironment) -> None:
    listed = env.exec("ls /proc | grep -E '^[0-9]+$'").output.split()
    assert {int(p) for p in listed} <= set(range(1, 10))
    assert "pytest" not in env.exec("cat /proc/*/cmdline 2>/dev/null | tr '\\0' ' '").output


def test_the_network_is_unreachable(env: LocalTaskEnvironment) -> None:
    code = ("import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=3)\n    print('connected')\n"
            "except OSError as e:\n    print('refused', e)")
    assert env.exec(f"python -c \"{code}\"").output.startswith("refused")


def test_a_fork_storm_is_bounded_at_a_few_hundred(env: LocalTaskEnvironment) -> None:
    storm = ("import os, time\nn = 0\nfor _ in range(2000):\n    try:\n        pid = os.fork()\n"
             "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(20)\n        os._exit(0)\n"
             "    n += 1\nprint(n)")
    env.write_file("storm.py", storm)
    started = int(env.exec("python storm.py", timeout_s=30).output.split()[-1])
    assert 50 < started <= 300


def test_a_4_gb_allocation_is_refused(env: LocalTaskEnvironment) -> None:
    code = "try:\n    b = bytearray(4 * 2**30)\n    print('allocated')\nexcept MemoryError:\n    print('refused')"
    env.write_file("alloc.py", code)
    assert env.exec("python alloc.py").output.strip() == "refused"


def test_secrets_of_this_process_are_not_visible(env: LocalTaskEnvironment, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-task-env-secret")
    output = env.exec("env; cat /proc/1/environ 2>/dev/null").output
    assert "sk-task-env-secret" not in output and "OPENAI_API_KEY" not in output


def test_an_installed_package_is_hidden_with_its_shipped_answers(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    import pytest as installed  # a real package under this Python's prefix stands in for an installed agent_evolve

    package = Path(installed.__file__).resolve().parent
    monkeypatch.setattr("agent_evolve.environments.local_task.PACKAGE_DIR", package)
    with LocalTaskEnvironment(EnvironmentSpec(source_dir=str(tmp_path))) as environment:
        listing = environment.exec(f"ls -A {package} | wc -l")
        reading = environment.exec(f"cat {package}/__init__.py")
    assert listing.output.strip() == "0", listing.output
    assert reading.exit_code != 0 and "No such file" in reading.output
