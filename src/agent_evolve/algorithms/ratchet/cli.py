"""Ratchet's commands over a run's ledger, registered through `registry.ENGINE_COMMANDS`: a user's action is filed
at the ledger's latest round as a decision and an audit event, and skills/ follows the bank."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from agent_evolve.algorithms.ratchet.bank import bank_stats, write_bank
from agent_evolve.algorithms.ratchet.curator import SkillTally, retirement
from agent_evolve.algorithms.ratchet.engine import RatchetEngine
from agent_evolve.algorithms.ratchet.ledger import Ledger, LedgerError, ledger_path
from agent_evolve.algorithms.ratchet.records import SKILL_STATUSES, Decision, RatchetSkill, SkillStatus
from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.algorithms.ratchet.skill_forms import load_yaml_bank, render_skill_md
from agent_evolve.config import EvolveConfig

_WORKSPACE = click.option(
    "--workspace", "-w", default=".", show_default=True, type=click.Path(exists=True, file_okay=False),
    help="The run's workspace (its ledger is evolution/ratchet.sqlite).",
)
_STATUS_STYLE = {"ACTIVE": "green", "DEPRECATED": "red", "CANDIDATE": "yellow"}
_PAYLOAD_CHARS = 160


def _ledger(workspace: str, *, create: bool = False) -> Ledger:
    """The workspace's ledger; a missing one is an error unless `create`."""
    path = ledger_path(workspace)
    if not create and not path.is_file():
        raise LedgerError(f"{path}: no Ratchet ledger here; run with --engine ratchet or `agent-evolve skill load`")
    return Ledger.open(path)


def _show(title: str, fixed: tuple[str, ...], folded: tuple[str, ...], rows: Iterable[Sequence[str]],
          right: tuple[str, ...] = ()) -> None:
    """Print `rows` as a table: `fixed` columns that never wrap, `right` ones right-aligned, then `folded` ones."""
    table = Table(title=title)
    for column in fixed + right:
        table.add_column(column, no_wrap=True, justify="right" if column in right else "left")
    for column in folded:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*row)
    Console(soft_wrap=False).print(table)


def _skill(ledger: Ledger, name: str) -> RatchetSkill:
    """The skill named `name`; LedgerError naming the ledger when it never saw one."""
    skill = ledger.skill(name)
    if skill is None:
        raise LedgerError(f"{ledger.path}: no skill named {name!r}; `agent-evolve skill list` shows them")
    return skill


def _user_action(ledger: Ledger, kind: str, subject: str, payload: dict[str, object]) -> int:
    """Record a user's action as a decision and an audit event at the latest round; that round."""
    round_ = ledger.last_round()
    ledger.add_decision(Decision(round_, kind, subject, {"by": "user", **payload}))
    ledger.audit(kind, {"skill": subject, "by": "user", **payload}, round=round_)
    return round_


@click.group("skill")
def skill_group() -> None:
    """The skills of a Ratchet run: list, show, load a YAML bank, retire, unretire."""


@skill_group.command("list")
@_WORKSPACE
@click.option("--status", type=click.Choice(SKILL_STATUSES), help="Only skills with this status.")
def skill_list(workspace: str, status: SkillStatus | None) -> None:
    """Every skill the run has known (ACTIVE, DEPRECATED, CANDIDATE) with the curator's evidence for it."""
    with _ledger(workspace) as ledger:
        skills = ledger.skills(status)
        stats = _stats(ledger, skills)
    rows = [(s.name, f"[{_STATUS_STYLE[s.status]}]{s.status}[/]" + (" (locked)" if s.do_not_retire else ""),
             s.origin, str(s.created_round), str(st.trials), str(st.successes), str(st.failures),
             f"{st.contribution:+.3f}", str(st.helped), str(st.hurt), s.description) for s, st in zip(skills, stats)]
    _show(f"Ratchet skills ({len(skills)})", ("name", "status", "origin", "since"), ("description",), rows,
          ("trials", "successes", "failures", "contribution", "helped", "hurt"))


def _stats(ledger: Ledger, skills: list[RatchetSkill]) -> list[SkillTally]:
    """Each skill's evidence (`bank.bank_stats`), credited as the run credits it."""
    return bank_stats(ledger, skills, _run_settings(ledger).credit_weighting)


