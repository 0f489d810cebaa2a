"""`agent-evolve solver-cache`: look at a run's model reply cache (`list`) and pack a folder of one JSON file per
reply into the one-file store a cache keeps today (`pack`), so an experiment commits one file per cache."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from agent_evolve.contract.paths import RECORDS_DIR, REPLIES_DIR
from agent_evolve.llm.cache import cached_replies, pack_folder
from agent_evolve.llm.reply_store import STORE_NAME


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
    """Move each cache FOLDER's JSON reply files (<key[:2]>/<key>.json) into FOLDER/replies.sqlite, the one file
    the cache reads in place; a file that is not a cached reply stops the command, naming it, before anything is
    written. Nested caches (an experiment's replies/draw-<d>) are folders of their own: name each."""
    for folder in folders:
        packed = pack_folder(folder, remove=remove_json)
        removed = f", {packed.removed} files removed" if remove_json else ""
        click.echo(f"{folder}: {packed.files} JSON replies, {packed.added} new in {STORE_NAME}{removed}")
