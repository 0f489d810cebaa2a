"""Screening an agent's diff before grading, and reading pytest's JUnit XML report (pure functions, no pytest run)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_evolve.benchmarks.support.patch import parse_file_patches
from agent_evolve.benchmarks.support.patch_screen import apply_file_patch, screen_patch
from agent_evolve.benchmarks.support.pytest_output import (ReportError, disagreement, parse_junit_report,
                                                          parse_pytest_output)
from agent_evolve.benchmarks.adapters.swe_verified import SweVerifiedBenchmark
from agent_evolve.types import Task, Trajectory

LIBRARY = "--- a/lib/core.py\n+++ b/lib/core.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
SETUP_CFG = "[metadata]\nname = lib\nversion = 1.0\n\n[tool:pytest]\ntestpaths = tests\nfiller = 1\n"


def _new_file(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n{body}")


def _keys(patch: str) -> list[str]:
    return [fp.key for fp in parse_file_patches(patch)]


@pytest.mark.parametrize("path", ["conftest.py", "pkg/sub/conftest.py", "pytest.ini", ".pytest.ini",
                                  "sitecustomize.py", "lib/usercustomize.py", "evil.pth", "setup.py",
                                  "lib.egg-info/entry_points.txt", "tests/test_core.py", "tests", ".git/config"])
def test_test_infrastructure_is_dropped_and_named(path: str) -> None:
    screened = screen_patch(LIBRARY + _new_file(path, "x = 1\n"), {"tests/test_core.py"}, lambda p: None)
    assert _keys(screened.patch) == ["lib/core.py"] and list(screened.dropped) == [path]
    assert path in screened.note()


def test_a_setup_cfg_change_outside_pytest_sections_is_kept_and_inside_is_dropped() -> None:
    base = {"setup.cfg": SETUP_CFG}
    outside = ("--- a/setup.cfg\n+++ b/setup.cfg\n@@ -1,3 +1,3 @@\n [metadata]\n name = lib\n-version = 1.0\n"
               "+version = 1.1\n")
    inside = ("--- a/setup.cfg\n+++ b/setup.cfg\n@@ -5,3 +5,4 @@\n [tool:pytest]\n testpaths = tests\n filler = 1\n"
              "+addopts = -p forge\n")
    far = "--- a/setup.cfg\n+++ b/setup.cfg\n@@ -6,2 +6,3 @@\n testpaths = tests\n filler = 1\n+addopts = -p forge\n"
    assert list(screen_patch(outside, set(), base.get).dropped) == []
    assert list(screen_patch(inside, set(), base.get).dropped) == ["setup.cfg"]
    assert list(screen_patch(far, set(), base.get).dropped) == ["setup.cfg"], "the section header is out of the hunk"
    assert list(screen_patch(outside, set()).dropped) == ["setup.cfg"], "without the base, the whole file goes"


def test_pyproject_entry_points_and_pytest_tables_are_dropped() -> None:
    base = "[project]\nname = 'lib'\n"
    plugin = ("--- a/pyproject.toml\n+++ b/pyproject.toml\n@@ -1,2 +1,5 @@\n [project]\n name = 'lib'\n+\n"
              "+[project.entry-points.pytest11]\n+f = 'forge'\n")
    dependency = ("--- a/pyproject.toml\n+++ b/pyproject.toml\n@@ -1,2 +1,3 @@\n [project]\n name = 'lib'\n"
                  "+version = '2'\n")
    assert list(screen_patch(plugin, set(), {"pyproject.toml": base}.get).dropped) == ["pyproject.toml"]
    assert list(screen_patch(dependency, set(), {"pyproject.toml": base}.get).dropped) == []


def test_what_is_applied_is_rebuilt_from_what_was_screened() -> None:
    smuggled = ("--- a/lib/core.py\n+++ b/lib/core.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
                "--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1 @@\n+import forge\n")
    renamed = ("diff --git a/lib/core.py b/lib/core.py\nrename from lib/core.py\nrename to conftest.py\n"
               "--- a/lib/core.py\n+++ b/lib/core.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n")
    link = _new_file("lib/link.py", "../tests/test_core.py").replace("100644", "120000")
    assert _keys(screen_patch(smuggled, set(), lambda p: None).patch) == ["lib/core.py"]
    assert "conftest.py" not in screen_patch(renamed, set(), lambda p: None).patch
    assert screen_patch(link, set(), lambda p: None).dropped == {"lib/link.py": "a symbolic link"}


def test_a_diff_is_applied_in_python_exactly_or_not_at_all() -> None:
    (patch,) = parse_file_patches(LIBRARY)
    assert apply_file_patch("def f():\n    return 1\n", patch) == "def f():\n    return 2\n"
    assert apply_file_patch("def f():\n    return 3\n", patch) is None


def _xml(cases: str) -> str:
    return f'<?xml version="1.0"?><testsuites><testsuite name="pytest">{cases}</testsuite></testsuites>'


CASES = ('<testcase classname="tests.test_a" name="test_p" file="tests/test_a.py"/>'
         '<testcase classname="tests.test_a.TestK" name="test_m[1]" file="tests/test_a.py"/>'
         '<testcase classname="tests.test_a" name="test_f" file="tests/test_a.py"><failure message="assert 0"/>'
         '</testcase><testcase classname="tests.test_a" name="test_x" file="tests/test_a.py">'
         '<skipped type="pytest.xfail" message=""/></testcase>'
         '<testcase classname="tests.test_a" name="test_s" file="tests/test_a.py"><skipped message="no"/></testcase>'
         '<testcase classname="" name="tests.test_b" file="tests/test_b.py"><error message="collection failure"/>'
         '</testcase>')
CONSOLE = ("PASSED tests/test_a.py::test_p\nPASSED tests/test_a.py::TestK::test_m[1]\n"
           "SKIPPED [1] tests/test_a.py:9: no\n"
           "XFAIL tests/test_a.py::test_x\nERROR tests/test_b.py\nFAILED tests/test_a.py::test_f - assert 0\n"
           "==== 1 failed, 2 passed, 1 skipped, 1 xfailed, 1 error in 0.05s ====\n")


def test_the_xml_report_gives_node_ids_and_statuses() -> None:
    report = parse_junit_report(_xml(CASES))
    assert report.tests == {"tests/test_a.py::test_p": "passed", "tests/test_a.py::TestK::test_m[1]": "passed",
                            "tests/test_a.py::test_f": "failed", "tests/test_a.py::test_x": "xfailed",
                            "tests/test_a.py::test_s": "skipped", "tests/test_b.py": "error"}
    assert report.reasons["tests/test_a.py::test_f"] == "assert 0"
    assert disagreement(report, parse_pytest_output(CONSOLE), 1) is None


def test_a_console_that_differs_from_the_report_is_named() -> None:
    report = parse_junit_report(_xml(CASES))
    printed_later = CONSOLE + "PASSED tests/test_a.py::test_f\n===== 4 passed in 0.01s =====\n"
    assert "test_f" in str(disagreement(report, parse_pytest_output(printed_later), 1))
    clean = parse_junit_report(_xml('<testcase classname="t" name="test_p" file="t.py"/>'))
    console = parse_pytest_output("PASSED t.py::test_p\n==== 1 passed in 0.01s ====\n")
    assert disagreement(clean, console, 0) is None and "exited with 1" in str(disagreement(clean, console, 1))
    assert "no closing summary" in str(disagreement(clean, parse_pytest_output("PASSED t.py::test_p\n"), 0))
    spaced = parse_junit_report(_xml('<testcase classname="t" name="test_p" file="t.py"/>'
                                     '<testcase classname="t" name="test_q[a b]" file="t.py"/>'))
    shown = parse_pytest_output("PASSED t.py::test_p\nPASSED t.py::test_q[a b]\n==== 2 passed in 0.01s ====\n")
    assert disagreement(spaced, shown, 0) is None


@pytest.mark.parametrize("text", ["", "<testsuites>", "<html/>", "<a>" + "x" * (9 * 2**20) + "</a>"])
def test_a_missing_or_foreign_report_is_refused(text: str) -> None:
    with pytest.raises(ReportError):
        parse_junit_report(text)


def test_swe_verified_sends_the_harness_the_diff_without_test_infrastructure(
        fixtures: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = SweVerifiedBenchmark(data_path=str(fixtures / "swe_verified" / "instances.jsonl"), test_fraction=0.5)
    seen: dict[str, Any] = {}

    def fake_run(command: list[str], cwd: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        seen["prediction"] = json.loads((Path(cwd) / "predictions.jsonl").read_text())
        run_id = command[command.index("--run_id") + 1]
        folder = Path(cwd) / "logs" / "run_evaluation" / run_id / "agent-evolve" / "psf__requests-5414"
        folder.mkdir(parents=True)
        shutil.copy(fixtures / "swe_verified" / "report_resolved.json", folder / "report.json")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(SweVerifiedBenchmark, "grading_problems", lambda self: [])
    monkeypatch.setattr("subprocess.run", fake_run)
    task = Task(id="psf__requests-5414", input="")
    fix = ("--- a/requests/models.py\n+++ b/requests/models.py\n@@ -1,2 +1,2 @@\n def prepare(host):\n"
           "-    if host.startswith('*'):\n+    if host.startswith(('*', '.')):\n")
    steering = _new_file("conftest.py", "import forge\n") + _new_file("tests/test_requests.py", "x = 1\n")
    feedback = bench.evaluate(task, Trajectory(task.id, f"```diff\n{fix}{steering}```"))
    assert _keys(seen["prediction"]["model_patch"]) == ["requests/models.py"]
    assert set(feedback.raw["dropped"]) == {"conftest.py", "tests/test_requests.py"}
    assert "conftest.py" in feedback.detail
    only_steering = bench.evaluate(task, Trajectory(task.id, f"```diff\n{steering}```"))
    assert not only_steering.success and only_steering.detail.startswith("nothing is left to grade")