@skill_group.command("show")
@click.argument("name")
@_WORKSPACE
def skill_show(name: str, workspace: str) -> None:
    """A skill as its SKILL.md, then its status history."""
    with _ledger(workspace) as ledger:
        skill = _skill(ledger, name)
        history = ledger.status_history(name)
    click.echo(render_skill_md(skill))
    _show(f"status history of {name}", (), ("round", "status", "reason"),
          [(str(round_), status, reason) for round_, status, reason in history])


@skill_group.command("load")
@click.argument("bank", required=False, type=click.Path(exists=True, path_type=Path))
@_WORKSPACE
def skill_load(bank: Path | None, workspace: str) -> None:
    """Import a Ratchet-style YAML bank (a file or a folder of .yaml files; default: the .yaml files dropped into
    the workspace's skills/, as Ratchet's `skill load` reads them) into the ledger and skills/."""
    bank = bank if bank is not None else Path(workspace) / "skills"
    skills = load_yaml_bank(bank)
    with _ledger(workspace, create=True) as ledger:
        round_ = ledger.last_round()
        for skill in skills:
            skill.created_round = round_
            ledger.put_skill(skill, round_, f"imported from {bank}")
        ledger.audit("skill_load", {"bank": str(bank), "skills": [s.name for s in skills]}, round=round_)
        write_bank(Path(workspace), ledger)
    locked = sum(s.do_not_retire for s in skills)
    click.echo(f"loaded {len(skills)} skills from {bank} ({locked} do_not_retire): {', '.join(s.name for s in skills)}")


_CHANGES: dict[str, tuple[str, SkillStatus | bool, str, str]] = {
    "retire": ("status", "DEPRECATED", "retired", "Mark a skill DEPRECATED: it leaves skills/ and routing; its "
               "evidence stays."),
    "unretire": ("status", "ACTIVE", "unretired",
                 "Make a DEPRECATED (or CANDIDATE) skill ACTIVE again: back in skills/ and routing."),
    "lock": ("do_not_retire", True, "locked",
             "Set do_not_retire: the curator never retires or evicts it, but still reports it."),
    "unlock": ("do_not_retire", False, "unlocked", "Clear do_not_retire: the curator may retire or evict it."),
}
"""The `skill` commands that change one field of a skill: (field, value, the default reason's verb, help)."""


def _change_command(command: str, field: str, value: SkillStatus | bool, done: str, text: str) -> None:
    """Add `skill <command> NAME [--reason]`: set one field, recorded as a user decision and audit event."""

    @skill_group.command(command, help=text)
    @click.argument("name")
    @_WORKSPACE
    @click.option("--reason", default=f"{done} by the user", show_default=True, help="Why (kept in the ledger).")
    def change(name: str, workspace: str, reason: str) -> None:
        with _ledger(workspace) as ledger:
            skill = _skill(ledger, name)
            was = getattr(skill, field)
            if was == value:
                click.echo(f"{name}: {field} is already {value}")
                return
            round_ = _user_action(ledger, command, name, {"reason": reason, "field": field, "was": was, "now": value})
            if field == "status":
                ledger.set_status(name, value, round_, reason)  # type: ignore[arg-type]
            else:
                skill.do_not_retire = bool(value)
                ledger.put_skill(skill, round_, reason)
            write_bank(Path(workspace), ledger)
        click.echo(f"{name}: {field} {was} -> {value} at round {round_} ({reason}); its evidence stays in the ledger")


for _command, _change in _CHANGES.items():
    _change_command(_command, *_change)


@click.group("meta")
def meta_group() -> None:
    """The meta-skills of a Ratchet run (the synthesizer's authoring prior, one active per suite)."""


@meta_group.command("list")
@_WORKSPACE
def meta_list(workspace: str) -> None:
    """Every meta-skill, by suite, with whether it is the suite's active one."""
    with _ledger(workspace) as ledger:
        metas = ledger.meta_skills()
    _show(f"Ratchet meta-skills ({len(metas)})", ("suite", "name", "active", "since"), ("advice",),
          [(m.suite, m.name, "[green]yes[/]" if m.active else "no", str(m.created_round),
            next((line for line in m.body.splitlines() if line.strip()), "")) for m in metas])


