"""The task folders of the swe-mini suite: an issue, a small repository, its hidden tests and a reference fix.

    <task-id>/task.yaml     title and kind of bug
    <task-id>/issue.md      the issue, written like a GitHub issue (what the agent reads)
    <task-id>/repo/         the repository at its base: the library and its visible tests (tests/)
    <task-id>/hidden/       tests that fail at the base and pass once the issue is fixed, by repository path
    <task-id>/fix.patch     a reference fix (`git apply` at the base)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_yaml import load_yaml

VISIBLE_TESTS = "tests"
"""The repository folder of the visible tests; hidden tests are copied next to them for grading."""


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

    @property
    def fix_patch(self) -> Path:
        return self.root / "fix.patch"

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
