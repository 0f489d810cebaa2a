"""swe-verified closed loop: pre-flight messages through the real CLI, the instance image, grading the diff."""

from __future__ import annotations

import contextlib
import io
import json
from importlib.resources import files
import os
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_evolve.benchmarks.adapters import swe_verified
from agent_evolve.benchmarks.support.patch_screen import screen_patch
from agent_evolve.benchmarks.adapters.swe_verified import WORKDIR, SweVerifiedBenchmark, instance_image
from agent_evolve.agents import ReferenceAgent
from agent_evolve.engine.solving import attempt
from agent_evolve.llm.base import Completion, ToolCall
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Feedback, Task, Trajectory

SRC = Path(__file__).resolve().parents[2] / "src"
INSTANCE = "demo__stats-1"
QUICK_MODELS = ["--model", "local/smollm2-135m", "--evolver-model", "local/smollm2-135m"]
"""Model roles whose probe fails at once where the tiny model is not installed, so no model loads."""


def run_cli(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """`agent-evolve run --agent swe --benchmark swe-verified` in a subprocess, with its wall time."""
    environment = {k: v for k, v in os.environ.items() if k != swe_verified.ENV_VAR}
    environment.update({"PYTHONPATH": str(SRC), "HF_DATASETS_OFFLINE": "1", **env})
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "agent_evolve.cli.main", "run", "--agent", "swe", "--benchmark",
                           "swe-verified", "--workspace", str(tmp_path / "ws"), *QUICK_MODELS],
                          capture_output=True, text=True, env=environment, timeout=600)
    return done, time.monotonic() - started


def test_without_docker_the_run_stops_at_once_naming_docker(tmp_path: Path) -> None:
    done, seconds = run_cli(tmp_path, DOCKER_HOST="unix:///nonexistent/docker.sock")
    output = " ".join((done.stdout + done.stderr).split())
    assert done.returncode != 0 and "pre-flight failed (nothing was run or recorded)" in output
    assert "swe-verified" in output and "a running Docker daemon is needed" in output and "/nonexistent/" in output
    assert "No data" not in output, "Docker is named first, before the data is looked for"
    assert not (tmp_path / "ws" / "evolution").exists() and seconds < 120


def test_with_docker_but_no_data_the_run_names_the_data(docker_client: Any, tmp_path: Path) -> None:
    done, _ = run_cli(tmp_path)
    output = " ".join((done.stdout + done.stderr).split())
    assert done.returncode != 0 and "Docker daemon" not in output
    assert "swe-verified" in output and swe_verified.ENV_VAR in output and "data_path=" in output
    assert "princeton-nlp/SWE-bench_Verified" in output, "with or without `datasets`, the data set is named"
    missing = tmp_path / "verified.jsonl"
    done, _ = run_cli(tmp_path, **{swe_verified.ENV_VAR: str(missing)})
    assert f"data path {str(missing)!r} does not exist" in " ".join((done.stdout + done.stderr).split())


def test_instance_images_follow_the_harness_naming() -> None:
    name = instance_image("astropy__astropy-12907", arch="x86_64")
    assert name == "swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest"
    assert instance_image("Org__Repo-1", None, arch="arm64") == "sweb.eval.arm64.org__repo-1:latest"
    spec = SweVerifiedBenchmark(namespace="mirror").environment(Task(id="a__b-2", input=""))
    assert spec.backend == "docker" and spec.workdir == WORKDIR and not spec.network
    assert spec.image is not None and spec.image.startswith("mirror/sweb.eval.") and "a_1776_b-2" in spec.image
    assert spec.env["PATH"].startswith("/opt/miniconda3/envs/testbed/bin:")


def test_instance_image_names_match_the_installed_harness() -> None:
    test_spec = pytest.importorskip("swebench.harness.test_spec.test_spec", reason="the [swe] extra is not installed")
    record = next(json.loads(line) for line in
                  (Path(__file__).parents[1] / "benchmarks/external/fixtures/swe_verified/instances.jsonl")
                  .read_text().splitlines())
    official = test_spec.make_test_spec(record, namespace="swebench").instance_image_key
    assert instance_image(record["instance_id"], "swebench") == official


FAKE_CONDA = "conda() { :; }\n"
FAKE_PYTEST = '''#!/usr/bin/env python3
"""Stand-in for pytest -rA in the stand-in image: runs the test_* functions of the given files, prints the
lines the harness's pytest log parser reads."""
import importlib.util, sys
for path in [a for a in sys.argv[1:] if a.endswith(".py")]:
    spec = importlib.util.spec_from_file_location("t", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, ".")
    spec.loader.exec_module(module)
    for name in [n for n in dir(module) if n.startswith("test_")]:
        try:
            getattr(module, name)()
            print(f"PASSED {path}::{name}")
        except Exception:
            print(f"FAILED {path}::{name}")
'''
TEST_PATCH = ("diff --git a/tests/test_stats.py b/tests/test_stats.py\nnew file mode 100644\n--- /dev/null\n"
              "+++ b/tests/test_stats.py\n@@ -0,0 +1,5 @@\n+from stats import mean\n+\n+\n+def test_mean():\n"
              "+    assert mean([1, 2, 3]) == 2\n")


