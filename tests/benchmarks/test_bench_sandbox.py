"""The grading sandbox: the verdict comes only from the tests' process; limits hold; safe from many threads."""

from __future__ import annotations

import resource
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent_evolve.benchmarks.support.sandbox import SandboxLimits, run_tests

FAST = SandboxLimits(timeout_s=5.0)
DOUBLE = "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-1) == -2\n"


def grade(program: str, tests: str = DOUBLE, limits: SandboxLimits = FAST):
    return run_tests(program, tests, "double", limits)


def test_a_right_program_passes_and_its_output_is_kept() -> None:
    result = grade("print('hello from the sandbox')\ndef double(x):\n    return 2 * x\n")
    assert result.passed and not result.timed_out and result.error_type is None
    assert "hello from the sandbox" in result.stdout
    assert result.isolation == "namespaces"


def test_a_failing_assertion_names_the_line_of_the_tests() -> None:
    result = grade("def double(x):\n    return x + 2\n")
    assert not result.passed
    assert (result.error_type, result.error_where, result.error_line) == ("AssertionError", "tests", 3)


def test_an_exception_in_the_candidate_names_its_type_and_line() -> None:
    result = grade("def double(x):\n    y = 1\n    return x / 0\n")
    assert not result.passed
    assert (result.error_type, result.error_where, result.error_line) == ("ZeroDivisionError", "candidate", 3)
    assert "ZeroDivisionError" in result.stderr


def test_a_program_that_fails_to_load_fails() -> None:
    for program, error in (("def double(x:\n", "SyntaxError"), ("raise KeyError('k')\n", "KeyError"),
                           ("import sys\nsys.exit(0)\n", "SystemExit"), ("x = 1\n", "KeyError")):
        result = grade(program)
        assert not result.passed and result.error_type == error, program


def test_leaving_early_does_not_pass() -> None:
    for body in ("import os\n    os._exit(0)", "import sys\n    sys.exit(0)", "raise SystemExit(0)"):
        result = grade(f"def double(x):\n    {body}\n")
        assert not result.passed, body


def test_only_plain_values_come_back() -> None:
    program = "class Four:\n    def __eq__(self, other):\n        return True\ndef double(x):\n    return Four()\n"
    result = grade(program)
    assert not result.passed and result.error_type == "InvalidReply"
    for value in ("[1, (2, 3.5), {'a': None}, {4}, b'x', True]", "float('nan')"):
        tests = f"def check(candidate):\n    assert repr(candidate(0)) == repr({value})\n"
        assert grade(f"def double(x):\n    return {value}\n", tests).passed == (value != "float('nan')"), value


def test_an_endless_loop_times_out_within_the_limit() -> None:
    result = grade("def double(x):\n    while True:\n        pass\n", limits=SandboxLimits(timeout_s=1.5))
    assert result.timed_out and not result.passed
    assert 1.5 <= result.duration_s < 4.0


def test_sleeping_past_the_limit_times_out_too() -> None:
    result = grade("import time\ntime.sleep(60)\n", limits=SandboxLimits(timeout_s=1.0))
    assert result.timed_out and result.duration_s < 4.0


@pytest.mark.parametrize("code", [
    "import socket\n    socket.create_connection(('1.1.1.1', 80), timeout=1)",
    "import urllib.request\n    urllib.request.urlopen('http://example.com', timeout=1)",
    "import socket\n    socket.getaddrinfo('example.com', 80)",
])
def test_there_is_no_network(code: str) -> None:
    result = grade(f"def double(x):\n    {code}\n    return 2 * x\n")
    assert not result.passed and result.error_where == "candidate"
    assert result.error_type in ("OSError", "URLError", "gaierror", "ConnectionRefusedError"), result.error_type


def test_local_socketpairs_and_subprocesses_still_work() -> None:
    program = ("import asyncio, subprocess\ndef double(x):\n    async def f():\n        return 2 * x\n"
               "    assert subprocess.run(['true']).returncode == 0\n    return asyncio.run(f())\n")
    result = grade(program)
    assert result.passed, (result.error_type, result.error_message)


