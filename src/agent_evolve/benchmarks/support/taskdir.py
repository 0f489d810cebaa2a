"""Task folders of Terminal-Bench (task.yaml), Harbor (task.toml + instruction.md) and BenchFlow (task.md), and what
their environment starts from: the work directory, and the tree the local backend copies (the Dockerfile folder's
files at its last WORKDIR, RUN steps not run; skills at `.claude/skills/<name>/`)."""

from __future__ import annotations

import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent_evolve.benchmarks.support.staging import STAGING_ROOT, build_once, digest_of
from agent_evolve.contract.skills import split_frontmatter as split_yaml_block
from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_yaml import load_yaml

Layout = Literal["terminal-bench", "harbor", "benchflow"]

TB_AGENT_TIMEOUT = 360.0
TB_TEST_TIMEOUT = 60.0
HARBOR_TIMEOUT = 600.0
DEFAULT_WORKDIR = "/app"
"""The work directory of Terminal-Bench and Harbor images when the Dockerfile names none."""
SKILLS_DIR = ".claude/skills"
"""Where a task's bundled skills are installed in its work tree."""
NOT_COPIED = frozenset({"Dockerfile", "docker-compose.yaml", "docker-compose.yml", ".dockerignore", "skills",
                        "task.yaml", "task.toml", "instruction.md", "task.md", "tests", "verifier", "solution",
                        "solution.sh", "oracle", "run-tests.sh"})
