"""swe-verified closed loop: pre-flight messages through the real CLI, the instance image, grading the diff."""

from __future__ import annotations

import io
import json
from importlib.resources import files
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

from agent_evolve.benchmarks import swe_verified
from agent_evolve.benchmarks.swe_verified import WORKDIR, SweVerifiedBenchmark, instance_image
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
    assert "No data for swe-verified" in output and swe_verified.ENV_VAR in output
    assert "princeton-nlp/SWE-bench_Verified" in output
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
                  (Path(__file__).parents[1] / "benchmarks_external/fixtures/swe_verified/instances.jsonl")
                  .read_text().splitlines())
    official = test_spec.make_test_spec(record, namespace="swebench").instance_image_key
    assert instance_image(record["instance_id"], "swebench") == official


def _instance_image(client: Any, base: str, tag: str) -> None:
    """A stand-in for a SWE-bench instance image: the base image with a git repository at /testbed."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = b"def mean(values):\n    return sum(values) / (len(values) + 1)\n"
        info = tarfile.TarInfo("testbed/stats.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    container = client.containers.create(base, ["sleep", "1"])
    try:
        container.put_archive("/", buffer.getvalue())
        repository, name = tag.rsplit(":", 1)
        container.commit(repository=repository, tag=name)
    finally:
        container.remove(force=True)
    commit = "cd /testbed && git init -q && git -c user.name=t -c user.email=t@t commit -qm base --allow-empty && " \
             "git add -A && git -c user.name=t -c user.email=t@t commit -qm files"
    built = client.containers.create(tag, ["sh", "-c", commit])
    try:
        built.start()
        assert built.wait()["StatusCode"] == 0
        built.commit(repository=repository, tag=name)
    finally:
        built.remove(force=True)


def _call(name: str, **arguments: object) -> Completion:
    return Completion(text="", tool_calls=[ToolCall(f"c-{name}", name, dict(arguments))], finish_reason="tool_calls")


def test_the_swe_seed_acts_in_the_instance_image_and_its_diff_is_graded(
        docker_client: Any, python_image: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = {"instance_id": INSTANCE, "repo": "demo/stats", "base_commit": "0" * 40, "version": "1.0",
              "problem_statement": "mean([1, 2, 3]) returns 1.5", "test_patch": "", "FAIL_TO_PASS": "[]",
              "PASS_TO_PASS": "[]", "environment_setup_commit": "0" * 40}
    (tmp_path / "data.jsonl").write_text(json.dumps(record) + "\n")
    bench = SweVerifiedBenchmark(str(tmp_path / "data.jsonl"), namespace="agent-evolve-test")
    _instance_image(docker_client, python_image, instance_image(INSTANCE, "agent-evolve-test"))
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
    assert "files\nbase\n1.5" in outputs[0] and "2.0" in outputs[2], "the agent's commands run in /testbed"
    assert observation.feedback.success and graded == [observation.trajectory.output]
    assert graded[0].startswith("diff --git a/stats.py b/stats.py") and "+    return sum(values) / len(values)" in graded[0]
    assert f"checked out at {WORKDIR}" in llm.calls[0].messages[1].content
