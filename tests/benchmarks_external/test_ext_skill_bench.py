"""SkillsBench: Harbor and BenchFlow task folders, their bundled skills, and the no-skills condition."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from agent_evolve.benchmarks.external.docker import CommandResult, DockerCLI
from agent_evolve.benchmarks.external.taskdir import list_skills, parse_task_dir, split_frontmatter
from agent_evolve.benchmarks.skill_bench import SkillBenchBenchmark
from agent_evolve.errors import MissingDependencyError
from agent_evolve.types import Task, Trajectory


@pytest.fixture
def tasks_root(fixtures: Path) -> Path:
    return fixtures / "skill_bench" / "tasks"


def _all(bench: SkillBenchBenchmark) -> dict[str, Task]:
    return {t.id: t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None)}


def test_benchflow_task_md(tasks_root: Path) -> None:
    task = parse_task_dir(tasks_root / "pdf-summary")
    assert task.layout == "benchflow" and task.instruction.startswith("Read `/root/contract.pdf`")
    assert task.tests_dir == tasks_root / "pdf-summary" / "verifier"
    assert task.test_script == tasks_root / "pdf-summary" / "verifier" / "test.sh"
    assert (task.agent_timeout, task.test_timeout) == (1200.0, 300.0)
    assert task.metadata == {"difficulty": "hard", "category": "office-white-collar", "tags": ["pdf"]}


def test_front_matter_split() -> None:
    meta, body = split_frontmatter("---\nname: x\ndescription: y\n---\n\n# Body\n")
    assert meta == {"name": "x", "description": "y"} and body == "# Body\n"
    assert split_frontmatter("no front matter") == ({}, "no front matter")


def test_bundled_skills_are_listed(tasks_root: Path) -> None:
    skills = list_skills(parse_task_dir(tasks_root / "xlsx-totals").skills_dir)
    assert [s["name"] for s in skills] == ["csv-tools", "xlsx"]
    assert skills[1]["description"].startswith("Create and edit Excel workbooks")
    assert skills[1]["path"].endswith("environment/skills/xlsx/SKILL.md")


def test_tasks_carry_their_skills(tasks_root: Path) -> None:
    tasks = _all(SkillBenchBenchmark(data_path=str(tasks_root)))
    assert set(tasks) == {"pdf-summary", "xlsx-totals"}
    assert [s["name"] for s in tasks["pdf-summary"].metadata["skills"]] == ["pdf"]
    assert tasks["xlsx-totals"].metadata["layout"] == "harbor"
    assert "sales.csv" in tasks["xlsx-totals"].input


def test_without_skills_nothing_is_listed(tasks_root: Path) -> None:
    tasks = _all(SkillBenchBenchmark(data_path=str(tasks_root), with_skills=False))
    assert all(task.metadata["skills"] == [] for task in tasks.values())


def test_no_skills_image_is_built_without_the_skills_folder(tasks_root: Path) -> None:
    seen: dict[str, list[str]] = {}

    class Recorder(DockerCLI):
        def require(self) -> None:
            """The daemon is "there"."""

        def run(self, args: Sequence[str], *, input_text: str | None = None, timeout: float | None = None,
                env: Mapping[str, str] | None = None) -> CommandResult:
            if args[0] == "build":
                context = Path(args[-1])
                seen["tag"] = [args[2]]
                seen["skills"] = sorted(p.name for p in (context / "skills").iterdir())
                seen["files"] = sorted(p.name for p in context.iterdir())
            if args[:2] == ["exec", "-e"]:
                return CommandResult(0, "PASSED /tests/test_outputs.py::test_totals_sheet\n1 passed in 0.2s\n", "")
            if args[-1] == "/logs/verifier/reward.txt":
                return CommandResult(0, "1\n", "")
            return CommandResult(0, "", "")

    bench = SkillBenchBenchmark(data_path=str(tasks_root), with_skills=False)
    bench.grader.docker = Recorder(purpose="grade skill-bench")
    feedback = bench.evaluate(Task(id="xlsx-totals", input=""), Trajectory("xlsx-totals", "```bash\npython3 x.py\n```"))
    assert seen == {"tag": ["agent-evolve/xlsx-totals:noskills"], "skills": [],
                    "files": ["Dockerfile", "sales.csv", "skills"]}
    assert feedback.success and feedback.score == 1.0
    assert (tasks_root / "xlsx-totals" / "environment" / "skills" / "xlsx" / "SKILL.md").exists()


def test_missing_data_names_env_var_and_source(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_SKILL_BENCH_DATA", raising=False)
    with pytest.raises(MissingDependencyError) as err:
        SkillBenchBenchmark().get_tasks()
    assert "AGENT_EVOLVE_SKILL_BENCH_DATA" in str(err.value) and "benchflow-ai/skillsbench" in str(err.value)
    with pytest.raises(MissingDependencyError, match="holds no task folder"):
        SkillBenchBenchmark(data_path=str(tmp_path)).get_tasks()
