"""swe-mini: fix a GitHub-style issue in a tiny Python repository; graded by hidden tests in a fresh checkout.

The work tree's diff is graded as SWE-bench's harness grades a prediction: screened (`patch_screen`), applied
to a fresh checkout at the base, and run with the visible and hidden tests by an isolated pytest
(`fresh_grading`, `hidden_grade`).
"""

from __future__ import annotations

import shutil
from importlib.resources import files
from pathlib import Path

from agent_evolve.benchmarks.support.common import IndexedBenchmark, LazyIndex
from agent_evolve.benchmarks.support.env_grading import put_files
from agent_evolve.benchmarks.support.fresh_grading import apply_patch, run_isolated_pytest
from agent_evolve.benchmarks.support.patch import extract_patch
from agent_evolve.benchmarks.support.patch_screen import screen_patch
from agent_evolve.benchmarks.support.staging import STAGING_ROOT, digest_of
from agent_evolve.benchmarks.suites.git_base import base_repository
from agent_evolve.benchmarks.suites.hidden_grade import grade_isolated_run
from agent_evolve.benchmarks.suites.swe_tasks import SweTask, load_swe_tasks
from agent_evolve.environments.task_env import BACKENDS, EnvironmentSpec, TaskEnvironment, open_environment
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.types import Feedback, Task, Trajectory

DATA_DIR = Path(str(files("agent_evolve.benchmarks.suites").joinpath("data", "swe_mini")))
DEFAULT_IMAGE = "agent-evolve/python-pytest:latest"
"""The docker backend's image: any image with `python3`, `pytest` and `git` (the Docker section of the README)."""
QUIET_PYTHON = {"PYTHONDONTWRITEBYTECODE": "1"}
"""No byte-code caches in the tree, so the diff holds only what the agent changed."""
ISSUE_NOTE = ("\n\n---\nThe repository is checked out at its base commit in your working directory. Fix the issue "
              "in the library code; the tests under tests/ must keep passing.")


class SweMiniBenchmark(IndexedBenchmark[SweTask]):
    """The shipped SWE-style suite: 18 tiny repositories with a real bug each (see benchmarks/suites/data)."""

    name = "swe-mini"

    def __init__(self, backend: str = "local", seed: int = 0, test_fraction: float = 0.3, *,
                 image: str = DEFAULT_IMAGE, repos_dir: str | Path | None = None, data_dir: str | Path | None = None,
                 test_timeout_s: float = 120.0) -> None:
        if backend not in BACKENDS:
            raise ConfigError(f"swe-mini: unknown environment backend {backend!r}; known: {sorted(BACKENDS)}")
        super().__init__(seed, test_fraction)
        self.backend = backend
        self.image = image
        self.data_dir = Path(data_dir) if data_dir is not None else DATA_DIR
        self.repos_dir = Path(repos_dir) if repos_dir is not None else None
        self.test_timeout_s = test_timeout_s
        self._commits: LazyIndex[str] = LazyIndex(self._build_repositories)

    def _load(self) -> dict[str, SweTask]:
        return {task.id: task for task in load_swe_tasks(self.data_dir)}

    def _repos_root(self) -> Path:
        """Built repositories live under a folder named by the data's content hash (shared by runs and workers)."""
        if self.repos_dir is not None:
            return self.repos_dir
        digest = digest_of(task.repo_dir for task in self._index.items().values())
        return STAGING_ROOT / f"swe-mini-{digest}"

    def _build_repositories(self) -> dict[str, str]:
        """Task id -> base commit, making each task's git repository on first use."""
        root = self._repos_root()
        return {task_id: base_repository(task.repo_dir, root / task_id)
                for task_id, task in self._index.items().items()}

    def check_ready(self) -> None:
        """git is installed (the repositories are made with it) and every task folder reads."""
        if shutil.which("git") is None:
            raise MissingDependencyError("swe-mini needs `git` to make its task repositories: install git")
        self._commits.items()

    def to_task(self, task_id: str, record: SweTask) -> Task:
        """The issue as input; kind, title, base commit and visible tests as metadata."""
        return Task(id=task_id, input=f"# {record.title}\n\n{record.issue}{ISSUE_NOTE}",
                    metadata={"kind": record.kind, "title": record.title, "base_commit": self._commits.items()[task_id],
                              "visible_tests": sorted(record.visible_tests())})

    def environment(self, task: Task) -> EnvironmentSpec:
        """A checkout of the task's repository at its base commit."""
        self._index.get(task.id, self.name)
        commit = self._commits.items()[task.id]
        return EnvironmentSpec(backend=self.backend, git_repo=str(self._repos_root() / task.id), commit=commit,
                               image=self.image if self.backend == "docker" else None, env=QUIET_PYTHON)

    def evaluate_in(self, task: Task, trajectory: Trajectory, environment: TaskEnvironment) -> Feedback:
        """Grade the work tree's diff in a fresh checkout (see the module docstring), never in `environment`."""
        return self._grade_patch(task, environment.diff())

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Grade a diff answered in text the same way."""
        patch = extract_patch(trajectory.output)
        if patch is None:
            return Feedback(False, 0.0, "the answer holds no diff to apply", raw={"applied": False})
        return self._grade_patch(task, patch)

    def _grade_patch(self, task: Task, patch: str) -> Feedback:
        """Screen the diff, apply it to a fresh checkout, write the tests, run them isolated and grade."""
        record = self._index.get(task.id, self.name)
        hidden = record.hidden_tests()
        tests = {**record.visible_tests(), **hidden}
        screened = screen_patch(patch, set(tests), lambda path: _base_text(record.repo_dir, path))
        with open_environment(self.environment(task)) as fresh:
            problem = apply_patch(fresh, screened.patch)
            if problem is not None:
                return Feedback(False, 0.0, f"the diff does not apply at the base commit: {problem}",
                                raw={"applied": False, "dropped": screened.dropped})
            put_files(fresh, {path: text.encode("utf-8") for path, text in tests.items()})
            run = run_isolated_pytest(fresh, sorted(tests), self.test_timeout_s)
        return screened.annotate(grade_isolated_run(run.xml, run.console, run.result, set(hidden)))


def _base_text(repo_dir: Path, path: str) -> str | None:
    """A file's text at the base (the task's repository folder); None when the base has no such file."""
    root = repo_dir.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        return None
    return target.read_text(encoding="utf-8", errors="replace")
