"""The sandbox: limits hold, refusals leave no trace, and it is safe from many threads."""

from __future__ import annotations

import os
import resource
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent_evolve.benchmarks.sandbox import SandboxLimits, network_namespace_prefix, run_python

FAST = SandboxLimits(timeout_s=5.0)


def test_a_clean_program_passes_and_its_output_is_kept() -> None:
    result = run_python("print('hello from the sandbox')", FAST)
    assert result.passed and result.exit_code == 0 and not result.timed_out
    assert "hello from the sandbox" in result.stdout
    assert result.error_type is None and result.violations == []


def test_an_exception_fails_and_names_its_type_and_line() -> None:
    result = run_python("x = 1\nassert x == 2, 'x is wrong'\n", FAST)
    assert not result.passed
    assert (result.error_type, result.error_message, result.error_line) == ("AssertionError", "x is wrong", 2)
    assert "AssertionError" in result.stderr


def test_an_endless_loop_times_out_within_the_limit() -> None:
    result = run_python("while True:\n    pass\n", SandboxLimits(timeout_s=1.5))
    assert result.timed_out and not result.passed
    assert 1.5 <= result.duration_s < 4.0


def test_sleeping_past_the_limit_times_out_too() -> None:
    result = run_python("import time\ntime.sleep(60)\n", SandboxLimits(timeout_s=1.0))
    assert result.timed_out and result.duration_s < 4.0


@pytest.mark.parametrize(
    "code",
    [
        "import socket\nsocket.create_connection(('127.0.0.1', 80), timeout=1)",
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM)",
        "import _socket\ns = _socket.socket(2, 1)",
        "import urllib.request\nurllib.request.urlopen('http://example.com', timeout=1)",
        "import socket\nsocket.getaddrinfo('example.com', 80)",
    ],
)
def test_network_use_fails_by_the_python_guard_alone(code: str) -> None:
    result = run_python(code, SandboxLimits(timeout_s=5.0, network_namespace=False))
    assert not result.passed and result.isolation == "audit-hook"
    assert result.error_type == "PermissionError"
    assert any("network" in violation for violation in result.violations)


def test_a_network_namespace_is_added_where_the_os_allows() -> None:
    result = run_python("print('ok')", FAST)
    assert result.passed
    assert result.isolation == ("audit-hook+netns" if network_namespace_prefix() else "audit-hook")


def test_local_socketpairs_still_work_for_asyncio() -> None:
    result = run_python("import asyncio\nasync def f():\n    return 3\nassert asyncio.run(f()) == 3\n", FAST)
    assert result.passed, result.stderr


def test_writing_outside_the_temp_directory_fails_without_effect(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    for code in (
        f"open({str(target)!r}, 'w').write('x')",
        f"import os\nos.close(os.open({str(target)!r}, os.O_WRONLY | os.O_CREAT))",
        f"import pathlib\npathlib.Path({str(target)!r}).write_text('x')",
        f"import os\nos.symlink({str(target)!r}, 'link')\nopen('link', 'w').write('x')",
        f"import os\nos.mkdir({str(tmp_path / 'newdir')!r})",
    ):
        result = run_python(code, FAST)
        assert not result.passed and result.error_type == "PermissionError", code
        assert result.violations, code
    assert not target.exists()
    assert not (tmp_path / "newdir").exists()


def test_changing_existing_files_outside_fails_without_effect(tmp_path: Path) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("original")
    for code in (
        f"import os\nos.remove({str(keep)!r})",
        f"import os\nos.rename({str(keep)!r}, 'stolen.txt')",
        f"open({str(keep)!r}, 'a').write('more')",
        f"import os\nos.truncate({str(keep)!r}, 0)",
        f"import shutil\nshutil.rmtree({str(tmp_path)!r})",
        f"import os\nos.link({str(keep)!r}, 'hard')\nopen('hard', 'w').write('x')",
    ):
        result = run_python(code, FAST)
        assert not result.passed, code
    assert keep.read_text() == "original"


def test_files_inside_the_temp_directory_are_fine_and_removed_afterwards() -> None:
    code = (
        "import os, tempfile, json\n"
        "open('a.txt', 'w').write('x')\n"
        "os.mkdir('d')\nos.rename('a.txt', 'd/b.txt')\nos.remove('d/b.txt')\n"
        "fd, name = tempfile.mkstemp()\nos.close(fd)\n"
        "print(json.dumps(os.getcwd()))\n"
    )
    result = run_python(code, FAST)
    assert result.passed, result.stderr
    workdir = Path(result.stdout.strip().strip('"'))
    assert workdir.name == "work" and not workdir.exists()


def test_a_memory_bomb_fails_without_hurting_this_process() -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    for code in ("x = bytearray(16 * 2**30)", "chunks = []\nwhile True:\n    chunks.append(bytearray(50 * 2**20))"):
        result = run_python(code, SandboxLimits(timeout_s=20.0, memory_mb=256))
        assert not result.passed and not result.timed_out
        assert result.error_type == "MemoryError"
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert len(bytearray(64 * 2**20)) == 64 * 2**20  # the test process can still allocate


def test_processes_ctypes_and_limit_changes_are_refused() -> None:
    for code in (
        "import subprocess\nsubprocess.run(['true'])",
        "import os\nos.system('true')",
        "import os\nos.fork()",
        "import ctypes",
        "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))",
        f"import os\nos.kill({os.getpid()}, 0)",  # signal 0 only probes, so a failing guard harms nothing
    ):
        result = run_python(code, FAST)
        assert not result.passed and result.error_type == "PermissionError", code


def test_leaving_early_does_not_pass() -> None:
    for code in ("import sys\nsys.exit(0)", "import os\nos._exit(0)", "exit()"):
        result = run_python(code + "\nraise AssertionError('unreachable')", FAST)
        assert not result.passed, code


def test_the_environment_is_stripped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVOLVE_TEST_SECRET", "hunter2")
    result = run_python("import os\nprint(sorted(os.environ))", FAST)
    assert result.passed
    assert "AGENT_EVOLVE_TEST_SECRET" not in result.stdout
    assert "hunter2" not in result.stdout


def test_output_floods_are_cut_to_a_tail() -> None:
    result = run_python("for i in range(10**7):\n    print('line', i)", SandboxLimits(timeout_s=5.0, max_output_mb=1))
    assert not result.passed
    assert len(result.stdout) <= FAST.tail_chars


def test_code_runs_as_main_in_its_own_module() -> None:
    code = "import sys\nclass Point:\n    pass\nassert sys.modules['__main__'].Point is Point\nprint(__name__)"
    result = run_python(code, FAST)
    assert result.passed and result.stdout.strip() == "__main__"


def test_many_threads_get_their_own_runs() -> None:
    def run(index: int) -> tuple[int, str, bool]:
        result = run_python(f"import time\ntime.sleep(0.05)\nprint({index})", FAST)
        return index, result.stdout.strip(), result.passed

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(run, range(12)))
    assert all(passed and out == str(index) for index, out, passed in results)
