"""The docker task environment against a real daemon: commands, files, limits, confinement and clean-up."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agent_evolve.environments.docker_task import DockerTaskEnvironment
from agent_evolve.environments.docker_task_client import DockerUnavailable
from agent_evolve.environments.errors import ConfinementError
from agent_evolve.environments.local_task_git import EnvironmentSetupError
from agent_evolve.environments.spec import Limits
from agent_evolve.environments.task_env import EnvironmentPathError, EnvironmentSpec, open_environment
from agent_evolve.errors import is_fatal


def _spec(image: str, **changes: Any) -> EnvironmentSpec:
    return EnvironmentSpec(backend="docker", image=image, **changes)


def _gone(client: Any, container_id: str) -> bool:
    import docker

    try:
        client.containers.get(container_id)
    except docker.errors.NotFound:
        return True
    return False


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    (tmp_path / "task").mkdir()
    (tmp_path / "task" / "data.txt").write_text("one two three\n")
    (tmp_path / "task" / "sub").mkdir()
    (tmp_path / "task" / "sub" / "notes.md").write_text("# notes\n")
    return tmp_path / "task"


def test_commands_run_in_the_work_tree_with_merged_output(busybox_image: str, task_dir: Path) -> None:
    with open_environment(_spec(busybox_image, source_dir=str(task_dir))) as env:
        assert isinstance(env, DockerTaskEnvironment)
        result = env.exec("pwd; cat data.txt; echo oops >&2; exit 3")
        assert result.exit_code == 3 and not result.timed_out
        assert result.output == "/task\none two three\noops\n"
        assert env.list_files() == ["data.txt", "sub/notes.md"]


def test_output_is_cut_to_the_limit_with_its_size(busybox_image: str) -> None:
    limits = Limits(timeout_s=30, output_bytes=1000)
    with open_environment(_spec(busybox_image, limits=limits)) as env:
        result = env.exec("yes 0123456789 | head -c 50000")
        assert result.exit_code == 0 and result.output_size == 50000 and len(result.output) == 1000
        assert result.truncated and "[output truncated: 1000 of 50000 bytes shown]" in result.render()


def test_a_command_past_its_deadline_is_killed_with_its_children(busybox_image: str) -> None:
    with open_environment(_spec(busybox_image)) as env:
        started = time.monotonic()
        result = env.exec("echo started; sleep 300 & sleep 200; echo never", timeout_s=1.5)
        assert result.timed_out and result.exit_code is None and result.output == "started\n"
        assert time.monotonic() - started < 15
        assert "sleep 300" not in env.exec("ps -o args").output
        assert env.exec("echo alive").output == "alive\n", "the environment stays usable"


def test_file_methods_work_inside_the_work_tree(busybox_image: str, task_dir: Path) -> None:
    with open_environment(_spec(busybox_image, source_dir=str(task_dir))) as env:
        env.write_file("made/deep/new.txt", "héllo\n")
        assert env.read_file("made/deep/new.txt") == "héllo\n"
        assert env.exec("cat made/deep/new.txt").output == "héllo\n"
        env.exec("printf '#!/bin/sh\\necho v1\\n' > run.sh && chmod 755 run.sh")
        env.write_file("run.sh", "#!/bin/sh\necho v2\n")
        assert env.exec("./run.sh").output == "v2\n", "a replaced file keeps its mode"
        assert env.list_files("made") == ["made/deep/new.txt"]
        with pytest.raises(FileNotFoundError):
            env.read_file("missing.txt")
        with pytest.raises(IsADirectoryError):
            env.read_file("sub")
        with pytest.raises(EnvironmentPathError, match="is a directory"):
            env.write_file("sub", "x")


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", "sub/../../outside.txt", "sub/../data.txt", "link/passwd",
                                  "filelink", "dangling", "link/new.txt"])
def test_paths_that_leave_the_work_tree_are_refused(busybox_image: str, task_dir: Path, path: str) -> None:
    with open_environment(_spec(busybox_image, source_dir=str(task_dir))) as env:
        env.exec("ln -s /etc link && ln -s /etc/passwd filelink && ln -s /etc/nothing-here dangling")
        with pytest.raises(EnvironmentPathError):
            env.read_file(path)
        with pytest.raises(EnvironmentPathError):
            env.write_file(path, "pwned\n")
        assert "pwned" not in env.exec("cat /etc/passwd").output


def test_writes_outside_the_task_do_not_reach_the_image_or_the_host(busybox_image: str, tmp_path: Path) -> None:
    marker = tmp_path / "host-marker"
    here = Path(__file__).with_name("written-from-a-container")
    with open_environment(_spec(busybox_image)) as env:
        for target in ("/etc/evil", "/bin/evil"):
            result = env.exec(f"mkdir -p {Path(target).parent} && echo x > {target}")
            assert result.exit_code != 0 and "Read-only file system" in result.output
        # this checkout's path: read-only inside, or scratch when the checkout lies under /tmp; never the host's file
        env.exec(f"mkdir -p {here.parent} && echo x > {here}")
        assert env.exec(f"mkdir -p {tmp_path} && echo x > {marker} && cat {marker}").output == "x\n", \
            "/tmp is a scratch tmpfs inside"
    assert not marker.exists() and not here.exists(), "no host path is reachable"
    with open_environment(_spec(busybox_image)) as env:
        assert env.exec("ls /tmp").output == "", "nothing written outside the work tree survives"


def test_the_network_is_refused(busybox_image: str) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(3)
    port = listener.getsockname()[1]
    accepted: list[Any] = []

    def accept() -> None:
        try:
            accepted.append(listener.accept())
        except OSError:  # timed out or closed: nothing connected
            pass

    threading.Thread(target=accept, daemon=True).start()
    try:
        with open_environment(_spec(busybox_image)) as env:
            interfaces = env.exec("cat /proc/net/dev").output
            assert "lo:" in interfaces and "eth0" not in interfaces
            assert env.exec("cat /proc/net/route | wc -l").output.strip() == "1", "no route at all"
            result = env.exec(f"echo hello | nc -w 2 127.0.0.1 {port}")
            assert result.exit_code != 0
        time.sleep(0.5)
        assert accepted == [], "nothing reached the host's listener"
    finally:
        listener.close()


def test_a_fork_storm_is_bounded(busybox_image: str) -> None:
    limits = Limits(timeout_s=30, processes=64)
    with open_environment(_spec(busybox_image, limits=limits)) as env:
        storm = ("(i=0; while [ $i -lt 400 ]; do sleep 60 & i=$((i+1)); done) 2>/dev/null; "
                 "set -- /proc/[0-9]*; echo $#; kill -9 -1")
        result = env.exec(storm, timeout_s=20)
        assert 32 < int(result.output.strip()) <= 64, "processes counted with builtins only: forks are exhausted"
        assert env.exec("echo recovered").output == "recovered\n"


def test_memory_is_bounded(python_image: str) -> None:
    limits = Limits(timeout_s=60, memory_mb=256)
    with open_environment(_spec(python_image, limits=limits)) as env:
        result = env.exec("python3 -c \"b = b'x' * (4 * 2**30); print('allocated')\"")
        assert result.exit_code != 0 and "allocated" not in result.output


def test_close_removes_the_container_even_when_the_agent_crashes(docker_client: Any, busybox_image: str) -> None:
    with pytest.raises(RuntimeError, match="agent crashed"):
        with open_environment(_spec(busybox_image)) as env:
            container_id = env.container_id
            assert container_id and not _gone(docker_client, container_id)
            raise RuntimeError("agent crashed")
    assert _gone(docker_client, container_id)
    env.close()
    with pytest.raises(ConfinementError, match="closed"):
        env.exec("true")


def test_a_failed_start_leaves_no_container(docker_client: Any, busybox_image: str) -> None:
    before = {c.id for c in docker_client.containers.list(all=True, filters={"label": "agent-evolve"})}
    with pytest.raises(EnvironmentSetupError, match="set-up command .exit 4. failed"):
        open_environment(_spec(busybox_image, setup_commands=("echo ready", "exit 4")))
    after = {c.id for c in docker_client.containers.list(all=True, filters={"label": "agent-evolve"})}
    assert not after - before
    with pytest.raises(EnvironmentSetupError, match="not present locally"):
        open_environment(_spec("agent-evolve-test/never-built:0"))


def test_a_git_checkout_at_a_commit_and_its_diff(python_image: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "app.py").write_text("VERSION = 1\n")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    first = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    (repo / "app.py").write_text("VERSION = 2\n")
    subprocess.run([*git, "commit", "-qam", "two"], check=True)
    with open_environment(_spec(python_image, git_repo=str(repo), commit=first, workdir="/work")) as env:
        assert env.read_file("app.py") == "VERSION = 1\n" and env.diff() == ""
        assert env.exec("git log --format=%s").output == "one\n", "the checkout keeps its history"
        env.write_file("app.py", "VERSION = 3\n")
        env.write_file("new.txt", "added\n")
        env.exec("mkdir -p build && echo junk > build/x")
        diff = env.diff()
    assert "-VERSION = 1\n+VERSION = 3\n" in diff and "+++ b/new.txt" in diff and "build/x" in diff
    assert "VERSION = 2" not in diff


def test_no_daemon_is_a_fatal_error_naming_docker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(DockerUnavailable) as caught:
        open_environment(_spec("anything:1"))
    assert is_fatal(caught.value)
    assert "a running Docker daemon is needed" in str(caught.value) and "unix:///nonexistent" in str(caught.value)


def test_a_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "docker", None)
    with pytest.raises(DockerUnavailable, match=r"pip install 'agent-evolve\[docker\]'"):
        open_environment(_spec("anything:1"))


def test_container_options_follow_the_spec() -> None:
    from agent_evolve.environments.docker_task_client import container_options

    spec = _spec("img:1", workdir="/w", network=False, limits=Limits(timeout_s=9, memory_mb=300, processes=50))
    options = container_options(spec, "n")
    assert options["network_mode"] == "none" and options["read_only"] and options["pids_limit"] == 50
    assert options["mem_limit"] == options["memswap_limit"] == "300m", "no swap beyond the memory limit"
    assert {u["Name"]: u["Hard"] for u in options["ulimits"]}["cpu"] == 10
    assert [m["Target"] for m in options["mounts"]] == ["/w"] and "/tmp" in options["tmpfs"]
    assert container_options(EnvironmentSpec(backend="docker", image="i", network=True), "n")["network_mode"] == "bridge"
    assert "/tmp" not in container_options(_spec("i", workdir="/tmp"), "n")["tmpfs"], "one mount per path"
