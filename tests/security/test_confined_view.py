"""The confined view is an allow-list: programs, libraries and a few /etc files, never the rest of the host's /etc.

Graders (`python -I -S`), the engine's shell (`bash -c` with coreutils) and git must still run in it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_evolve.environments import Confinement, Limits, Mount, python_executable, run_confined
from agent_evolve.environments.spec import NETWORK_ETC_PATHS

SECRET = Path("/etc/agent-evolve-test-secret")
FAST = Limits(timeout_s=20)


def sh(script: str, confinement: Confinement | None = None):
    return run_confined(["bash", "-c", script], confinement or Confinement(), FAST)


@pytest.fixture
def etc_secret() -> Iterator[Path]:
    try:
        fd = os.open(SECRET, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        pytest.skip(f"cannot create {SECRET} here ({exc.strerror}); needs root")
    try:
        os.write(fd, b"host secret\n")
        os.close(fd)
        yield SECRET
    finally:
        with contextlib.suppress(FileNotFoundError):
            SECRET.unlink()


def test_a_private_file_under_etc_is_not_visible(etc_secret: Path) -> None:
    result = sh(f"cat {etc_secret}; ls -A /etc")
    assert "host secret" not in result.text() and etc_secret.name not in result.text()
    assert result.exit_code == 0  # `ls /etc` itself works: /etc exists, with only the listed files


def test_only_allow_listed_etc_entries_and_no_usr_etc() -> None:
    listing = sh("ls -A /etc; ls -d /usr/etc /usr/local/etc 2>/dev/null; true").text().split()
    assert "shadow" not in listing and "sudoers" not in listing and "ssl" not in listing
    assert not any(entry.endswith("/etc") for entry in listing)
    assert set(listing) <= {"ld.so.cache", "localtime", "timezone", "nsswitch.conf", "host.conf", "alternatives",
                            "os-release", "mime.types", "passwd", "group", "hosts"}


def test_users_and_hosts_are_ours_not_the_hosts() -> None:
    out = sh("id -un; cut -d: -f1 /etc/passwd | tr '\\n' ' '; echo; getent hosts localhost").text()
    assert out.split("\n")[0] == "root"
    assert set(out.split("\n")[1].split()) == {"root", "nobody"}
    assert "127.0.0.1" in out or "::1" in out


def test_graders_run_python_isolated() -> None:
    code = "import json, decimal, math, collections; print(json.dumps(math.factorial(5)))"
    result = run_confined([python_executable(), "-I", "-S", "-c", code], Confinement(), FAST)
    assert result.text() == "120\n", result.text("stderr")


def test_the_shell_runs_bash_coreutils_and_alternatives(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = ("printf 'b\\na\\n' | sort | head -1; echo x | awk '{print $1 \"y\"}'; seq 3 | wc -l | tr -d ' '; "
              "date -u +%Y >/dev/null && echo dated; echo hi > out.txt && sed 's/hi/ho/' out.txt")
    result = sh(script, Confinement(mounts=(Mount.bind(work, writable=True),), cwd=str(work)))
    assert result.text().split() == ["a", "xy", "3", "dated", "ho"], result.text("stderr")
    assert (work / "out.txt").read_text() == "hi\n"


def test_git_works_in_a_writable_folder(tmp_path: Path) -> None:
    work = tmp_path / "repo"
    work.mkdir()
    script = ("git init -q . && echo one > f.txt && git add f.txt && "
              "git -c user.name=t -c user.email=t@t commit -qm first && git log --format=%s")
    result = sh(script, Confinement(mounts=(Mount.bind(work, writable=True),), cwd=str(work),
                                    env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"}))
    assert result.text().strip() == "first", result.text("stderr")
    assert (work / ".git" / "HEAD").exists()


def test_name_servers_and_certificates_only_with_the_network() -> None:
    present = {p for p in NETWORK_ETC_PATHS if os.path.lexists(p)}
    offline = {m.target for m in Confinement().view()}
    online = {m.target for m in Confinement(network=True).view()}
    assert not present & offline and present <= online