@click.command("audit")
@_WORKSPACE
@click.option("--limit", default=50, show_default=True, type=click.IntRange(min=1), help="How many events.")
def audit_command(workspace: str, limit: int) -> None:
    """The run's audit trail, newest first: rounds, synthesis, curation, rollbacks, imports, user actions."""
    with _ledger(workspace) as ledger:
        events = ledger.audit_trail(limit)
    rows = []
    for e in events:
        when = datetime.datetime.fromtimestamp(e["created_at"], tz=datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")
        details = json.dumps(e["payload"], sort_keys=True)
        details = details[:_PAYLOAD_CHARS] + ("..." if len(details) > _PAYLOAD_CHARS else "")
        rows.append((e["id"], "-" if e["round"] is None else str(e["round"]), when, e["event"], details))
    _show(f"Ratchet audit (newest {len(events)})", ("id", "round", "when", "event"), ("details",), rows)


@click.command("curate")
@_WORKSPACE
@click.option("--min-trials", type=click.IntRange(min=1), help="Routed trials before retirement [default: the run's].")
@click.option("--threshold", type=float, help="Retire at contribution <= this [default: the run's].")
@click.option("--dry-run", is_flag=True, help="Show the decisions without applying them.")
def curate_command(workspace: str, min_trials: int | None, threshold: float | None, dry_run: bool) -> None:
    """Re-run retirement on the active bank now, with the run's thresholds unless given; do_not_retire reported."""
    with _ledger(workspace) as ledger:
        settings = _run_settings(ledger)
        min_trials = settings.retire_min_trials if min_trials is None else min_trials
        threshold = settings.retire_threshold if threshold is None else threshold
        decided = retirement(_stats(ledger, ledger.skills("ACTIVE")), min_trials, threshold)
        if not dry_run:
            round_ = ledger.last_round()
            for d in decided:
                if d.action == "retire":
                    ledger.set_status(d.name, "DEPRECATED", round_, f"curate by the user: {d.reason}")
            rows = [d.to_dict() for d in decided]
            _user_action(ledger, "curate", "bank", {"min_trials": min_trials, "threshold": threshold, "decisions": rows})
            write_bank(Path(workspace), ledger)
    _show(f"curate{' (dry run)' if dry_run else ''}: >= {min_trials} trials and <= {threshold:+.2f}",
          ("skill", "action", "trials", "contribution"), ("reason",),
          [(d.name, d.action, str(d.trials), f"{d.contribution:+.3f}", d.reason) for d in decided])


def _run_settings(ledger: Ledger) -> RatchetSettings:
    """The settings the run started with (its latest `start` audit event holding them), else the defaults."""
    started = [e for e in ledger.audit_events(event="start") if isinstance(e["payload"].get("settings"), dict)]
    return (RatchetSettings.from_params(started[0]["payload"]["settings"], f"{ledger.path}: the run's settings")
            if started else RatchetSettings())


@click.group("capsule")
def capsule_group() -> None:
    """The run's capsules (one per task attempt)."""


@capsule_group.command("prune")
@_WORKSPACE
@click.option("--keep-days", required=True, type=click.FloatRange(min=0), help="Keep capsules younger than this.")
def capsule_prune(workspace: str, keep_days: float) -> None:
    """Delete capsules older than --keep-days (the ledger's only deletion; verdicts and decisions stay)."""
    with _ledger(workspace) as ledger:
        removed = ledger.prune_capsules(keep_days)
        left = sum(attempts for attempts, _ in ledger.routing_by_round().values())
    click.echo(f"removed {removed} capsules older than {keep_days:g} days; {left} left")


@click.group("synth")
def synth_group() -> None:
    """Synthesis on demand."""


@synth_group.command("metaskills")
@_WORKSPACE
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False),
              help="EvolveConfig YAML naming the engine model [default: the embedded model].")
@click.option("--suite", help="The meta-skill suite (code, math) [default: the run's].")
def synth_metaskills(workspace: str, config_path: str | None, suite: str | None) -> None:
    """Write a new active meta-skill for the suite now (the manual refresh; the old one stays, inactive)."""
    with _ledger(workspace) as ledger:
        params = {**_run_settings(ledger).to_dict(), **({"suite": suite} if suite else {})}
        engine = RatchetEngine(config=EvolveConfig.from_yaml(config_path) if config_path else None, **params)
        round_ = ledger.last_round()
        name = engine.refresh_meta(ledger, round_)
        _user_action(ledger, "synth_metaskills", name or "-", {"suite": suite or params["suite"], "written": name})
    click.echo(f"new active meta-skill: {name}" if name else "the model's reply was unusable; nothing written")


COMMANDS: list[click.Command] = [skill_group, meta_group, synth_group, audit_command, curate_command, capsule_group]
"""Ratchet's commands, added to `agent-evolve` through `registry.ENGINE_COMMANDS`."""
