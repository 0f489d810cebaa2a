"""The attacks on the grader listed in issue 9, as a HumanEval completion would try them: none may pass or escape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import agent_evolve
from agent_evolve.benchmarks.adapters.humaneval import HumanEvalBenchmark
from agent_evolve.types import Feedback, Trajectory

WRONG = "    return False\n"
RIGHT = "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"


def completion(attack: str, ending: str) -> str:
    """The entry point running `attack` when the tests first call it (module-level statements are not kept)."""
    body = "".join(f"    {line}\n" for line in attack.splitlines())
    return f"def has_close_elements(numbers, threshold):\n{body}{ending}"


@pytest.fixture(scope="module")
def bench() -> HumanEvalBenchmark:
    return HumanEvalBenchmark(timeout_s=10.0)


def grade(bench: HumanEvalBenchmark, code: str) -> Feedback:
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "HumanEval/0")
    return bench.evaluate(task, Trajectory(task_id=task.id, output=f"```python\n{code}```"))


def test_a_forged_ok_report_through_proc_self_fd_and_os_exit_fails(bench: HumanEvalBenchmark) -> None:
    forge = (
        "import os\n"
        "for name in os.listdir('/proc/self/fd'):\n"
        "    for report in (b'{\"status\": \"ok\"}',):\n"
        "        try:\n"
        "            os.write(int(name), report)\n"
        "        except OSError:\n"
        "            pass\n"
        "os._exit(0)\n"
    )
    feedback = grade(bench, completion(forge, WRONG))
    assert not feedback.success and feedback.score == 0.0


def test_objects_that_equal_everything_and_patched_builtins_do_not_pass(bench: HumanEvalBenchmark) -> None:
    cheat = (
        "import builtins, sys\n"
        "class Anything:\n"
        "    def __eq__(self, other):\n"
        "        return True\n"
        "    def __bool__(self):\n"
        "        return True\n"
        "    def __repr__(self):\n"
        "        return 'Anything()'\n"
        "builtins.AssertionError = type('Never', (Exception,), {})\n"
        "sys.exit = lambda *args: None\n"
        "def has_close_elements(numbers, threshold):\n"
        "    return Anything()\n"
    )
    feedback = grade(bench, cheat)
    assert not feedback.success
    assert "not plain data" in feedback.detail


def grade_in_helper(code: str, env: dict[str, str] | None = None) -> dict:
    """Grade `code` for HumanEval/0 in a fresh helper process (the grader's parent), with `env` added at its start."""
    helper = (
        "import json, sys\n"
        "from agent_evolve.benchmarks.adapters.humaneval import HumanEvalBenchmark\n"
        "from agent_evolve.types import Trajectory\n"
        "bench = HumanEvalBenchmark(timeout_s=10.0)\n"
        "task = [t for t in bench.get_tasks('train', None) + bench.get_tasks('test', None) if t.id == 'HumanEval/0'][0]\n"
        "output = '```python\\n' + sys.stdin.read() + '```'\n"
        "feedback = bench.evaluate(task, Trajectory(task_id=task.id, output=output))\n"
        "print(json.dumps({'success': feedback.success, 'detail': feedback.detail, 'raw': feedback.raw}))\n"
    )
    package_root = Path(agent_evolve.__file__).resolve().parents[1]
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(package_root), *sys.path])}
    run = subprocess.run([sys.executable, "-c", helper], input=code, capture_output=True, text=True, timeout=120,
                         env=full_env)
    assert run.returncode == 0, f"the grading process died ({run.returncode}): {run.stderr[-2000:]}"
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_the_parents_environment_cannot_be_read() -> None:
    steal = (
        "import os, sys\n"
        "def environ(pid):\n"
        "    try:\n"
        "        return open(f'/proc/{pid}/environ', 'rb').read().decode(errors='replace')\n"
        "    except OSError as exc:\n"
        "        return repr(exc)\n"
        "print(' '.join(environ(pid) for pid in os.listdir('/proc') if pid.isdigit())[-1000:], file=sys.stderr)\n"
        "print(dict(os.environ), environ(os.getppid()))\n"
    )
    graded = grade_in_helper(completion(steal, RIGHT), {"OPENAI_API_KEY": "sk-grader-secret-0123456789"})
    assert graded["success"], graded["detail"]  # it ran, and still saw nothing
    assert "sk-grader-secret" not in json.dumps(graded)


def test_the_grading_process_cannot_be_signalled() -> None:
    """The completion SIGKILLs its parent, the grading process, through a pidfd."""
    kill = (
        "import os, signal\n"
        "try:\n"
        "    signal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)\n"
        "except OSError:\n"
        "    pass\n"
    )
    assert grade_in_helper(completion(kill, RIGHT))["success"]


@pytest.mark.parametrize("attack", ["dir_fd", "fork_exec", "audit_hook_closure"])
def test_writing_outside_the_temporary_directory_fails(bench: HumanEvalBenchmark, tmp_path: Path,
                                                       attack: str) -> None:
    target = tmp_path / "pwned.txt"
    relative = str(target).lstrip("/")
    code = {
        "dir_fd": (
            "import os\n"
            "root = os.open('/', os.O_RDONLY)\n"
            f"os.close(os.open({relative!r}, os.O_WRONLY | os.O_CREAT, dir_fd=root))\n"
        ),
        "fork_exec": (
            "import _posixsubprocess, os\n"
            "r, w = os.pipe()\n"
            f"_posixsubprocess.fork_exec([b'/bin/sh', b'-c', b'echo x > {target}'], [b'/bin/sh'], True, (w,), None,"
            " None, -1, -1, -1, -1, -1, -1, r, w, False, False, -1, None, None, None, -1, None, False)\n"
            "os.close(w)\n"
            "os.read(r, 100)\n"
            "os.waitpid(-1, 0)\n"
        ),
        "audit_hook_closure": (
            "import gc, types\n"
            "for f in gc.get_objects():\n"
            "    if isinstance(f, types.FunctionType) and f.__closure__:\n"
            "        for cell in f.__closure__:\n"
            "            try:\n"
            "                if isinstance(cell.cell_contents, str):\n"
            "                    cell.cell_contents = ''\n"
            "            except ValueError:\n"
            "                pass\n"
            f"open({str(target)!r}, 'w').write('x')\n"
        ),
    }[attack]
    guarded = "try:\n" + "".join(f"    {line}\n" for line in code.splitlines()) + "except Exception:\n    pass\n"
    grade(bench, completion(guarded, RIGHT))
    assert not target.exists()
