"""Live progress display for `agent-evolve run` and the closing summary."""

from __future__ import annotations

import shlex
import time
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from agent_evolve.contract.paths import RECORDS_DIR
from agent_evolve.engine.loop import ARM_PHASE, BASELINE_SCORED, TEST_PHASE, ProgressEvent
from agent_evolve.engine.run_estimate import Estimate
from agent_evolve.engine.run_metrics import describe_edit_rates, scored_on
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import EvolutionResult
from agent_evolve.userview.learned import learned_line

_PHASES = {
    "baseline": "scoring the starting workspace on the holdout",
    "solve": "solving train tasks",
    "step": "engine editing the workspace",
    "gate": "scoring the candidate on the holdout",
    "recorded": "cycle recorded",
    "out_of_budget": "budget exhausted",
    "gate_warning": "long gate ahead",
    TEST_PHASE: "scoring on the test split",
}
PLAIN_EVERY_TASKS = 10  # without a terminal: one line per phase change and every this many finished tasks


class LiveProgress:
    """Progress of a run: a live status line on a terminal (redrawn four times a second, so its clock ticks), plain
    log lines when stdout is a file or a pipe; each experiment arm starts afresh."""

    def __init__(self, console: Console, total_cycles: int, ledger: UsageLedger | None = None,
                 estimate: Estimate | None = None):
        self.console = console
        self.total_cycles = total_cycles
        self.ledger = ledger
        self.estimate = estimate  # with it, the time left is said once, after the first cycle
        self.started = time.monotonic()
        self.score: float | None = None
        self.arm = ""
        self.plain = not console.is_terminal
        self._last: tuple[int, str] | None = None
        self._event: ProgressEvent | None = None
        self.live = Live(console=console, refresh_per_second=4, transient=False, get_renderable=self._render)

    def __enter__(self) -> LiveProgress:
        if not self.plain:
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.plain:
            self.live.__exit__(*exc)  # type: ignore[arg-type]

    def __call__(self, event: ProgressEvent) -> None:
        if event.phase == ARM_PHASE:
            self.arm, self.score, self.started, self._last = event.message, None, time.monotonic(), None
            self.console.print(f"== {self.arm} ==", markup=False, highlight=False)
            return
        if event.score is not None:
            self.score = event.score
        if event.phase == BASELINE_SCORED:
            self.console.print(f"{self._prefix()}baseline holdout score {event.score:.3f} ({event.total} tasks)",
                               markup=False, highlight=False)
            return
        if event.phase == "recorded":
            self.console.print(f"{self._prefix()}cycle {event.cycle}/{self.total_cycles} {event.message}",
                               markup=False, highlight=False, soft_wrap=True)
            if self.estimate is not None and event.cycle < self.estimate.cycles:
                self.console.print(self.estimate.time_left(event.cycle, time.monotonic() - self.started),
                                   markup=False, highlight=False, soft_wrap=True)
                self.estimate = None
            self._last = (event.cycle, event.phase)
            return
        self._event = event
        if self.plain and self._plain_due(event):
            self.console.print(self.line(event), markup=False, highlight=False, soft_wrap=True)

    def _render(self) -> Text:
        """The live line as of now: the last event, with the tokens and the clock read at each refresh."""
        return Text(self.line(self._event) if self._event is not None else "")

    def _plain_due(self, event: ProgressEvent) -> bool:
        """A plain line at each phase change, every PLAIN_EVERY_TASKS tasks, and at a phase's last task."""
        changed = self._last != (event.cycle, event.phase)
        self._last = (event.cycle, event.phase)
        finished = event.total > 0 and event.done == event.total
        return changed or finished or (event.done > 0 and event.done % PLAIN_EVERY_TASKS == 0)

    def line(self, event: ProgressEvent) -> str:
        tokens = f" | {self.ledger.total().total_tokens:,} tokens" if self.ledger is not None else ""
        tasks = f" {event.done}/{event.total} tasks" if event.total else ""
        in_loop = event.phase != TEST_PHASE
        score = f" | score {self.score:.3f}" if self.score is not None and in_loop else ""
        note = f": {event.message}" if event.message else ""
        cycle = f"cycle {event.cycle}/{self.total_cycles} | " if in_loop else ""
        return (f"{self._prefix()}{cycle}{_PHASES.get(event.phase, event.phase)}{note}{tasks}{score}{tokens} | "
                f"{time.monotonic() - self.started:,.0f}s")

    def _prefix(self) -> str:
        return f"{self.arm} | " if self.arm else ""


def _where_to_look(details: dict, workspace: Path) -> str:
    """The command that shows the accepted change, or why there is none."""
    if not details.get("accepted", 0):
        return f"nothing was accepted (each cycle's verdict: agent-evolve history -w {shlex.quote(str(workspace))})"
    return f"agent-evolve diff -w {shlex.quote(str(workspace))} baseline {details.get('accepted_tag', 'final')}"


def learned_note(result: EvolutionResult) -> str | None:
    """The summary's one line on what the accepted change learned from the data and on what evidence (printed
    under the table, unwrapped); None when nothing was accepted."""
    line = learned_line(result.details, result.final_score)
    return None if line is None else f"learned: {line}"


def summary_table(result: EvolutionResult, wall_seconds: float, ledger: UsageLedger | None = None) -> Table:
    """The closing summary: scores (train scores, so named, in a run without a gate), accepted and rejected cycles,
    tokens (the `ledger`'s totals when given, else the cycles' recorded usage), wall time, where things are."""
    details = result.details
    workspace = Path(details.get("workspace", "."))
    usage = {r: u.to_dict() for r, u in ledger.by_role().items()} if ledger is not None else details.get("usage", {})
    tokens = {role: int(u.get("input_tokens", 0) + u.get("output_tokens", 0)) for role, u in usage.items()}
    table = Table(title="evolution summary", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    holdout = int(details.get("holdout_size", 0))
    kind = scored_on(holdout)
    rows = [
        (f"baseline {kind} score", f"{details.get('baseline_score', 0.0):.3f}"),
        (f"final {kind} score", f"{result.final_score:.3f} ({details.get('accepted_tag', '')})"),
        ("holdout tasks", str(holdout) if holdout else "0 (no gate: every valid edit was kept)"),
        ("cycles", str(result.cycles_completed)),
        ("accepted / rejected", f"{details.get('accepted', 0)} / {details.get('rejected', 0)}"),
        ("unchanged / failed", f"{details.get('unchanged', 0)} / {details.get('failed', 0)}"),
        *([("engine edits", describe_edit_rates(details["edits"]))] if details.get("edits") else []),
        ("task errors", ", ".join(f"{kind}: {n}" for kind, n in details.get("errors", {}).items()) or "none"),
        ("tokens", f"{sum(tokens.values()):,}" + "".join(f"  {role}: {n:,}" for role, n in tokens.items())),
        ("wall time", f"{wall_seconds:,.0f} s"),
        ("stopped because", details.get("stop_reason") or "all cycles done"),
        ("workspace", str(workspace)),
        ("records", str(workspace / RECORDS_DIR)),
        ("what changed", _where_to_look(details, workspace)),
    ]
    for what, value in rows:
        table.add_row(what, value)
    return table
