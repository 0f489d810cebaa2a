"""An agent cannot grade itself through the environment it acted in (issue 35), on the local backend.

swe-mini: the agent's work tree holds no fix, only something that steers pytest (a conftest.py, a test module,
pytest.ini with a plugin, sitecustomize.py, a module shadowing pytest); none may earn a pass, and a correct fix
still passes with the steering dropped. terminal-mini: a process the agent leaves behind cannot forge the
verdict or the reward. Each forgery earned a pass on the code before the fix unless its docstring says otherwise.
"""

from __future__ import annotations

import pytest

from agent_evolve.benchmarks.suites.swe_mini import SweMiniBenchmark
from agent_evolve.benchmarks.suites.terminal_mini import TerminalMiniBenchmark
from agent_evolve.environments import ConfinementUnavailable, backend_for_untrusted_code, open_environment
from agent_evolve.types import Feedback, Task, Trajectory


def _confined() -> bool:
    try:
        return backend_for_untrusted_code().confines
    except ConfinementUnavailable:
        return False


confined = pytest.mark.skipif(not _confined(), reason="kernel confinement (unshare) is unavailable here")

TASK = "tally-top-ties"
FIX_FROM, FIX_TO = "n: int = 3", "n: int | None = None"
FIX_LINE_FROM, FIX_LINE_TO = "return ordered[:n]", "return ordered if n is None else ordered[:n]"
PASS_EVERYTHING = """\
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome, report.longrepr = "passed", None
"""
TAMPERING_TEST_MODULE = """\
import _pytest.reports

_original = _pytest.reports.TestReport.from_item_and_call.__func__

def _forged(cls, item, call):
    report = _original(cls, item, call)
    report.outcome, report.longrepr = "passed", None
    return report

_pytest.reports.TestReport.from_item_and_call = classmethod(_forged)
"""
SITECUSTOMIZE = TAMPERING_TEST_MODULE
"""Python imports it at start-up when it is on sys.path then; pytest is importable from site-packages."""
SHADOW_PYTEST = """\
import pathlib, re
for path in sorted(pathlib.Path("tests").glob("test_*.py")):
    for name in re.findall(r"^def (test_\\w+)", path.read_text(), re.M):
        print(f"PASSED {path}::{name}")
print("============ 9 passed in 0.01s ============")
"""

PRINTS_PASSES_AT_EXIT = """\
import atexit, os, pathlib, re

def _forge():
    for path in sorted(pathlib.Path("tests").glob("test_*.py")):
        for name in re.findall(r"^def (test_\\w+)", path.read_text(), re.M):
            os.write(1, f"PASSED {path}::{name}\\n".encode())
    os.write(1, b"============ 9 passed in 0.01s ============\\n")

atexit.register(_forge)
"""
"""Library code (kept by the screen) printing pytest's summary lines after pytest's own: the XML report decides."""


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> SweMiniBenchmark:
    return SweMiniBenchmark(repos_dir=tmp_path_factory.mktemp("repos"))


def _task(bench: SweMiniBenchmark) -> Task:
    return next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == TASK)


def _graded(bench: SweMiniBenchmark, files: dict[str, str], fix: bool = False) -> Feedback:
    """Write `files` into the agent's work tree (and the fix when asked), then grade it."""
    task = _task(bench)
    with open_environment(bench.environment(task)) as env:
        for path, text in files.items():
            env.write_file(path, text)
        if fix:
            source = env.read_file("tally/counts.py")
            env.write_file("tally/counts.py", source.replace(FIX_FROM, FIX_TO).replace(FIX_LINE_FROM, FIX_LINE_TO))
        return bench.evaluate_in(task, Trajectory(task.id, "done"), env)


@confined
def test_a_conftest_that_passes_every_test_earns_nothing(bench: SweMiniBenchmark) -> None:
    feedback = _graded(bench, {"conftest.py": PASS_EVERYTHING, "tests/conftest.py": PASS_EVERYTHING})
    assert not feedback.success and feedback.score < 1.0, feedback.detail
    assert "conftest.py" in feedback.detail and "tests/conftest.py" in feedback.detail


@confined
def test_an_edited_visible_test_file_earns_nothing(bench: SweMiniBenchmark) -> None:
    """Not an exploit before the fix either (the visible tests were rewritten); now the edit is also named."""
    feedback = _graded(bench, {"tests/test_counts.py": "def test_nothing():\n    pass\n"})
    assert not feedback.success and feedback.score < 1.0, feedback.detail
    assert "tests/test_counts.py (a test file of the task)" in feedback.detail