def _stand_in_image(client: Any, base: str, tag: str) -> str:
    """A stand-in instance image (its base commit returned): /testbed a git repository with a buggy stats.py, and
    conda's activate script and pytest faked, so that the official harness's eval script runs in it."""
    files = {"testbed/stats.py": b"def mean(values):\n    return sum(values) / (len(values) + 1)\n",
             "opt/miniconda3/bin/activate": FAKE_CONDA.encode(), "usr/local/bin/pytest": FAKE_PYTEST.encode()}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
    repository, name = tag.rsplit(":", 1)
    container = client.containers.create(base, ["sh", "-c", "cd /testbed && git init -q && git add -A && "
                                                "git -c user.name=t -c user.email=t@t commit -qm base && "
                                                "git rev-parse HEAD"])
    try:
        container.put_archive("/", buffer.getvalue())
        container.start()
        assert container.wait()["StatusCode"] == 0
        commit = container.logs().decode().strip().splitlines()[-1]
        container.commit(repository=repository, tag=name)
    finally:
        container.remove(force=True)
    return commit


@pytest.fixture
def stand_in(docker_client: Any, python_image: str) -> Iterator[Callable[[str], str]]:
    """Builds stand-in instance images by tag; removes them after the test."""
    import docker

    made: list[str] = []

    def build(tag: str) -> str:
        made.append(tag)
        return _stand_in_image(docker_client, python_image, tag)

    yield build
    for tag in made:
        with contextlib.suppress(docker.errors.ImageNotFound):
            docker_client.images.remove(tag, force=True)


def _call(name: str, **arguments: object) -> Completion:
    return Completion(text="", tool_calls=[ToolCall(f"c-{name}", name, dict(arguments))], finish_reason="tool_calls")


def test_the_swe_seed_acts_in_the_instance_image_and_its_diff_is_graded(
        stand_in: Callable[[str], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = {"instance_id": INSTANCE, "repo": "demo/stats", "base_commit": "0" * 40, "version": "1.0",
              "problem_statement": "mean([1, 2, 3]) returns 1.5", "test_patch": "", "FAIL_TO_PASS": "[]",
              "PASS_TO_PASS": "[]", "environment_setup_commit": "0" * 40}
    (tmp_path / "data.jsonl").write_text(json.dumps(record) + "\n")
    bench = SweVerifiedBenchmark(str(tmp_path / "data.jsonl"), namespace="agent-evolve-test")
    stand_in(instance_image(INSTANCE, "agent-evolve-test"))
    graded: list[str] = []

    def official_harness(instance: dict[str, Any], patch: str) -> Feedback:  # it needs real SWE-bench images
        graded.append(patch)
        return Feedback(True, 1.0, "resolved")

    monkeypatch.setattr(swe_verified, "harness_problem", lambda: None)
    monkeypatch.setattr(bench, "_run_harness", official_harness)
    run = _call("bash", command="git log --format=%s && python3 -c 'import stats; print(stats.mean([1, 2, 3]))'")
    llm = ScriptedLLM([run, _call("edit", path="stats.py", old_text="(len(values) + 1)", new_text="len(values)"),
                       run, _call("submit", summary="divide by the count")])
    agent = ReferenceAgent(Path(str(files("agent_evolve.seed_workspaces").joinpath("swe"))), llm=llm)
    task = (bench.get_tasks("train", None) + bench.get_tasks("test", None))[0]
    observation = attempt(agent, bench, task)
    outputs = [step["output"] for step in observation.trajectory.steps if step.get("type") == "tool_call"]
    assert "base\n1.5" in outputs[0] and "2.0" in outputs[2], "the agent's commands run in /testbed"
    screened = screen_patch(observation.trajectory.output, []).patch  # the harness gets the screened diff
    assert observation.feedback.success and graded == [screened]
    assert graded[0].startswith("diff --git a/stats.py b/stats.py") and "+    return sum(values) / len(values)" in graded[0]
    assert f"checked out at {WORKDIR}" in llm.calls[0].messages[1].content


def test_the_official_harness_grades_the_diff(stand_in: Callable[[str], str], tmp_path: Path) -> None:
    pytest.importorskip("swebench.harness.run_evaluation", reason="the [swe] extra is not installed")
    instance_id = "psf__requests-90001"  # a repository and version the harness has specs for (pytest -rA)
    commit = stand_in(instance_image(instance_id, "agent-evolve-test"))
    record = {"instance_id": instance_id, "repo": "psf/requests", "base_commit": commit, "version": "2.26",
              "problem_statement": "mean([1, 2, 3]) returns 1.5", "test_patch": TEST_PATCH,
              "FAIL_TO_PASS": '["tests/test_stats.py::test_mean"]', "PASS_TO_PASS": "[]",
              "environment_setup_commit": commit}
    (tmp_path / "data.jsonl").write_text(json.dumps(record) + "\n")
    bench = SweVerifiedBenchmark(str(tmp_path / "data.jsonl"), namespace="agent-evolve-test", timeout=300)
    task = Task(id=instance_id, input="")
    fix = ("diff --git a/stats.py b/stats.py\n--- a/stats.py\n+++ b/stats.py\n@@ -1,2 +1,2 @@\n def mean(values):\n"
           "-    return sum(values) / (len(values) + 1)\n+    return sum(values) / len(values)\n")
    resolved = bench.evaluate(task, Trajectory(task_id=instance_id, output=f"```diff\n{fix}```"))
    assert resolved.success and resolved.detail.startswith("resolved: 1 FAIL_TO_PASS"), resolved.detail
    wrong = fix.replace("len(values)\n", "(len(values) - 1)\n")
    unresolved = bench.evaluate(task, Trajectory(task_id=instance_id, output=f"```diff\n{wrong}```"))
    assert not unresolved.success and "1/1 FAIL_TO_PASS tests still fail" in unresolved.detail