def test_writing_outside_the_work_directory_has_no_effect(tmp_path: Path) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("original")
    for code in (f"open({str(tmp_path / 'escaped.txt')!r}, 'w').write('x')", f"open({str(keep)!r}, 'a').write('x')",
                 f"import shutil\n    shutil.rmtree({str(tmp_path)!r})", "open('/usr/escaped.txt', 'w')"):
        grade(f"def double(x):\n    try:\n        {code}\n    except OSError:\n        pass\n    return 2 * x\n")
    assert keep.read_text() == "original" and sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
    assert not Path("/usr/escaped.txt").exists()


def test_files_inside_the_work_directory_are_fine_and_removed_afterwards() -> None:
    program = ("import os, tempfile\nopen('a.txt', 'w').write('x')\nos.mkdir('d')\nos.rename('a.txt', 'd/b.txt')\n"
               "fd, name = tempfile.mkstemp()\nos.close(fd)\nprint(os.getcwd())\n"
               "def double(x):\n    return 2 * x\n")
    result = grade(program)
    assert result.passed, result.error_message
    workdir = Path(result.stdout.strip())
    assert workdir.name == "work" and not workdir.exists()


def test_the_work_directory_is_bounded_scratch_that_never_reaches_the_disk() -> None:
    program = ("import os\ndef double(x):\n    try:\n        for i in range(20):\n"
               "            open(f'f{i}', 'wb').write(b'x' * 8 * 2**20)\n    except OSError as exc:\n"
               "        return str(exc)\n    return 2 * x\n")
    result = grade(program, "def check(candidate):\n    assert 'No space left' in candidate(1)\n")
    assert result.passed, result.error_message


def test_a_memory_bomb_fails_without_hurting_this_process() -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    for body in ("x = bytearray(16 * 2**30)", "chunks = []\n    while True:\n        chunks.append(bytearray(50 * 2**20))"):
        result = grade(f"def double(x):\n    {body}\n", limits=SandboxLimits(timeout_s=20.0, memory_mb=256))
        assert not result.passed and not result.timed_out
        assert result.error_type == "MemoryError"
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert len(bytearray(64 * 2**20)) == 64 * 2**20


def test_the_environment_is_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVOLVE_TEST_SECRET", "hunter2")
    result = grade("import os\nprint(sorted(os.environ.items()))\ndef double(x):\n    return 2 * x\n")
    assert result.passed and "hunter2" not in result.stdout
    assert "AGENT_EVOLVE_TEST_SECRET" not in result.stdout


def test_output_floods_are_cut() -> None:
    program = "def double(x):\n    for i in range(10**7):\n        print('line', i)\n    return 2 * x\n"
    result = grade(program, limits=SandboxLimits(timeout_s=5.0, max_output_mb=1))
    assert not result.passed
    assert len(result.stdout) <= FAST.tail_chars


def test_code_runs_as_main_in_its_own_module() -> None:
    program = ("import sys\nclass Point:\n    pass\nassert sys.modules['__main__'].Point is Point\nprint(__name__)\n"
               "def double(x):\n    return 2 * x\n")
    result = grade(program)
    assert result.passed and result.stdout.strip() == "__main__"


def test_the_tests_are_not_visible_to_the_candidate() -> None:
    program = ("import os\ndef double(x):\n    root = os.path.dirname(os.path.dirname(__file__))\n"  # the grading folder
               "    seen = [f for d, _, fs in os.walk(root) for f in fs]\n"
               "    return 2 * x if seen == ['program.py'] else 0\n")
    assert grade(program).passed


def test_many_threads_get_their_own_runs() -> None:
    def run(index: int) -> tuple[int, str, bool]:
        result = grade(f"print({index})\ndef double(x):\n    return 2 * x\n")
        return index, result.stdout.strip(), result.passed

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(run, range(12)))
    assert all(passed and out == str(index) for index, out, passed in results)


def test_without_confinement_grading_is_refused_unless_the_user_opts_in(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_evolve.environments import ALLOW_UNCONFINED_ENV, ConfinementUnavailable, detect

    monkeypatch.setattr(detect, "candidates", lambda: [])
    monkeypatch.delenv(ALLOW_UNCONFINED_ENV, raising=False)
    detect._detected.cache_clear()
    try:
        with pytest.raises(ConfinementUnavailable, match="refusing to run untrusted code"):
            grade("def double(x):\n    return 2 * x\n")
        monkeypatch.setenv(ALLOW_UNCONFINED_ENV, "1")
        result = grade("def double(x):\n    return 2 * x\n")
        assert result.passed and result.isolation == "unconfined"
    finally:
        detect._detected.cache_clear()
