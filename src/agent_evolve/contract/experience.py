"""Experience memory (docs/experience-memory.md): grader-verified train solutions as worked examples, one a line in
``memory/experience.jsonl``, shown as ``prompts/experience.yaml`` says; only train task ids may become examples."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from agent_evolve.contract.jsonl import dump_line, jsonl_problems, numbered_jsonl
from agent_evolve.contract.regular_files import read_text_if_present
from agent_evolve.contract.settings_rules import Rules, check_settings, is_int
from agent_evolve.errors import WorkspaceError
from agent_evolve.io.safe_yaml import load_yaml

EXPERIENCE_CATEGORY = "experience"
EXPERIENCE_FILE = f"memory/{EXPERIENCE_CATEGORY}.jsonl"
EXPERIENCE_SETTINGS = "prompts/experience.yaml"
SHORT_CHARS = 240  # the compact form: the solution's start and its last line within this length
Form = Literal["full", "short"]
FORMS: tuple[str, ...] = ("full", "short")


@dataclass(frozen=True)
class Example:
    """One train task the agent solved, as the grader verified: what was asked and the solution that passed."""

    task_id: str
    input: str
    solution: str
    short: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    def shown(self, form: str) -> str:
        """The solution in ``form`` (the short form falls back to the full one when it has none)."""
        return (self.short or self.solution) if form == "short" else self.solution


def short_form(solution: str, limit: int = SHORT_CHARS) -> str:
    """The solution itself when it fits ``limit``, else its opening and its last line joined by an ellipsis (a long
    last line keeps its end, where the answer is)."""
    text = solution.strip()
    if len(text) <= limit:
        return text
    last = text.splitlines()[-1].strip()[-(limit // 2):]
    head = text[: max(0, limit - len(last) - 5)].rstrip()
    return f"{head}\n...\n{last}"


def example(task_id: str, task_input: str, solution: str) -> Example:
    """An example with its short form computed."""
    return Example(task_id, task_input.strip(), solution.strip(), short_form(solution))


@dataclass(frozen=True)
class ExperienceSettings:
    """How the agent shows its experience: ``k`` nearest examples, in ``form``, within ``max_chars``."""

    k: int = 2
    form: Form = "full"
    max_chars: int = 1500

    def to_yaml(self) -> str:
        return f"k: {self.k}\nform: {self.form}\nmax_chars: {self.max_chars}\n"


_RULES: Rules = {
    "k": (lambda v: is_int(v) and 1 <= v <= 8, "an integer from 1 to 8"),
    "form": (lambda v: v in FORMS, f"one of {', '.join(FORMS)}"),
    "max_chars": (lambda v: is_int(v) and 200 <= v <= 8000, "an integer from 200 to 8000"),
}


def parse_experience_settings(data: Any, where: str = EXPERIENCE_SETTINGS) -> ExperienceSettings:
    """The settings of a loaded ``experience.yaml`` (None: the defaults); a WorkspaceError names what is wrong."""
    if data is None:
        return ExperienceSettings()
    if not isinstance(data, dict):
        raise WorkspaceError(f"{where}: expected a mapping of {', '.join(_RULES)}, got {type(data).__name__}")
    check_settings(data, _RULES, where, WorkspaceError)
    return ExperienceSettings(**data)


def read_experience_settings(root: Path) -> ExperienceSettings:
    """``prompts/experience.yaml`` under the workspace ``root``, or the defaults when it is absent."""
    path = root / EXPERIENCE_SETTINGS
    text = read_text_if_present(path)
    return ExperienceSettings() if text is None else parse_experience_settings(load_yaml(text, str(path)), str(path))


def parse_example(entry: dict[str, Any], where: str = EXPERIENCE_FILE) -> Example:
    """The example of one file entry; a WorkspaceError names ``where`` (the file and line) when it is not one."""
    fields = {key: entry.get(key) for key in ("task_id", "input", "solution")}
    missing = [key for key, value in fields.items() if not isinstance(value, str) or not value.strip()]
    if missing:
        raise WorkspaceError(f"{where}: an example needs non-empty text in {', '.join(missing)}")
    short = entry.get("short", "")
    return Example(fields["task_id"], fields["input"], fields["solution"], short if isinstance(short, str) else "")


def read_experience(root: Path) -> list[Example]:
    """The examples of ``memory/experience.jsonl`` under the workspace ``root`` ([] when it is absent)."""
    path = root / EXPERIENCE_FILE
    return [parse_example(entry, f"{path}:{line}") for line, entry in numbered_jsonl(path)]


def experience_problems(root: Path) -> list[str]:
    """What is wrong with the experience files, each naming its file (malformed JSON is the memory check's)."""
    problems = []
    try:
        read_experience_settings(root)
    except WorkspaceError as exc:
        problems.append(str(exc))
    if not jsonl_problems(root / EXPERIENCE_FILE):
        try:
            read_experience(root)
        except WorkspaceError as exc:
            problems.append(str(exc))
    return problems


def experience_text(examples: Sequence[Example], train_ids: Collection[str]) -> str:
    """The file's text for ``examples``; a WorkspaceError when one is not among ``train_ids`` (the run's train
    split as the trial runner knows it)."""
    leaked = sorted({e.task_id for e in examples} - set(train_ids))
    if leaked:
        raise WorkspaceError(f"{EXPERIENCE_FILE}: only train tasks may become examples; refused: {leaked[:10]}")
    return "".join(dump_line(e.to_dict(), EXPERIENCE_FILE) for e in examples)
