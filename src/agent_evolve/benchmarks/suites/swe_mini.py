"""swe-mini: fix a GitHub-style issue in a tiny Python repository (task folders under `data/swe_mini`, laid out as
docs/benchmarks.md says); the diff is graded as SWE-bench grades one: screened, applied afresh, hidden tests run."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from agent_evolve.benchmarks.support.common import IndexedBenchmark, LazyIndex
from agent_evolve.benchmarks.support.env_grading import put_files
from agent_evolve.benchmarks.support.fresh_grading import apply_patch, grade_isolated_pytest
from agent_evolve.benchmarks.support.patch import extract_patch
from agent_evolve.benchmarks.support.patch_screen import screen_patch
from agent_evolve.benchmarks.support.staging import STAGING_ROOT, build_once, digest_of
from agent_evolve.environments.task_env import BACKENDS, EnvironmentSpec, TaskEnvironment, open_environment
from agent_evolve.errors import AgentEvolveError, ConfigError, MissingDependencyError
from agent_evolve.io.safe_yaml import load_yaml
from agent_evolve.types import Feedback, Task, Trajectory

DATA_DIR = Path(str(files("agent_evolve.benchmarks.suites").joinpath("data", "swe_mini")))
DEFAULT_IMAGE = "agent-evolve/python-pytest:latest"
"""The docker backend's image: any image with `python3`, `pytest` and `git` (the Docker section of the README)."""
QUIET_PYTHON = {"PYTHONDONTWRITEBYTECODE": "1"}
"""No byte-code caches in the tree, so the diff holds only what the agent changed."""
ISSUE_NOTE = ("\n\n---\nThe repository is checked out at its base commit in your working directory. Fix the issue "
              "in the library code; the tests under tests/ must keep passing.")
VISIBLE_TESTS = "tests"
"""The repository folder of the visible tests; hidden tests are copied next to them for grading."""
BASE_MESSAGE = "base"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "agent-evolve", "GIT_AUTHOR_EMAIL": "suites@agent-evolve.invalid",
    "GIT_COMMITTER_NAME": "agent-evolve", "GIT_COMMITTER_EMAIL": "suites@agent-evolve.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00+0000", "GIT_COMMITTER_DATE": "2025-01-01T00:00:00+0000",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}
"""Fixed author and date, user configuration ignored: the same files give the same base commit on every machine."""


@dataclass(frozen=True)
class SweTask:
    """One swe-mini task folder."""

    id: str
    title: str
    kind: str
    issue: str
    root: Path

    @property
    def repo_dir(self) -> Path:
        return self.root / "repo"

    def hidden_tests(self) -> dict[str, str]:
        """Repository path -> text of each hidden test file."""
        return _texts(self.root / "hidden")

    def visible_tests(self) -> dict[str, str]:
        """Repository path -> text of each visible test file, as the base has them."""
        return {f"{VISIBLE_TESTS}/{rel}": text for rel, text in _texts(self.repo_dir / VISIBLE_TESTS).items()}


def _texts(folder: Path) -> dict[str, str]:
    """Relative path -> text of every file under `folder`, sorted, byte-code caches left out."""
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def parse_swe_task(root: Path) -> SweTask:
    """Read one task folder; ConfigError naming the file and what is wrong."""
    meta_file = root / "task.yaml"
    if not meta_file.is_file():
        raise ConfigError(f"{meta_file}: missing (every swe-mini task folder has task.yaml)")
    meta = load_yaml(meta_file.read_text(encoding="utf-8"), str(meta_file), ConfigError) or {}
    if not isinstance(meta, dict) or not meta.get("title") or not meta.get("kind"):
        raise ConfigError(f"{meta_file}: needs a mapping with `title` and `kind`")
    for required in ("issue.md", "fix.patch", "repo", "hidden", f"repo/{VISIBLE_TESTS}"):
        if not (root / required).exists():
            raise ConfigError(f"{root / required}: missing (every swe-mini task folder has it)")
    task = SweTask(id=root.name, title=str(meta["title"]), kind=str(meta["kind"]),
                   issue=(root / "issue.md").read_text(encoding="utf-8").strip(), root=root)
    if not task.hidden_tests():
        raise ConfigError(f"{root / 'hidden'}: holds no test file")
    clash = sorted(set(task.hidden_tests()) & set(task.visible_tests()))
    if clash:
        raise ConfigError(f"{root / 'hidden'}: {clash} would replace visible tests of the repository")
    return task


def load_swe_tasks(data_dir: Path) -> list[SweTask]:
    """Every task folder under `data_dir`, sorted by id."""
    if not data_dir.is_dir():
        raise ConfigError(f"{data_dir}: the swe-mini data folder is missing")
    return [parse_swe_task(path) for path in sorted(data_dir.iterdir()) if path.is_dir()]


def _git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` with the fixed identity; AgentEvolveError with git's message when it fails."""
    env = {**os.environ, **_IDENTITY}
    done = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AgentEvolveError(f"git {' '.join(args)} failed in {cwd}: {(done.stderr or done.stdout).strip()}")
    return done.stdout.strip()


def base_repository(source: Path, target: Path) -> str:
    """The commit id of `target`, a repository of `source`'s files in one deterministic commit, built on first use."""

    def build(scratch: Path) -> None:
        shutil.copytree(source, scratch, dirs_exist_ok=True)
        _git(scratch, "init", "-q")
        _git(scratch, "add", "-A")
        _git(scratch, "commit", "-q", "-m", BASE_MESSAGE)

    build_once(target, build, done=lambda path: (path / ".git").is_dir())
    return _git(target, "rev-parse", "HEAD")


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
        digest = digest_of(task.repo_dir for task in self._index.value().values())
        return STAGING_ROOT / f"swe-mini-{digest}"

    def _build_repositories(self) -> dict[str, str]:
        """Task id -> base commit, making each task's git repository on first use."""
        root = self._repos_root()
        return {task_id: base_repository(task.repo_dir, root / task_id)
                for task_id, task in self._index.value().items()}

    def check_ready(self) -> None:
        """git is installed (the repositories are made with it) and every task folder reads."""
        if shutil.which("git") is None:
            raise MissingDependencyError("swe-mini needs `git` to make its task repositories: install git")
        self._commits.value()

    def to_task(self, task_id: str, record: SweTask) -> Task:
        """The issue as input; kind, title, base commit and visible tests as metadata."""
        metadata = {"kind": record.kind, "title": record.title, "base_commit": self._commits.value()[task_id],
                    "visible_tests": sorted(record.visible_tests())}
        return Task(id=task_id, input=f"# {record.title}\n\n{record.issue}{ISSUE_NOTE}", metadata=metadata)

    def environment(self, task: Task) -> EnvironmentSpec:
        """A checkout of the task's repository at its base commit."""
        self._index.get(task.id, self.name)
        commit = self._commits.value()[task.id]
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
            return screened.annotate(grade_isolated_pytest(fresh, sorted(tests), set(hidden), self.test_timeout_s))


def _base_text(repo_dir: Path, path: str) -> str | None:
    """A file's text at the base (the task's repository folder); None when the base has no such file."""
    root = repo_dir.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        return None
    return target.read_text(encoding="utf-8", errors="replace")
