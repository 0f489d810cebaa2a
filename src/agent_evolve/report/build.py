"""Build a run's report from its workspace: read the records, compute the page, write it as one HTML file with inline
CSS and SVG, no script and nothing loaded from elsewhere (and the figures as PNGs)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

from agent_evolve.contract.paths import atomic_write
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.run_metrics import describe_edit_rates, edit_rates
from agent_evolve.engine.versioning import VersionControl, candidate_tag, pre_evolution_tag
from agent_evolve.report.figures import save_png, score_figure, spending_figure, svg_text
from agent_evolve.report.model import (GATED_OUTCOMES, GateTally, VersionNode, gate_tally, lineage, skill_bank,
                                       task_matrix)
from agent_evolve.userview.labels import evolvable_paths
from agent_evolve.userview.run import RunView, accepted_version, baseline_score, load_run, score_text


_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{margin-bottom:.2rem} h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;font-size:.85rem} td,th{border:1px solid #ddd;padding:.2rem .45rem;text-align:left}
.summary td:first-child{font-weight:600} .figure svg{max-width:100%;height:auto}
ul.tree,ul.tree ul{list-style:none;padding-left:1.4rem;border-left:1px dashed #bbb;margin:.2rem 0}
ul.tree li{margin:.35rem 0} .tag{font-family:monospace;font-weight:700;padding:.05rem .3rem;border-radius:3px}
.accepted{background:#d8f3dc} .rejected{background:#ffd6d6} .baseline{background:#e0e0e0}
.gate{color:#555;font-size:.85rem} pre.diff{background:#f7f7f7;padding:.6rem;overflow-x:auto;font-size:.8rem}
.add{color:#137333} .del{color:#b3261e} .hunk{color:#6a4fb3} .file{font-weight:700}
.matrix td{text-align:center;min-width:1.6rem} .s1{background:#b7e4c7} .s0{background:#f4c7c3} .sp{background:#fde9a9}
"""


def _gate_text(gate: dict | None) -> str:
    if not gate:
        return ""
    numbers = ", ".join(
        f"{key.replace('_', ' ')} {gate[key]:.3f}" for key in ("candidate_score", "incumbent_score", "delta")
        if isinstance(gate.get(key), (int, float))
    )
    return f"{numbers}; {gate.get('reason', '')}"


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)


def _scored_text(tally: GateTally) -> str:
    return f"{_count(tally.scored)} of {_count(tally.tasks)}"


def _tally_text(tally: GateTally | None) -> str:
    """Holdout tasks won, lost and tied and the tasks scored, e.g. `2 won, 0 lost, 4 tied; 6 of 6 holdout tasks scored`."""
    if tally is None or tally.wins is None:
        return ""
    return (f"{tally.wins} won, {_count(tally.losses)} lost, {_count(tally.ties)} tied; "
            f"{_scored_text(tally)} holdout tasks scored")


def _tree(node: VersionNode, tallies: dict[int, GateTally]) -> str:
    label = f'<span class="tag {escape(node.outcome)}">{escape(node.tag)}</span>'
    detail = f" cycle {node.cycle}, {escape(node.outcome)}" if node.cycle else " the starting workspace"
    tally = _tally_text(tallies.get(node.cycle)) if node.cycle else ""
    gate_text = "; ".join(part for part in (tally, _gate_text(node.gate)) if part)
    gate = f' <span class="gate">({escape(gate_text)})</span>' if node.gate else ""
    summary = f" &mdash; {escape(node.summary)}" if node.summary else ""
    children = "".join(_tree(child, tallies) for child in node.children)
    return f"<li>{label}{detail}{gate}{summary}" + (f"<ul>{children}</ul>" if children else "") + "</li>"


def _diff_html(text: str) -> str:
    lines = []
    for line in text.splitlines():
        kind = (
            "file" if line.startswith(("diff --git", "+++", "---"))
            else "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else ""
        )
        lines.append(f'<span class="{kind}">{escape(line)}</span>' if kind else escape(line))
    return "\n".join(lines)


def _score_class(score: float) -> str:
    return "s1" if score >= 1.0 else "s0" if score <= 0.0 else "sp"


def _table(headers: Sequence[str], body: Sequence[Sequence[str]], css: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers) if headers else ""
    rows = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in body)
    return f'<table class="{css}">{f"<thead><tr>{head}</tr></thead>" if head else ""}<tbody>{rows}</tbody></table>'


def _num(value: float | None) -> str:
    return "&ndash;" if value is None else f"{value:.3f}"


def summary_rows(run: RunView, baseline: float | None) -> list[tuple[str, str]]:
    """The summary table's rows: workspace, accepted version, baseline, cycles by outcome, spending, engine edits."""
    rows = run.rows
    tag, score = accepted_version(run.journal)
    outcomes = [r.outcome for r in rows]
    summary = [
        ("workspace", str(run.workspace)),
        ("accepted version", f"{tag} (holdout score {score_text(score)})"),
        ("baseline holdout score", score_text(baseline)),
        ("cycles", str(len(rows))),
        ("accepted / rejected / other", f"{outcomes.count('accepted')} / {outcomes.count('rejected')} / "
                                        f"{len(rows) - outcomes.count('accepted') - outcomes.count('rejected')}"),
        ("tokens / cost", f"{sum(r.tokens for r in rows):,} / ${sum(r.cost for r in rows):.4f}"),
    ]
    if rates := edit_rates(run.records):
        summary.append(("engine edits", describe_edit_rates(rates)))
    return summary


