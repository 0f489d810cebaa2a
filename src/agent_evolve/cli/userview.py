"""The commands on a run's workspace (`-w/--workspace`; history, status and report also take it positionally):
history, diff, show, status, rollback, report, init, export, import-skills and solver-cache (list, pack)."""

from __future__ import annotations

import functools
import json
from dataclasses import asdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from agent_evolve.contract.paths import RECORDS_DIR, REPLIES_DIR
from agent_evolve.export.exporter import export_workspace
from agent_evolve.export.coverage import HOSTS
from agent_evolve.export.portable import import_skills
from agent_evolve.llm.cache import STORE_NAME, cached_replies, pack_folder
from agent_evolve.report.build import build_report
from agent_evolve.userview.init import TEMPLATES, init_workspace
from agent_evolve.userview.labels import layer_diff, show_at
from agent_evolve.userview.rollback import rollback
from agent_evolve.userview.run import CycleRow, load_run, run_status, score_text

_EXISTING = click.Path(exists=True, file_okay=False)

workspace_option = click.option("-w", "--workspace", default=".", show_default=True, type=_EXISTING,
                                help="The run's workspace.")


def workspace_option_or_argument(command: Callable[..., Any]) -> Callable[..., Any]:
    """`-w/--workspace`, or the same as an optional first argument; the command receives `workspace`."""

    @functools.wraps(command)
    def merged(*args: Any, workspace: str | None, workspace_argument: str | None, **kwargs: Any) -> Any:
        if workspace and workspace_argument and Path(workspace).resolve() != Path(workspace_argument).resolve():
            raise click.UsageError(f"two workspaces named: {workspace_argument} and -w {workspace}")
        return command(*args, workspace=workspace or workspace_argument or ".", **kwargs)

    merged = click.option("-w", "--workspace", type=_EXISTING, help="The run's workspace (default: .).")(merged)
    return click.argument("workspace_argument", required=False, metavar="[WORKSPACE]", type=_EXISTING)(merged)


_OUTCOME_STYLE = {"accepted": "green", "rejected": "red", "failed": "yellow", "out_of_budget": "yellow"}


