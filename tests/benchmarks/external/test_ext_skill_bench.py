"""SkillsBench: Harbor and BenchFlow task folders, bundled skills where the agent reads them, no-skills condition."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evolve.benchmarks.adapters import dirbench
from agent_evolve.benchmarks.support.taskdir import list_skills, parse_task_dir, split_frontmatter
from agent_evolve.benchmarks.adapters.skill_bench import SkillBenchBenchmark
from agent_evolve.environments import CommandResult, open_environment
from agent_evolve.errors import MissingDependencyError
from agent_evolve.types import Task


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


def test_tasks_carry_their_skills_with_their_paths_in_the_environment(tasks_root: Path) -> None:
    tasks = _all(SkillBenchBenchmark(data_path=str(tasks_root)))
    assert set(tasks) == {"pdf-summary", "xlsx-totals"}
    assert tasks["pdf-summary"].metadata["skills"] == [{
        "name": "pdf", "description": "Extract text and tables from PDF files with pypdf. Use when the input is a "
        ".pdf document.", "path": "/root/.claude/skills/pdf/SKILL.md"}]
    assert tasks["xlsx-totals"].metadata["layout"] == "harbor"
    assert "sales.csv" in tasks["xlsx-totals"].input
    assert "- xlsx: Create and edit Excel workbooks" in tasks["xlsx-totals"].input
    assert "(/root/.claude/skills/csv-tools/SKILL.md)" in tasks["xlsx-totals"].input


def test_without_skills_nothing_is_listed(tasks_root: Path) -> None:
    tasks = _all(SkillBenchBenchmark(data_path=str(tasks_root), with_skills=False))
    assert all(task.metadata["skills"] == [] and ".claude" not in task.input for task in tasks.values())


def test_the_skills_are_installed_where_the_agent_reads_them(tasks_root: Path) -> None:
    bench = SkillBenchBenchmark(data_path=str(tasks_root), backend="local")
    task = _all(bench)["xlsx-totals"]
    with open_environment(bench.environment(task)) as env:
        assert env.workdir == "/root"
        assert env.list_files() == [".claude/skills/csv-tools/SKILL.md", ".claude/skills/xlsx/SKILL.md", "sales.csv"]
        shown = env.exec("cat /root/.claude/skills/xlsx/SKILL.md")
        assert shown.exit_code == 0 and "openpyxl.Workbook()" in shown.output
    bare = SkillBenchBenchmark(data_path=str(tasks_root), backend="local", with_skills=False)
    with open_environment(bare.environment(task)) as env:
        assert env.list_files() == ["sales.csv"]


def test_with_docker_the_skills_go_into_the_workdir(tasks_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dirbench, "build_image", lambda *args: CommandResult(exit_code=0, output="", output_size=0))
    bench = SkillBenchBenchmark(data_path=str(tasks_root), backend="docker")
    spec = bench.environment(_all(bench)["pdf-summary"])
    assert spec.backend == "docker" and spec.image == "agent-evolve/pdf-summary:latest" and spec.workdir == "/root"
    tree = Path(str(spec.source_dir))
    assert [p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()] == [".claude/skills/pdf/SKILL.md"]


def test_no_skills_image_is_built_without_the_skills_folder(tasks_root: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, list[str]] = {}

    def build(context: Path, tag: str, purpose: str, timeout_s: float) -> CommandResult:
        seen["tag"] = [tag]
        seen["skills"] = sorted(p.name for p in (context / "skills").iterdir())
        seen["files"] = sorted(p.name for p in context.iterdir())
        return CommandResult(exit_code=0, output="", output_size=0)

    monkeypatch.setattr(dirbench, "build_image", build)
    bench = SkillBenchBenchmark(data_path=str(tasks_root), with_skills=False, backend="docker")
    spec = bench.environment(Task(id="xlsx-totals", input=""))
    assert seen == {"tag": ["agent-evolve/xlsx-totals:noskills"], "skills": [],
                    "files": ["Dockerfile", "sales.csv", "skills"]}
    assert spec.image == "agent-evolve/xlsx-totals:noskills" and spec.source_dir is None
    assert (tasks_root / "xlsx-totals" / "environment" / "skills" / "xlsx" / "SKILL.md").exists()


def test_missing_data_names_env_var_and_source(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_SKILL_BENCH_DATA", raising=False)
    with pytest.raises(MissingDependencyError) as err:
        SkillBenchBenchmark().get_tasks()
    assert "AGENT_EVOLVE_SKILL_BENCH_DATA" in str(err.value) and "benchflow-ai/skillsbench" in str(err.value)
    with pytest.raises(MissingDependencyError, match="holds no task folder"):
        SkillBenchBenchmark(data_path=str(tmp_path)).get_tasks()
