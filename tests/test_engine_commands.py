"""Engines bring their own commands: the built-in ones through `ENGINE_COMMANDS`, a plugin's through the
`agent_evolve.commands` entry point group; `agent-evolve` lists them and a built-in command keeps its name."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from importlib import metadata

import click
import pytest
from click.testing import CliRunner

from agent_evolve import registry
from agent_evolve.algorithms.ratchet.cli import COMMANDS


@click.command("hello")
def hello() -> None:
    """A plugin engine's command."""
    click.echo("hello from a plugin")


@click.command("run")
def shadow() -> None:
    """A plugin command that would shadow `agent-evolve run`."""


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """One plugin whose entry point is a list of two commands; the CLI rebuilt with it, and without it after."""
    entry = metadata.EntryPoint("demo", f"{__name__}:PLUGIN_COMMANDS", "agent_evolve.commands")
    real = metadata.entry_points
    monkeypatch.setattr(registry.metadata, "entry_points",
                        lambda group: [entry] if group == "agent_evolve.commands" else real(group=group))
    yield
    monkeypatch.undo()
    importlib.reload(importlib.import_module("agent_evolve.cli.main"))


PLUGIN_COMMANDS = [hello, shadow]


def test_ratchet_registers_its_commands_through_the_registry() -> None:
    assert registry.engine_commands()[: len(COMMANDS)] == COMMANDS
    assert {c.name for c in COMMANDS} == {"skill", "meta", "synth", "audit", "curate", "capsule"}


def test_a_plugins_commands_join_the_command_line_without_shadowing_a_built_in(plugin: None) -> None:
    assert registry.engine_commands() == [*COMMANDS, hello, shadow]
    main = importlib.reload(importlib.import_module("agent_evolve.cli.main"))
    runner = CliRunner()
    assert runner.invoke(main.cli, ["hello"]).output == "hello from a plugin\n"
    assert "--agent" in runner.invoke(main.cli, ["run", "--help"]).output