"""Entries of a task's environment folder that are not part of the agent's tree."""
_WORKDIR = re.compile(r"^\s*WORKDIR\s+(\S+)\s*$", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class TaskDir:
    """One task folder: the instruction, its environment and the tests that grade it."""

    id: str
    root: Path
    layout: Layout
    instruction: str
    config: dict[str, Any]
    tests_dir: Path | None
    test_script: Path | None
    environment_dir: Path
    compose_file: Path | None
    dockerfile: Path | None
    docker_image: str | None
    agent_timeout: float
    test_timeout: float

    @property
    def skills_dir(self) -> Path | None:
        """The folder of Agent Skills shipped with the task (SkillsBench puts them in environment/skills)."""
        path = self.environment_dir / "skills"
        return path if path.is_dir() else None

    @property
    def metadata(self) -> dict[str, Any]:
        """Difficulty, category and tags, wherever the layout keeps them."""
        meta = self.config if self.layout == "terminal-bench" else self.config.get("metadata", {})
        return {key: meta[key] for key in ("difficulty", "category", "tags") if key in meta}


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """YAML front matter between --- lines (read as SKILL.md files are), and the body after it."""
    parts = split_yaml_block(text)
    if parts is None:
        return {}, text
    data = load_yaml(parts[0], "front matter", ConfigError) or {}
    if not isinstance(data, dict):
        raise ValueError("front matter must be a YAML mapping")
    return data, parts[1]


def _existing(path: Path) -> Path | None:
    """The path when it exists."""
    return path if path.exists() else None


def _seconds(section: Any, key: str, default: float) -> float:
    """A timeout from a config section, else the default."""
    if isinstance(section, dict) and section.get(key) is not None:
        return float(section[key])
    return default


def parse_task_dir(root: Path) -> TaskDir:
    """Read a task folder in any of the three layouts; a ConfigError naming it when it is none of them or is damaged."""
    try:
        if (root / "task.yaml").is_file():
            config = load_yaml((root / "task.yaml").read_text(encoding="utf-8"), str(root / "task.yaml"),
                               ConfigError) or {}
            if not config.get("instruction"):
                raise ConfigError(f"{root / 'task.yaml'}: no `instruction`")
            return TaskDir(
                id=root.name, root=root, layout="terminal-bench", instruction=str(config["instruction"]).strip(),
                config=config, tests_dir=_existing(root / "tests"), test_script=_existing(root / "run-tests.sh"),
                environment_dir=root, compose_file=_existing(root / "docker-compose.yaml"),
                dockerfile=_existing(root / "Dockerfile"), docker_image=None,
                agent_timeout=_seconds(config, "max_agent_timeout_sec", TB_AGENT_TIMEOUT),
                test_timeout=_seconds(config, "max_test_timeout_sec", TB_TEST_TIMEOUT))
        if (root / "task.toml").is_file() and (root / "instruction.md").is_file():
            config = tomllib.loads((root / "task.toml").read_text(encoding="utf-8"))
            instruction = (root / "instruction.md").read_text(encoding="utf-8")
            return _harbor_like(root, "harbor", config, instruction, root / "tests")
        if (root / "task.md").is_file():
            config, body = split_frontmatter((root / "task.md").read_text(encoding="utf-8"))
            tests = root / "verifier" if (root / "verifier").is_dir() else root / "tests"
            return _harbor_like(root, "benchflow", config, body, tests)
    except ConfigError:
        raise
    except (ValueError, OSError) as exc:  # TOML, UTF-8 and number errors among them
        raise ConfigError(f"{root}: cannot read the task folder: {exc}") from None
    raise ConfigError(f"{root}: not a task folder (no task.yaml, task.toml + instruction.md, or task.md)")


def _harbor_like(root: Path, layout: Layout, config: dict[str, Any], instruction: str, tests: Path) -> TaskDir:
    """Harbor and BenchFlow share environment/, a tests folder with test.sh, and agent/verifier timeouts."""
    env = root / "environment"
    if not instruction.strip():
        raise ConfigError(f"{root}: the instruction is empty")
    return TaskDir(
        id=root.name, root=root, layout=layout, instruction=instruction.strip(), config=config,
        tests_dir=_existing(tests), test_script=_existing(tests / "test.sh"), environment_dir=env,
        compose_file=_existing(env / "docker-compose.yaml"), dockerfile=_existing(env / "Dockerfile"),
        docker_image=config.get("environment", {}).get("docker_image"),
        agent_timeout=_seconds(config.get("agent"), "timeout_sec", HARBOR_TIMEOUT),
        test_timeout=_seconds(config.get("verifier"), "timeout_sec", HARBOR_TIMEOUT))


def is_task_dir(path: Path) -> bool:
    """Whether a folder looks like a task in one of the layouts."""
    return path.is_dir() and ((path / "task.yaml").is_file() or (path / "task.md").is_file()
                              or ((path / "task.toml").is_file() and (path / "instruction.md").is_file()))


def find_task_dirs(root: Path) -> list[TaskDir]:
    """The task itself, or every task folder directly under root (or under root/tasks), by name."""
    if is_task_dir(root):
        return [parse_task_dir(root)]
    base = root / "tasks" if (root / "tasks").is_dir() else root
    return [parse_task_dir(path) for path in sorted(base.iterdir()) if is_task_dir(path)]


def list_skills(skills_dir: Path | None) -> list[dict[str, str]]:
    """Name, description and path of each Agent Skill (a folder with SKILL.md) in a skills folder."""
    if skills_dir is None:
        return []
    found = [(md, split_frontmatter(md.read_text(encoding="utf-8"))[0]) for md in sorted(skills_dir.glob("*/SKILL.md"))]
    return [{"name": str(meta.get("name", md.parent.name)), "description": str(meta.get("description", "")).strip(),
             "path": str(md)} for md, meta in found]


def workdir_of(task: TaskDir) -> str:
    """The Dockerfile's last absolute WORKDIR, else /app."""
    if task.dockerfile is None:
        return DEFAULT_WORKDIR
    found = [w.rstrip("/") for w in _WORKDIR.findall(task.dockerfile.read_text(encoding="utf-8")) if w.startswith("/")]
    return found[-1] if found and found[-1] else DEFAULT_WORKDIR


def _copy_skills(task: TaskDir, tree: Path) -> None:
    if task.skills_dir is not None:
        shutil.copytree(task.skills_dir, tree / SKILLS_DIR)


def local_tree(task: TaskDir, with_skills: bool) -> Path:
    """A folder (built once) holding the task's starting files and, when asked, its skills under .claude/skills/."""
    kind = "skills" if with_skills else "noskills"
    target = STAGING_ROOT / f"tree-{task.id}-{digest_of([task.environment_dir])}-{kind}"

    def build(scratch: Path) -> None:
        for entry in sorted(task.environment_dir.iterdir()):
            if entry.name in NOT_COPIED:
                continue
            if entry.is_dir():
                shutil.copytree(entry, scratch / entry.name, symlinks=True)
            else:
                shutil.copy2(entry, scratch / entry.name)
        if with_skills:
            _copy_skills(task, scratch)

    return build_once(target, build)


def skills_tree(task: TaskDir) -> Path | None:
    """A folder (built once) of only the task's skills under .claude/skills/, copied into a container's workdir."""
    if task.skills_dir is None:
        return None
    target = STAGING_ROOT / f"skills-{task.id}-{digest_of([task.skills_dir])}"
    return build_once(target, lambda scratch: _copy_skills(task, scratch))
