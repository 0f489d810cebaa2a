"""The commands that look at (and roll back) a run's workspace, registered together by `cli.main`."""

from __future__ import annotations

import click

from agent_evolve.cli.diff import diff_command, show_command
from agent_evolve.cli.export import export_command, import_skills_command
from agent_evolve.cli.history import history_command
from agent_evolve.cli.init import init_command
from agent_evolve.cli.report import report_command
from agent_evolve.cli.rollback import rollback_command
from agent_evolve.cli.status import status_command

USERVIEW_COMMANDS: tuple[click.Command, ...] = (
    history_command,
    diff_command,
    show_command,
    rollback_command,
    status_command,
    init_command,
    export_command,
    import_skills_command,
    report_command,
)