def render(run: RunView) -> str:
    """The run's whole page as one HTML string: its parts computed from the records, then laid out."""
    rows = run.rows
    baseline = baseline_score(run.journal)
    vc, layers = VersionControl(run.workspace), evolvable_paths(run.workspace)
    batches = run.observations()
    tallies = [gate_tally(row) for row in rows if row.outcome in GATED_OUTCOMES]  # in cycle order
    bank = skill_bank([(s.name, s.description) for s in AgentWorkspace(run.workspace).list_skills()],
                      [o for batch in batches.values() for o in batch])
    matrix = task_matrix({r.cycle: run.holdout_scores(r.cycle) for r in rows}, batches)
    title = f"agent-evolve run: {run.workspace.name}"
    tree = _tree(lineage(rows, run.journal), {t.cycle: t for t in tallies})
    summary = _table((), [(escape(k), escape(v)) for k, v in summary_rows(run, baseline)], "summary")
    cycles = _table(
        ("cycle", "outcome", "cycle score", "holdout", "batch", "version", "changed", "summary", "tokens", "cost $"),
        [(str(r.cycle), f'<span class="tag {escape(r.outcome)}">{escape(r.outcome)}</span>', _num(r.score),
          _num(r.holdout_score), _num(r.batch_score), escape(r.accepted_tag), escape(", ".join(r.changed_paths)),
          escape(r.summary), f"{r.tokens:,}", f"{r.cost:.4f}") for r in rows],
    )
    diffs = "".join(
        f"<details open><summary>cycle {r.cycle}: {escape(f'{r.outcome}: {r.summary}')}</summary><pre class=\"diff\">"
        f"{_diff_html(vc.get_diff(pre_evolution_tag(r.cycle), candidate_tag(r.cycle), layers)) or 'no change'}"
        "</pre></details>"
        for r in rows
        if r.outcome in GATED_OUTCOMES and vc.has_ref(pre_evolution_tag(r.cycle)) and vc.has_ref(candidate_tag(r.cycle))
    ) or "<p>No candidate was gated.</p>"
    gates = _table(
        ("cycle", "candidate", "outcome", "wins", "losses", "ties", "holdout tasks scored", "stopped", "reason"),
        [(str(t.cycle), escape(t.tag), f'<span class="tag {escape(t.outcome)}">{escape(t.outcome)}</span>',
          _count(t.wins), _count(t.losses), _count(t.ties), _scored_text(t), escape(t.stopped), escape(t.reason))
         for t in tallies],
        "gates",
    ) if tallies else "<p>No candidate was gated.</p>"
    skills = _table(
        ("skill", "description", "uses (train tasks)", "contribution (score with - without)"),
        [(escape(s.name), escape(s.description), str(s.uses), _num(s.contribution)) for s in bank],
    ) if bank else "<p>No skills in the accepted version.</p>"
    grid = _table(
        ("task", "split", *[f"c{c}" for c in matrix.cycles]),
        [(escape(t), matrix.split[t], *[
            f'<span class="{_score_class(matrix.cells[(t, c)])}">{matrix.cells[(t, c)]:.2f}</span>' if (t, c) in matrix.cells else ""
            for c in matrix.cycles]) for t in matrix.tasks],
        "matrix",
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title><style>{_CSS}</style></head>
<body>
<h1>{escape(title)}</h1>
<section id="summary"><h2>Summary</h2>{summary}</section>
<section id="curve"><h2>Scores</h2><div class="figure">{svg_text(score_figure(rows, baseline))}</div>{cycles}</section>
<section id="lineage"><h2>Lineage of versions</h2><ul class="tree">{tree}</ul>
<h3>Wins and losses per gate</h3>{gates}</section>
<section id="diffs"><h2>What each candidate changed</h2>{diffs}</section>
<section id="skills"><h2>Skill bank</h2>{skills}</section>
<section id="matrix"><h2>Results by task and cycle</h2>{grid}</section>
<section id="spending"><h2>Tokens and cost</h2><div class="figure">{svg_text(spending_figure(rows))}</div></section>
</body></html>
"""


def build_report(workspace: str | Path, output: str | Path, png_dir: str | Path | None = None) -> Path:
    """Write the report of the run in `workspace` to `output`; with `png_dir`, the figures as PNG files too."""
    run = load_run(workspace)
    target = Path(output)
    atomic_write(target, render(run))
    if png_dir is not None:
        save_png(score_figure(run.rows, baseline_score(run.journal)), Path(png_dir) / "scores.png")
        save_png(spending_figure(run.rows), Path(png_dir) / "spending.png")
    return target
