"""SWE-bench Verified: task parsing, patch extraction, harness report parsing and the grading run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_evolve.benchmarks.adapters import swe_verified
from agent_evolve.benchmarks.support.patch import extract_patch
from agent_evolve.benchmarks.adapters.swe_verified import (
    SweVerifiedBenchmark,
    parse_harness_report,
    parse_test_list,
    read_harness_result,
)
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.types import Task, Trajectory

DIFF = """--- a/requests/models.py
+++ b/requests/models.py
@@ -1,4 +1,4 @@
 def prepare(host):
-    if host.startswith('*'):
+    if host.startswith(('*', '.')):
         raise InvalidURL('URL has an invalid label.')
     return host
"""
ORIGINAL = ("def prepare(host):\n    if host.startswith('*'):\n        raise InvalidURL('URL has an invalid label.')\n"
            "    return host\n")


@pytest.fixture
def bench(fixtures: Path) -> SweVerifiedBenchmark:
    return SweVerifiedBenchmark(data_path=str(fixtures / "swe_verified" / "instances.jsonl"), test_fraction=0.5)


def test_tasks_parse_from_hf_format(bench: SweVerifiedBenchmark) -> None:
    tasks = bench.get_tasks("train", limit=None) + bench.get_tasks("test", limit=None)
    assert sorted(t.id for t in tasks) == ["psf__requests-5414", "pylint-dev__pylint-7080"]
    task = next(t for t in tasks if t.id == "psf__requests-5414")
    assert task.input.startswith("Repository: psf/requests (base commit 39d0fdd9")
    assert "http://.example.com" in task.input and "```diff" in task.input
    assert task.metadata["version"] == "2.26" and task.metadata["environment_setup_commit"].startswith("a1a6")
    assert "startswith((u'*', u'.'))" not in task.input + json.dumps(task.metadata)
    assert "FAIL_TO_PASS" not in task.metadata and "Hints" not in task.input


def test_hints_are_optional(fixtures: Path) -> None:
    bench = SweVerifiedBenchmark(str(fixtures / "swe_verified" / "instances.jsonl"), include_hints=True)
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if "requests" in t.id)
    assert "The same happens for `http://..example.com`." in task.input


def test_split_is_stable_across_instances(fixtures: Path) -> None:
    path = str(fixtures / "swe_verified" / "instances.jsonl")
    first = [t.id for t in SweVerifiedBenchmark(path, seed=3).get_tasks("test")]
    assert first == [t.id for t in SweVerifiedBenchmark(path, seed=3).get_tasks("test")] and len(first) == 1


def test_no_data_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_SWE_VERIFIED_DATA", raising=False)
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(MissingDependencyError) as err:
        SweVerifiedBenchmark().get_tasks()
    message = str(err.value)
    assert "AGENT_EVOLVE_SWE_VERIFIED_DATA" in message and "data_path=" in message
    assert "pip install datasets" in message and "princeton-nlp/SWE-bench_Verified" in message


def test_malformed_test_lists_fail_at_load(tmp_path: Path) -> None:
    record = {"instance_id": "a__b-1", "repo": "a/b", "base_commit": "0" * 40, "problem_statement": "x",
              "FAIL_TO_PASS": "not json"}
    (tmp_path / "bad.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(ConfigError, match="instance 'a__b-1': FAIL_TO_PASS"):
        SweVerifiedBenchmark(str(tmp_path / "bad.jsonl")).get_tasks()
    (tmp_path / "bad.jsonl").write_text('{"instance_id": "a__b-2"}\n')
    with pytest.raises(ConfigError, match="a record lacks"):
        SweVerifiedBenchmark(str(tmp_path / "bad.jsonl")).get_tasks()


def test_test_lists_are_json_strings_in_the_dataset() -> None:
    assert parse_test_list('["a::b", "c"]') == ["a::b", "c"]
    assert parse_test_list(["x"]) == ["x"] and parse_test_list("") == []


def test_extracts_fenced_diff() -> None:
    patch = extract_patch(f"I changed the check.\n\n```diff\n{DIFF}```\nThis fixes it.")
    assert patch is not None
    assert patch.startswith("diff --git a/requests/models.py b/requests/models.py\n--- a/requests/models.py\n")
    assert "@@ -1,4 +1,4 @@" in patch and patch.endswith("     return host\n")


def test_extracts_raw_git_diff_from_prose() -> None:
    text = ("The fix:\n\ndiff --git a/requests/models.py b/requests/models.py\nindex 1a2b3c4..5d6e7f8 100644\n"
            + DIFF + "\nLet me know if anything else is needed.")
    patch = extract_patch(text)
    assert patch is not None and "Let me know" not in patch and "+    if host.startswith(('*', '.')):" in patch


def test_patch_tags_and_missing_prefixes_are_normalised() -> None:
    text = ("<patch>\n--- requests/models.py\n+++ requests/models.py\n@@ -2,1 +2,1 @@\n"
            "-    if host.startswith('*'):\n+    if host.startswith(('*', '.')):\n</patch>")
    patch = extract_patch(text)
    assert patch is not None
    assert "--- a/requests/models.py\n+++ b/requests/models.py\n" in patch


def test_wrong_hunk_counts_are_recomputed() -> None:
    wrong = DIFF.replace("@@ -1,4 +1,4 @@", "@@ -1,7 +1,9 @@")
    patch = extract_patch(f"```diff\n{wrong}```")
    assert patch is not None and "@@ -1,4 +1,4 @@" in patch


def test_blank_context_lines_stripped_by_the_model_are_restored() -> None:
    text = "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n x = 1\n\n-y = 2\n+y = 3\n```"
    patch = extract_patch(text)
    assert patch is not None and patch.endswith("@@ -1,3 +1,3 @@\n x = 1\n \n-y = 2\n+y = 3\n")


def test_several_files_and_a_new_file() -> None:
    second = "--- /dev/null\n+++ b/docs/changes.rst\n@@ -0,0 +1,2 @@\n+Fixed\n+=====\n"
    patch = extract_patch(f"```diff\n{DIFF}```\nand\n```patch\n{second}```")
    assert patch is not None
    assert "diff --git a/docs/changes.rst b/docs/changes.rst\n--- /dev/null\n" in patch
    assert patch.count("diff --git") == 2


def test_a_revised_diff_of_the_same_file_replaces_the_first() -> None:
    revised = DIFF.replace("('*', '.')", "('*', '.', '-')")
    patch = extract_patch(f"First try:\n```diff\n{DIFF}```\nBetter:\n```diff\n{revised}```")
    assert patch is not None and patch.count("diff --git") == 1 and "'-'" in patch


def test_no_diff_gives_none() -> None:
    assert extract_patch("I could not find the bug.\n```python\nprint(1)\n```") is None
    assert extract_patch("--- a/x.py\n+++ b/x.py\nno hunks here") is None


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_extracted_patch_applies_with_git(tmp_path: Path) -> None:
    (tmp_path / "requests").mkdir()
    (tmp_path / "requests" / "models.py").write_text(ORIGINAL)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    messy = DIFF.replace("@@ -1,4 +1,4 @@", "@@ -1,5 +1,6 @@").replace("a/requests", "requests")
    patch = extract_patch(f"Sure!\n```diff\n{messy}```")
    assert patch is not None
    (tmp_path / "fix.diff").write_text(patch)
    subprocess.run(["git", "apply", "fix.diff"], cwd=tmp_path, check=True)
    assert "('*', '.')" in (tmp_path / "requests" / "models.py").read_text()


def test_report_of_unresolved_instance(fixtures: Path) -> None:
    report = json.loads((fixtures / "swe_verified" / "report_unresolved.json").read_text())
    feedback = parse_harness_report(report, "pylint-dev__pylint-7080")
    assert not feedback.success and feedback.score == 0.0
    assert "1/1 FAIL_TO_PASS tests still fail: tests/test_self.py::TestRunTC::test_ignore_path_recursive" \
           "_current_dir" in feedback.detail
    assert "1 PASS_TO_PASS tests broke: tests/test_self.py::TestRunTC::test_recursive_current_dir" in feedback.detail
    assert feedback.raw["tests_status"]["PASS_TO_PASS"]["success"]


def test_report_of_resolved_instance(fixtures: Path) -> None:
    report = json.loads((fixtures / "swe_verified" / "report_resolved.json").read_text())
    feedback = parse_harness_report(report, "psf__requests-5414")
    assert feedback.success and feedback.score == 1.0 and feedback.detail.startswith("resolved: 1 FAIL_TO_PASS")


def test_report_without_the_instance_is_an_error(fixtures: Path) -> None:
    report = json.loads((fixtures / "swe_verified" / "report_resolved.json").read_text())
    with pytest.raises(ValueError, match="no entry"):
        parse_harness_report(report, "other__repo-1")


def test_patch_that_did_not_apply_is_read_from_the_log(tmp_path: Path) -> None:
    folder = tmp_path / "logs" / "run_evaluation" / "r1" / "agent-evolve" / "psf__requests-5414"
    folder.mkdir(parents=True)
    (folder / "run_instance.log").write_text("2024 - INFO - >>>>> Patch Apply Failed:\npatch: **** malformed\n")
    feedback = read_harness_result(tmp_path, "r1", "psf__requests-5414", "")
    assert not feedback.success and "did not apply" in feedback.detail


def test_missing_docker_and_harness_named_together(bench: SweVerifiedBenchmark,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(swe_verified, "docker_problem", lambda purpose: "Docker daemon not reachable: start Docker")
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    task = Task(id="psf__requests-5414", input="")
    with pytest.raises(MissingDependencyError) as err:
        bench.evaluate(task, Trajectory(task_id=task.id, output=f"```diff\n{DIFF}```"))
    message = str(err.value)
    assert "Docker daemon not reachable" in message and "pip install 'agent-evolve[swe]'" in message


def test_output_without_a_diff_needs_no_docker(bench: SweVerifiedBenchmark) -> None:
    task = Task(id="psf__requests-5414", input="")
    feedback = bench.evaluate(task, Trajectory(task_id=task.id, output="No idea."))
    assert not feedback.success and feedback.detail == "no unified diff found in the output"


def test_grading_runs_the_official_harness(bench: SweVerifiedBenchmark, fixtures: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_run(command: list[str], cwd: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        seen["command"], seen["cwd"] = command, Path(cwd)
        seen["dataset"] = json.loads((Path(cwd) / "dataset.json").read_text())
        seen["prediction"] = json.loads((Path(cwd) / "predictions.jsonl").read_text())
        run_id = command[command.index("--run_id") + 1]
        folder = Path(cwd) / "logs" / "run_evaluation" / run_id / "agent-evolve" / "psf__requests-5414"
        folder.mkdir(parents=True)
        shutil.copy(fixtures / "swe_verified" / "report_resolved.json", folder / "report.json")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(SweVerifiedBenchmark, "grading_problems", lambda self: [])
    monkeypatch.setattr("subprocess.run", fake_run)
    task = Task(id="psf__requests-5414", input="")
    feedback = bench.evaluate(task, Trajectory(task_id=task.id, output=f"```diff\n{DIFF}```"))
    assert feedback.success and feedback.score == 1.0
    command = seen["command"]
    assert command[1:3] == ["-m", "swebench.harness.run_evaluation"]
    assert command[command.index("--instance_ids") + 1] == "psf__requests-5414"
    assert command[command.index("--namespace") + 1] == "swebench"
    assert seen["dataset"][0]["FAIL_TO_PASS"].startswith('["tests/test_requests.py')
    assert seen["prediction"]["model_patch"].startswith("diff --git a/requests/models.py")
    assert not seen["cwd"].exists()
