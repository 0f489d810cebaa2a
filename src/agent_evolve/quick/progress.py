"""Where the short API reports (the estimate first): the run command's live display on a terminal or in a notebook,
log lines (logger `agent_evolve.progress`) where logging is set up, plain lines on stderr otherwise."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from typing import Literal

from rich.console import Console

from agent_evolve.cli.progress import LiveProgress
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.engine.run_estimate import Estimate
from agent_evolve.errors import ConfigError
from agent_evolve.llm.usage import UsageLedger

LOG = logging.getLogger("agent_evolve.progress")
ProgressOption = bool | Literal["auto", "log"] | Callable[[ProgressEvent], None] | None


class LogLines(io.TextIOBase):
    """A text stream that sends each complete line to a logger at INFO."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger
        self.pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            if line.strip():
                self.logger.info(line.rstrip())
        return len(text)


def console_for(progress: bool | str | None) -> Console | None:
    """Stdout when asked (True) or watched ("auto"); with nobody watching, log lines ("log", or "auto" where a
    handler would receive them) or else stderr, so a script's output file shows the run; None for no progress."""
    if progress is False or progress is None:
        return None
    if not isinstance(progress, bool) and progress not in ("auto", "log"):
        raise ConfigError(f"progress must be 'auto', 'log', True, False or a function of each event, got {progress!r}")
    console = Console()
    if progress is True or (progress == "auto" and (console.is_terminal or console.is_jupyter)):  # someone watches
        return console
    if progress == "auto" and not LOG.hasHandlers():  # logging is not set up: its lines would go nowhere
        return Console(stderr=True, width=400, color_system=None)
    return Console(file=LogLines(LOG), width=400, color_system=None)


class RunReport:
    """The run's display plus the short API's own line (the estimate up front); `progress` as `evolve` takes it
    (your own function of each event gets the events alone)."""

    def __init__(self, progress: ProgressOption, estimate: Estimate, ledger: UsageLedger) -> None:
        own = callable(progress)  # your own function of each event
        self.console = console_for("log" if own else progress)  # type: ignore[arg-type]
        display = (LiveProgress(self.console, estimate.cycles, ledger, estimate)
                   if self.console is not None and not own else None)
        self.display: Callable[[ProgressEvent], None] | None = progress if own else display  # type: ignore[assignment]
        self.live = display

    def say(self, line: str) -> None:
        if self.console is not None:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def __enter__(self) -> RunReport:
        if self.live is not None:
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.__exit__(*exc)

    def __call__(self, event: ProgressEvent) -> None:
        if self.display is not None:
            self.display(event)
