"""SWE-bench Verified: fix a real GitHub issue in the instance's image (repository at /testbed); the work tree's
diff, screened of test infrastructure changes, is graded by the official harness in a fresh container."""

from __future__ import annotations

import importlib.util
import json
import platform
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.support.common import IndexedBenchmark
from agent_evolve.benchmarks.support.data import DataSource, load_records
from agent_evolve.benchmarks.support.patch import extract_patch, parse_file_patches
from agent_evolve.benchmarks.support.patch_screen import paths_of, screen_patch
from agent_evolve.environments.docker_task_client import docker_problem
from agent_evolve.environments.spec import Limits
from agent_evolve.environments.task_env import EnvironmentSpec, TaskEnvironment
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.types import Feedback, Task, Trajectory

ENV_VAR = "AGENT_EVOLVE_SWE_VERIFIED_DATA"
HF_NAME = "princeton-nlp/SWE-bench_Verified"
MODEL_NAME = "agent-evolve"
APPLY_FAILED = "Patch Apply Failed"
_SHOWN = 10
HARNESS_HINT = "pip install 'agent-evolve[swe]'"
WORKDIR = "/testbed"
TESTBED_PATH = ("/opt/miniconda3/envs/testbed/bin:/opt/miniconda3/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                "/usr/bin:/sbin:/bin")
"""PATH inside an instance image with the harness's conda env `testbed` active (as its eval script does)."""
LIMITS = Limits(timeout_s=600.0, memory_mb=8192, processes=1024, file_size_mb=512, output_bytes=16 * 1024)
"""Limits of one agent command in an instance image: room for a real repository's test suite."""
PURPOSE = "swe-verified (the agent's environment and the official harness)"


def harness_problem() -> str | None:
    """None when the official harness can be imported; otherwise what to install."""
    if importlib.util.find_spec("swebench") is None:
        return f"the official SWE-bench harness, which is not installed: {HARNESS_HINT}"
    return None


def instance_image(instance_id: str, namespace: str | None = "swebench", arch: str | None = None) -> str:
    """The harness's instance image name (its TestSpec.instance_image_key): `sweb.eval.<arch>.<id>:latest`,
    prefixed by the registry namespace with `__` spelled `_1776_` (Docker Hub refuses double underscores)."""
    machine = arch or ("arm64" if platform.machine() in ("aarch64", "arm64") else "x86_64")
    key = f"sweb.eval.{machine}.{instance_id.lower()}:latest"
    return f"{namespace}/{key}".replace("__", "_1776_") if namespace else key


def parse_test_list(value: Any) -> list[str]:
    """FAIL_TO_PASS / PASS_TO_PASS as a list: the HF dataset stores them as JSON-encoded strings."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = json.loads(value)
    if not isinstance(value, list):
        raise ValueError(f"expected a list of test names, got {type(value).__name__}")
    return [str(name) for name in value]


def instance_test_files(instance: dict[str, Any]) -> set[str]:
    """The repository paths the instance's test patch touches (the harness resets and rewrites them)."""
    return {path for file_patch in parse_file_patches(str(instance.get("test_patch") or ""))
            for path in paths_of(file_patch)}


def _names(tests: list[str]) -> str:
    """A readable, bounded list of test names."""
    shown = ", ".join(tests[:_SHOWN])
    return shown + (f" and {len(tests) - _SHOWN} more" if len(tests) > _SHOWN else "")


def parse_harness_report(report: dict[str, Any], instance_id: str) -> Feedback:
    """Turn the harness's report.json ({instance_id: {"resolved", "tests_status", ...}}) into Feedback."""
    if instance_id not in report:
        raise ValueError(f"report has no entry for {instance_id!r} (entries: {sorted(report)})")
    entry = report[instance_id]
    if not entry.get("patch_exists", True) or entry.get("patch_is_None", False):
        return Feedback(False, 0.0, "the prediction had no patch", raw=entry)
    if not entry.get("patch_successfully_applied", True):
        return Feedback(False, 0.0, "the patch did not apply to the repository at its base commit", raw=entry)
    status = entry.get("tests_status", {})
    f2p = status.get("FAIL_TO_PASS", {})
    p2p = status.get("PASS_TO_PASS", {})
    f2p_ok, f2p_bad = list(f2p.get("success", [])), list(f2p.get("failure", []))
    p2p_bad = list(p2p.get("failure", []))
    resolved = bool(entry.get("resolved", False))
    if resolved:
        detail = f"resolved: {len(f2p_ok)} FAIL_TO_PASS tests now pass and no PASS_TO_PASS test broke"
    else:
        parts = []
        if f2p_bad:
            parts.append(f"{len(f2p_bad)}/{len(f2p_ok) + len(f2p_bad)} FAIL_TO_PASS tests still fail: "
                         + _names(f2p_bad))
        if p2p_bad:
            parts.append(f"{len(p2p_bad)} PASS_TO_PASS tests broke: {_names(p2p_bad)}")
        detail = "not resolved" + (": " + "; ".join(parts) if parts else "")
    return Feedback(resolved, 1.0 if resolved else 0.0, detail, raw=entry)


def read_harness_result(work_dir: Path, run_id: str, instance_id: str, harness_output: str) -> Feedback:
    """Feedback from the files one harness run left under work_dir/logs/run_evaluation."""
    instance_dir = work_dir / "logs" / "run_evaluation" / run_id / MODEL_NAME / instance_id
    report = instance_dir / "report.json"
    if report.exists():
        return parse_harness_report(json.loads(report.read_text(encoding="utf-8")), instance_id)
    log = instance_dir / "run_instance.log"
    log_text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else harness_output
    if APPLY_FAILED in log_text:
        return Feedback(False, 0.0, "the patch did not apply to the repository at its base commit",
                        raw={"patch_successfully_applied": False})
    tail = "\n".join(log_text.strip().splitlines()[-15:])
    return Feedback(False, 0.0, f"the SWE-bench harness wrote no report; last log lines:\n{tail}",
                    raw={"harness_error": True})


class SweVerifiedBenchmark(IndexedBenchmark[dict[str, Any]]):
    """The 500 human-validated SWE-bench instances; the agent answers with a unified diff."""

    name = "swe-verified"

    def __init__(self, data_path: str | None = None, seed: int = 0, test_fraction: float = 0.3, *,
                 hf_name: str = HF_NAME, hf_split: str = "test", include_hints: bool = False,
                 namespace: str | None = "swebench", timeout: int = 1800, log_dir: str | None = None) -> None:
        super().__init__(seed, test_fraction)
        self.include_hints = include_hints
        self.namespace = namespace
        self.timeout = timeout
        self.log_dir = log_dir
        self.source = DataSource(
            benchmark=self.name, env_var=ENV_VAR, data_path=data_path, hf_name=hf_name, hf_split=hf_split,
            hint="Each record needs instance_id, repo, base_commit, problem_statement, test_patch, "
                 "FAIL_TO_PASS, PASS_TO_PASS, version and environment_setup_commit.")

    def _load(self) -> dict[str, dict[str, Any]]:
        """Index the instances by instance_id, checking the fields the harness needs."""
        index: dict[str, dict[str, Any]] = {}
        for record in load_records(self.source):
            missing = [k for k in ("instance_id", "repo", "base_commit", "problem_statement") if k not in record]
            if missing:
                raise ConfigError(f"{self.name}: a record lacks {missing}: {str(record)[:200]}")
            for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
                try:
                    parse_test_list(record.get(key))
                except ValueError as exc:
                    raise ConfigError(f"{self.name}: instance {record['instance_id']!r}: {key}: {exc}") from None
            index[str(record["instance_id"])] = record
        return index

    def to_task(self, task_id: str, instance: dict[str, Any]) -> Task:
        """The agent sees the issue and the repository; never the gold patch or the tests."""
        text = f"Repository: {instance['repo']} (base commit {instance['base_commit']})\n\n"
        text += str(instance["problem_statement"]).strip() + "\n"
        hints = str(instance.get("hints_text") or "").strip()
        if self.include_hints and hints:
            text += f"\nHints from the issue discussion:\n{hints}\n"
        text += (f"\nResolve the issue by editing the repository (checked out at {WORKDIR} when you can run "
                 "commands there; your changes are graded as its git diff). Without tools, answer with a unified "
                 "diff (git diff format, paths relative to the repository root) in a ```diff block.")
        metadata = {key: instance.get(key) for key in
                    ("instance_id", "repo", "base_commit", "version", "environment_setup_commit", "created_at")}
        return Task(id=task_id, input=text, metadata=metadata)

    def environment(self, task: Task) -> EnvironmentSpec:
        """The instance's environment image, the agent's commands in /testbed with the testbed env on PATH."""
        return EnvironmentSpec(backend="docker", image=instance_image(task.id, self.namespace), workdir=WORKDIR,
                               limits=LIMITS, env={"PATH": TESTBED_PATH})

    def grading_problems(self) -> list[str]:
        """What is missing to run the official harness here; empty when grading can run."""
        return [p for p in (docker_problem(PURPOSE), harness_problem()) if p is not None]

    def check_ready(self) -> None:
        """Docker answers, then the data loads, then the harness is installed; the first thing missing is named."""
        docker = docker_problem(PURPOSE)
        if docker is not None:
            raise MissingDependencyError(docker)
        self._index.value()
        harness = harness_problem()
        if harness is not None:
            raise MissingDependencyError(f"grading {self.name} needs {harness}")

    def evaluate_in(self, task: Task, trajectory: Trajectory, environment: TaskEnvironment) -> Feedback:
        """Grade the work tree's diff (what the agent changed in /testbed); the answer's diff when it is empty."""
        patch = environment.diff()
        if not patch.strip():
            return self.evaluate(task, trajectory)
        return self._grade_patch(task, patch)

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Extract the diff, run the harness on it in Docker, and read its report."""
        patch = extract_patch(trajectory.output)
        if patch is None:
            return Feedback(False, 0.0, "no unified diff found in the output", raw={"patch": None})
        return self._grade_patch(task, patch)

    def _grade_patch(self, task: Task, patch: str) -> Feedback:
        """Run the official harness on one patch, after checking it can run here."""
        instance = self._index.get(task.id, self.name)
        problems = self.grading_problems()
        if problems:
            raise MissingDependencyError(
                f"Grading swe-verified needs Docker and the official SWE-bench harness ({HARNESS_HINT}); "
                "missing: " + "; ".join(problems) + ".")
        screened = screen_patch(patch, instance_test_files(instance))
        if not screened.patch.strip():
            return Feedback(False, 0.0, f"nothing is left to grade: {screened.note()}",
                            raw={"dropped": screened.dropped})
        return screened.annotate(self._run_harness(instance, screened.patch))

    def _run_harness(self, instance: dict[str, Any], patch: str) -> Feedback:
        """One `python -m swebench.harness.run_evaluation` run for one instance in its own folder."""
        run_id = f"{MODEL_NAME}-{uuid.uuid4().hex[:12]}"
        instance_id = str(instance["instance_id"])
        with tempfile.TemporaryDirectory(prefix="swebench-", ignore_cleanup_errors=True) as scratch:
            work = Path(self.log_dir) / run_id if self.log_dir else Path(scratch)
            work.mkdir(parents=True, exist_ok=True)
            (work / "dataset.json").write_text(json.dumps([instance]), encoding="utf-8")
            prediction = {"instance_id": instance_id, "model_name_or_path": MODEL_NAME, "model_patch": patch}
            (work / "predictions.jsonl").write_text(json.dumps(prediction) + "\n", encoding="utf-8")
            command = [sys.executable, "-m", "swebench.harness.run_evaluation",
                       "--dataset_name", str(work / "dataset.json"), "--split", "test",
                       "--predictions_path", str(work / "predictions.jsonl"), "--instance_ids", instance_id,
                       "--max_workers", "1", "--run_id", run_id, "--timeout", str(self.timeout),
                       "--namespace", self.namespace or "none"]
            try:
                done = subprocess.run(command, cwd=work, capture_output=True, text=True,
                                      timeout=self.timeout * 3)
                output = done.stdout + done.stderr
            except subprocess.TimeoutExpired:
                output = f"the harness ran past {self.timeout * 3} s and was stopped"
            return read_harness_result(work, run_id, instance_id, output)