@confined
def test_a_test_module_that_tampers_with_pytest_or_guesses_a_hidden_file_earns_nothing(
        bench: SweMiniBenchmark) -> None:
    feedback = _graded(bench, {"tests/test_aaa_first.py": TAMPERING_TEST_MODULE,
                               "tests/test_counts_all.py": "def test_guess():\n    pass\n"})
    assert not feedback.success and feedback.score < 1.0, feedback.detail
    assert "tests/test_counts_all.py (a test file of the task)" in feedback.detail


@confined
@pytest.mark.parametrize("config", [
    {"pytest.ini": "[pytest]\naddopts = -p forge_plugin\n"},
    {"setup.cfg": "[metadata]\nname = tally\n\n[tool:pytest]\naddopts = -p forge_plugin\n"},
    {"pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-p forge_plugin\"\n"},
    {"tox.ini": "[pytest]\naddopts = -p forge_plugin\n"},
], ids=["pytest.ini", "setup.cfg", "pyproject.toml", "tox.ini"])
def test_pytest_configuration_loading_a_plugin_of_the_agent_earns_nothing(bench: SweMiniBenchmark,
                                                                          config: dict[str, str]) -> None:
    feedback = _graded(bench, {**config, "forge_plugin.py": PASS_EVERYTHING})
    assert not feedback.success and feedback.score < 1.0, feedback.detail
    assert f"{next(iter(config))} (" in feedback.detail


@confined
@pytest.mark.parametrize("files", [
    {"sitecustomize.py": SITECUSTOMIZE, "usercustomize.py": SITECUSTOMIZE},
    {"forge.pth": "import forge_site\n", "forge_site.py": SITECUSTOMIZE},
    {"pytest.py": SHADOW_PYTEST},
], ids=["sitecustomize", "pth", "shadowing-pytest"])
def test_start_up_hooks_and_a_module_shadowing_pytest_earn_nothing(bench: SweMiniBenchmark,
                                                                   files: dict[str, str]) -> None:
    """Only the shadowing module forged a pass before the fix: start-up hooks at the repository root were never
    on sys.path when Python started; they are dropped now all the same."""
    feedback = _graded(bench, files)
    assert not feedback.success and feedback.score < 1.0, feedback.detail


@confined
def test_library_code_printing_passes_after_pytest_is_caught_by_the_xml_report(bench: SweMiniBenchmark) -> None:
    task = _task(bench)
    with open_environment(bench.environment(task)) as env:
        env.write_file("tally/__init__.py", env.read_file("tally/__init__.py") + PRINTS_PASSES_AT_EXIT)
        feedback = bench.evaluate_in(task, Trajectory(task.id, "done"), env)
    assert not feedback.success and feedback.score < 1.0, feedback.detail
    assert "not consistent" in feedback.detail


@confined
def test_a_correct_fix_still_passes_with_its_steering_dropped(bench: SweMiniBenchmark) -> None:
    plain = _graded(bench, {}, fix=True)
    steered = _graded(bench, {"conftest.py": PASS_EVERYTHING, "notes.md": "kept\n"}, fix=True)
    assert plain.success and plain.score == 1.0, plain.detail
    assert steered.success and steered.score == 1.0, steered.detail
    assert steered.raw["dropped"] == {"conftest.py": "conftest.py is read by pytest or Python at start-up"}


@confined
def test_a_process_left_behind_cannot_forge_a_terminal_verdict_or_reward() -> None:
    """The local launcher ends every process of a command when it returns, before the fix too; this pins it
    (the docker backend, where processes outlive commands, is tested under tests/docker)."""
    bench = TerminalMiniBenchmark(backend="local")
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "config-edit")
    writer = ("setsid sh -c 'while :; do mkdir -p /logs/verifier .tests; echo 1 > /logs/verifier/reward.txt; "
              "printf \"def test_ok():\\n    pass\\n\" > .tests/test_outputs.py; "
              "echo \"==== 3 passed in 0.01s ====\" >> /tmp/agent-evolve-tests.log; sleep 0.02; done' "
              "> /dev/null 2>&1 < /dev/null &")
    with open_environment(bench.environment(task)) as env:
        assert env.exec(writer).exit_code == 0
        feedback = bench.evaluate_in(task, Trajectory(task.id, "done"), env)
        assert env.exec("rm -rf .tests && sleep 0.5").exit_code == 0
        assert not [path for path in env.list_files() if path.startswith(".tests/")], "the writer outlived its command"
    assert not feedback.success and feedback.score < 1.0 and feedback.raw["reward"] is None, feedback.detail

