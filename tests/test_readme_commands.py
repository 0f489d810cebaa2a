"""Every `agent-evolve` command the README and docs/ show exists with every option it uses, and the README stays a
guide."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_evolve.cli.main import cli

README = Path(__file__).resolve().parents[1] / "README.md"


def _readme_commands(*pages: Path) -> list[list[str]]:
    """The argument lists of every `agent-evolve ...` line in the shell blocks of `pages` (default: the README;
    `&&` chains split)."""
    text = "".join(page.read_text(encoding="utf-8") for page in pages or (README,))
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            for part in line.split("&&"):
                words = shlex.split(part.split("#")[0])
                if words[:1] == ["agent-evolve"]:
                    commands.append(words[1:])
    return commands


def test_the_readme_is_a_guide_not_a_notebook() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) < 250


def test_the_readme_shows_commands() -> None:
    assert len(_readme_commands()) >= 6


@pytest.mark.parametrize("words", _readme_commands() + _readme_commands(*sorted(README.parent.glob("docs/*.md"))),
                         ids=lambda words: " ".join(words[:2]))
def test_each_command_and_option_exists(words: list[str]) -> None:
    result = CliRunner().invoke(cli, [words[0], "--help"])
    assert result.exit_code == 0, f"`agent-evolve {words[0]}` does not exist: {result.output}"
    if "Commands:" in result.output and len(words) > 1 and not words[1].startswith("-"):  # a group's subcommand
        result = CliRunner().invoke(cli, [*words[:2], "--help"])
        assert result.exit_code == 0, f"`agent-evolve {' '.join(words[:2])}` does not exist: {result.output}"
    options = set(re.findall(r"(?<![\w-])(-{1,2}[a-zA-Z][\w-]*)", result.output))
    used = [word.split("=")[0] for word in words[1:] if word.startswith("-")]
    missing = [option for option in used if option not in options]
    assert not missing, f"`agent-evolve {words[0]}` has no option {missing}"


def test_every_linked_page_exists() -> None:
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#:]+)\)", text):
        assert (README.parent / target).exists(), target