def history_table(rows: list[CycleRow], *, wide: bool = False, scored_on: str = "holdout") -> Table:
    """Cycle, outcome, scores, version, tokens and cost in full at 80 columns; the changed files fold into what
    width is left. `wide` adds each cycle's summary; `scored_on` heads the accepted score's column."""
    table = Table(title="evolution history", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("cycle", "outcome", scored_on, "batch", "version"):
        table.add_column(column, no_wrap=True)
    for column in ("tokens", "cost $"):
        table.add_column(column, no_wrap=True, justify="right")
    table.add_column("changed", overflow="fold", min_width=10)
    if wide:
        table.add_column("summary", overflow="fold", min_width=12)
    for row in rows:
        style = _OUTCOME_STYLE.get(row.outcome, "")
        cells = [str(row.cycle), f"[{style}]{row.outcome}[/]" if style else row.outcome,
                 score_text(row.holdout_score), score_text(row.batch_score), row.accepted_tag, f"{row.tokens:,}",
                 f"{row.cost:.4f}", "\n".join(row.changed_paths) or "-"]
        table.add_row(*cells, *([row.summary] if wide else []))
    return table


@click.command("history")
@workspace_option_or_argument
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON (every field, summaries included).")
@click.option("--wide", is_flag=True, help="Add each cycle's summary (wider than 80 columns).")
def history_command(workspace: str, as_json: bool, wide: bool) -> None:
    """One row per cycle of the run in WORKSPACE: outcome, scores, version, tokens, cost and what changed."""
    view = load_run(workspace)
    rows = view.rows
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    console = Console()
    if wide:
        console.width = max(console.width, 160)
    console.print(history_table(rows, wide=wide, scored_on=view.scored_on))


def _print(text: str, lexer: str) -> None:
    console = Console()
    if console.is_terminal:
        console.print(Syntax(text, lexer, theme="ansi_dark", background_color="default", word_wrap=True))
    else:
        click.echo(text, nl=False)


@click.command("diff")
@click.argument("a")
@click.argument("b")
@workspace_option
@click.option("--all-files", is_flag=True, help="Every file, not only the evolvable layers.")
def diff_command(a: str, b: str, workspace: str, all_files: bool) -> None:
    """The diff of the evolvable layers between versions A and B (evo-N, cand-N, pre-evo-N, baseline, final)."""
    _print(layer_diff(workspace, a, b, all_files=all_files), "diff")


@click.command("show")
@click.argument("version")
@click.argument("path", default="")
@workspace_option
def show_command(version: str, path: str, workspace: str) -> None:
    """A file (or folder listing) as it is at VERSION; without PATH, the workspace's top folder."""
    _print(show_at(workspace, version, path), "markdown" if path.endswith(".md") else "text")


@click.command("status")
@workspace_option_or_argument
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status_command(workspace: str, as_json: bool) -> None:
    """Cycle, phase, tasks done, accepted version and spending of the run in WORKSPACE."""
    status = run_status(workspace)
    if as_json:
        click.echo(json.dumps(asdict(status), indent=2))
        return
    state = "running" if status.live else f"finished ({status.ended})" if status.finished else "not running"
    click.echo(
        f"{state} | cycle {status.cycle}{'' if status.finished else f' | {status.phase}'}"
        f" | {status.cycles_recorded} cycles recorded | {status.tasks_done} train tasks done | accepted "
        f"{status.accepted_tag} ({score_text(status.accepted_score)}) | {status.tokens:,} tokens | ${status.cost:.4f}"
    )


@click.command("rollback")
@click.argument("version")
@workspace_option
@click.option("--force", is_flag=True, help="Also accept a version the gate never accepted (a candidate).")
def rollback_command(version: str, workspace: str, force: bool) -> None:
    """Make VERSION (evo-N, baseline, or with --force cand-N) the accepted version of the run in WORKSPACE."""
    done = rollback(workspace, version, force=force)
    click.echo(
        f"accepted version: {done.accepted} (holdout score {done.score:.3f}), was {done.previous}; "
        f"the next `agent-evolve run` continues from it at cycle {done.cycle + 1}"
    )


@click.command("report")
@workspace_option_or_argument
@click.option("-o", "--output", default="report.html", show_default=True, type=click.Path(dir_okay=False))
@click.option("--png", "png_dir", type=click.Path(file_okay=False), help="Also write the figures as PNG files here.")
def report_command(workspace: str, output: str, png_dir: str | None) -> None:
    """Write the run's report: score curves, lineage, diffs, skill bank, task matrix, tokens and cost."""
    path = build_report(workspace, output, png_dir)
    click.echo(f"report written to {path}" + (f"; figures in {png_dir}" if png_dir else ""))


@click.command("init")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--template", required=True, type=click.Choice(TEMPLATES), help="The seed workspace to start from.")
def init_command(directory: str, template: str) -> None:
    """Create a new workspace in DIRECTORY from a built-in template."""
    path = init_workspace(directory, template)
    click.echo(f"created {path} from the {template} template; see {path / 'README.md'}")


def _workspace_and_folder(workspace: str | None, paths: tuple[str, ...], workspace_first: bool) -> tuple[str, str]:
    """(workspace, folder) from `-w W FOLDER` or the older positional pair; anything else is a usage error."""
    if workspace is not None and len(paths) == 1:
        return workspace, paths[0]
    if workspace is None and len(paths) == 2:
        return (paths[0], paths[1]) if workspace_first else (paths[1], paths[0])
    raise click.UsageError("name the workspace with -w WORKSPACE and give one DIRECTORY")


_WORKSPACE = click.option("-w", "--workspace", type=_EXISTING, help="The run's workspace.")


@click.command("export")
@_WORKSPACE
@click.argument("paths", nargs=-1, metavar="DIRECTORY")
@click.option("--to", "host", required=True, type=click.Choice(list(HOSTS)), help="The host whose layout to write.")
@click.option("--with-prompt", is_flag=True,
              help="Also write the evolved prompt, program prompt, fragments, answer settings and memories as a "
                   "CLAUDE.md / AGENTS.md section.")
@click.option("--allow-partial", is_flag=True,
              help="Export even when evolved files have no place in the export (they are listed as a warning).")
@click.option("--replace", is_flag=True,
              help="Overwrite skill folders that hold files no export wrote (a host skill of the same name, or edits).")
def export_command(workspace: str | None, paths: tuple[str, ...], host: str, with_prompt: bool,
                   allow_partial: bool, replace: bool) -> None:
    """Write the workspace's accepted version into DIRECTORY where HOST finds it: skills as strictly valid Agent
    Skills, and with --with-prompt its other evolved instructions. Exits 1 naming any evolved file it would drop,
    unless --allow-partial, and any skill folder holding files no export wrote, unless --replace."""
    workspace, directory = _workspace_and_folder(workspace, paths, workspace_first=True)
    result = export_workspace(workspace, host, directory, with_prompt=with_prompt, allow_partial=allow_partial,
                              replace=replace)
    version = f" (accepted version {result.version})" if result.version else ""
    click.echo(f"exported {len(result.skills)} skills{version} to {directory} for {host}")
    if result.instructions:
        click.echo(f"instructions section written to {result.instructions}")
    carried = sorted(result.plan.carried)
    if carried:
        click.echo(f"evolved files carried: {', '.join(carried)}")
    for path, why in result.plan.dropped.items():
        click.echo(f"warning: evolved file not exported: {path} ({why})", err=True)
    for path, why in result.plan.ignored.items():
        click.echo(f"note: not exported: {path} ({why})", err=True)


@click.command("import-skills")
@_WORKSPACE
@click.argument("paths", nargs=-1, metavar="DIRECTORY")
def import_skills_command(workspace: str | None, paths: tuple[str, ...]) -> None:
    """Import the Agent Skills found in DIRECTORY (any host's layout) into the workspace."""
    workspace, directory = _workspace_and_folder(workspace, paths, workspace_first=False)
    if not Path(workspace).is_dir() or not Path(directory).is_dir():
        raise click.UsageError(f"{directory} and {workspace} must both be folders")
    names = import_skills(directory, workspace)
    click.echo(f"imported {len(names)} skills: {', '.join(names)}")


@click.group("solver-cache")
def solver_cache_group() -> None:
    """The model reply cache a run keeps (Ratchet's solver cache)."""


@solver_cache_group.command("list")
@click.option("--dir", "directory", type=click.Path(file_okay=False),
              help="A cache folder [default: the workspace's evolution/replies].")
@click.option("--workspace", "-w", default=".", show_default=True, type=click.Path(file_okay=False))
def solver_cache_list(directory: str | None, workspace: str) -> None:
    """Cached replies by model: how many and the tokens they cost when first asked."""
    folder = Path(directory) if directory else Path(workspace) / RECORDS_DIR / REPLIES_DIR
    if not folder.is_dir():
        raise click.ClickException(f"{folder}: no reply cache here (a run writes one under evolution/replies)")
    by_model: dict[str, list[int]] = {}
    for data in cached_replies(folder):
        try:
            usage = data.get("usage") or {}
            tokens = int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
        except (ValueError, TypeError, AttributeError):
            continue
        counts = by_model.setdefault(str(data.get("model", "?")), [0, 0])
        counts[0] += 1
        counts[1] += tokens
    table = Table(title=f"reply cache {folder}")
    for column in ("model", "replies", "tokens"):
        table.add_column(column, no_wrap=True)
    for model, (replies, tokens) in sorted(by_model.items()):
        table.add_row(model, str(replies), str(tokens))
    Console(soft_wrap=False).print(table)


@solver_cache_group.command("pack")
@click.argument("folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--remove-json", is_flag=True, help="Delete the JSON files once the store holds every reply.")
def solver_cache_pack(folders: tuple[str, ...], remove_json: bool) -> None:
    """Move each cache FOLDER's JSON reply files (<key[:2]>/<key>.json) into FOLDER/replies.sqlite, read in place;
    a file that is not a cached reply stops it before anything is written. Name nested caches (replies/draw-<d>)."""
    for folder in folders:
        packed = pack_folder(folder, remove=remove_json)
        removed = f", {packed.removed} files removed" if remove_json else ""
        click.echo(f"{folder}: {packed.files} JSON replies, {packed.added} new in {STORE_NAME}{removed}")


USERVIEW_COMMANDS: tuple[click.Command, ...] = (history_command, diff_command, show_command, rollback_command,
                                                status_command, init_command, export_command, import_skills_command,
                                                report_command, solver_cache_group)
