"""The confinement mechanism itself: view, environment, privileges, limits, output, and the end of every process."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from agent_evolve.environments import (
    ALLOW_UNCONFINED_ENV,
    Confinement,
    ConfinementError,
    ConfinementUnavailable,
    Limits,
    Mount,
    python_executable,
    run_confined,
)
from agent_evolve.environments import detect

FAST = Limits(timeout_s=10.0)


def sh(script: str, confinement: Confinement | None = None, limits: Limits = FAST):
    return run_confined(["sh", "-c", script], confinement or Confinement(), limits)


def py(code: str, confinement: Confinement | None = None, limits: Limits = FAST):
    return run_confined([python_executable(), "-I", "-S", "-c", code], confinement or Confinement(), limits)


def test_the_command_has_its_own_pid_namespace_and_sees_only_its_processes() -> None:
    result = sh("echo $$ $PPID; sleep 5 & ls /proc | grep -E '^[0-9]+$' | sort -n | tr '\\n' ' '")
    pids, processes = result.text().splitlines()
    assert pids == "2 1"  # the launcher is init (1); the command is its only child
    assert {int(p) for p in processes.split()} <= set(range(1, 8))


def test_the_environment_is_only_the_allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-confinement-secret")
    result = sh("env", Confinement(env={"PATH": "/usr/bin:/bin", "ONLY": "this"}))
    lines = set(result.text().split())
    assert {"PATH=/usr/bin:/bin", "ONLY=this"} <= lines and "sk-confinement-secret" not in result.text()
    assert all(line.split("=")[0] in {"PATH", "ONLY", "PWD", "SHLVL", "_"} for line in lines)


def test_no_capabilities_and_no_way_to_gain_them() -> None:
    status = sh("grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status").text()
    assert "CapEff:\t0000000000000000" in status and "CapBnd:\t0000000000000000" in status
    assert "NoNewPrivs:\t1" in status
    assert "mount" in sh("mount -t tmpfs tmpfs /tmp 2>&1 || echo mount refused").text()


def test_only_the_writable_directory_is_writable(tmp_path: Path) -> None:
    work, hidden, ro = tmp_path / "work", tmp_path / "work" / ".git", tmp_path / "data"
    hidden.mkdir(parents=True)
    (hidden / "HEAD").write_text("ref\n")
    ro.mkdir()
    (ro / "input.txt").write_text("input\n")
    confinement = Confinement(mounts=(Mount.bind(work, writable=True), Mount.empty(hidden), Mount.bind(ro)),
                              cwd=str(work))
    script = (f"echo ok > {work}/out.txt; cat {ro}/input.txt; ls -A {hidden} | wc -l; "
              f"for t in {ro}/x /usr/x /etc/x {os.path.realpath(sys.base_prefix)}/x {hidden}/x /x; do "
              "touch $t 2>/dev/null && echo WROTE $t; done; ls /")
    out = sh(script, confinement).text()
    assert (work / "out.txt").read_text() == "ok\n"
    assert "input" in out and "WROTE" not in out
    assert out.split("\n")[1].strip() == "0"  # .git is an empty folder inside
    assert (hidden / "HEAD").read_text() == "ref\n"
    python_tops = {os.path.realpath(p).split("/")[1] for p in (sys.base_prefix, sys.prefix)}  # a venv's too
    assert set(out.split("\n", 2)[2].split()) <= {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc",
                                                     "sbin", "tmp", "usr", *python_tops, work.parts[1]}


def test_system_secrets_are_masked() -> None:
    present = [p for p in ("/etc/shadow", "/etc/gshadow") if os.path.exists(p)]
    out = sh(f"for f in {' '.join(present)}; do wc -c < $f; done; ls -A /etc/ssl/private 2>/dev/null | wc -l").text()
    assert set(out.split()) <= {"0"}


def test_no_network_interfaces_but_loopback() -> None:
    out = py("import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\nexcept OSError as e:\n"
             "    print('refused', e)\nprint(sorted(n for _, n in socket.if_nameindex()))").text()
    assert "refused" in out and "['lo']" in out


def test_memory_limit() -> None:
    result = py("try:\n    bytearray(2 * 2**30)\nexcept MemoryError:\n    print('refused')",
                limits=Limits(timeout_s=10, memory_mb=256))
    assert result.text().strip() == "refused"


def test_a_fork_storm_is_bounded() -> None:
    storm = ("import os, time\nn = 0\nfor _ in range(500):\n    try:\n        pid = os.fork()\n"
             "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(5)\n        os._exit(0)\n"
             "    n += 1\nprint(n)")
    started = py(storm, limits=Limits(timeout_s=15, processes=50)).text()
    assert 10 < int(started) < 50


def test_file_size_limit() -> None:
    code = "try:\n    open('/tmp/big', 'wb').write(b'x' * (3 * 2**20))\nexcept OSError as e:\n    print('refused', e)"
    assert "refused" in py(code, limits=Limits(timeout_s=10, file_size_mb=1)).text()


def test_cpu_time_limit_kills_a_busy_loop() -> None:
    started = time.monotonic()
    result = py("while True:\n    pass", limits=Limits(timeout_s=30, cpu_s=1))
    assert result.exit_code in (-9, -24) and not result.timed_out and time.monotonic() - started < 15


def test_wall_clock_timeout() -> None:
    result = sh("sleep 60", limits=Limits(timeout_s=1))
    assert result.timed_out and result.duration_s < 5


def test_exit_status_is_reported() -> None:
    assert sh("exit 3").exit_code == 3
    assert sh("kill -TERM $$").exit_code == -15


def test_the_host_cannot_be_changed_through_proc() -> None:
    out = sh("for f in /proc/sys/kernel/core_pattern /proc/sysrq-trigger /proc/sys/vm/drop_caches; do "
             "(: > $f) 2>/dev/null && echo WRITABLE $f; done; echo checked").text()
    assert out.strip() == "checked"


def test_output_is_truncated_and_its_size_said() -> None:
    result = sh("head -c 100000 /dev/zero | tr '\\0' x", limits=Limits(timeout_s=10, output_bytes=1000))
    assert len(result.stdout) == 1000 and result.stdout_size == 100000
    assert result.text().endswith("[output truncated: 1000 of 100000 bytes shown]")


def test_every_process_has_ended_when_the_command_returns() -> None:
    marker = "4242.4242"
    sh(f"(setsid sleep {marker} &); nohup sleep {marker} > /dev/null 2>&1 & echo started")
    time.sleep(0.2)
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            alive.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        except OSError:
            continue
    assert not [c for c in alive if marker.encode() in c]


def test_a_launch_failure_is_a_confinement_error_and_output_cannot_fake_one() -> None:
    with pytest.raises(ConfinementError, match="no-such-program"):
        run_confined(["no-such-program"], Confinement(), FAST)
    result = sh("echo 'FileNotFoundError: could not start' >&2; exit 127")
    assert result.exit_code == 127


def test_without_namespaces_untrusted_code_is_refused_unless_the_user_opts_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detect, "candidates", lambda: [])
    detect._detected.cache_clear()
    monkeypatch.delenv(ALLOW_UNCONFINED_ENV, raising=False)
    try:
        with pytest.raises(ConfinementUnavailable, match=f"{ALLOW_UNCONFINED_ENV}=1") as caught:
            sh("echo hi")
        assert caught.value.fatal
        monkeypatch.setenv(ALLOW_UNCONFINED_ENV, "1")
        result = sh("echo hi")
        assert result.text() == "hi\n" and result.backend == "unconfined"
    finally:
        detect._detected.cache_clear()
