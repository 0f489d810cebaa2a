"""Build a run's report from its workspace: read the records, compute the page, write HTML (and PNGs)."""

from __future__ import annotations

from pathlib import Path

from agent_evolve.contract.paths import atomic_write
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.run_metrics import describe_edit_rates, edit_rates
from agent_evolve.engine.versioning import VersionControl, candidate_tag, pre_evolution_tag
from agent_evolve.report.figures import save_png, score_figure, spending_figure, svg_text
from agent_evolve.report.html import ReportPage, render
from agent_evolve.report.model import GATED_OUTCOMES, gate_tallies, lineage, skill_bank, task_matrix
from agent_evolve.userview.run import RunView, accepted_version, baseline_score, load_run, score_text
from agent_evolve.userview.labels import evolvable_paths


def report_page(run: RunView) -> ReportPage:
    rows = run.rows
    tag, score = accepted_version(run.journal)
    baseline = baseline_score(run.journal)
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
    vc, layers = VersionControl(run.workspace), evolvable_paths(run.workspace)
    diffs = [
        (r.cycle, f"{r.outcome}: {r.summary}", vc.get_diff(pre_evolution_tag(r.cycle), candidate_tag(r.cycle), layers))
        for r in rows
        if r.outcome in GATED_OUTCOMES and vc.has_ref(pre_evolution_tag(r.cycle)) and vc.has_ref(candidate_tag(r.cycle))
    ]
    batches = run.observations()
    skills = [(s.name, s.description) for s in AgentWorkspace(run.workspace).list_skills()]
    gates = {r.cycle: run.holdout_scores(r.cycle) for r in rows}
    return ReportPage(
        title=f"agent-evolve run: {run.workspace.name}",
        summary=summary,
        score_svg=svg_text(score_figure(rows, baseline)),
        spending_svg=svg_text(spending_figure(rows)),
        rows=rows,
        tree=lineage(rows, run.journal),
        gates=gate_tallies(rows),
        diffs=diffs,
        skills=skill_bank(skills, [o for batch in batches.values() for o in batch]),
        matrix=task_matrix(gates, batches),
    )


def build_report(workspace: str | Path, output: str | Path, png_dir: str | Path | None = None) -> Path:
    """Write the report of the run in `workspace` to `output`; with `png_dir`, the figures as PNG files too."""
    run = load_run(workspace)
    target = Path(output)
    atomic_write(target, render(report_page(run)))
    if png_dir is not None:
        save_png(score_figure(run.rows, baseline_score(run.journal)), Path(png_dir) / "scores.png")
        save_png(spending_figure(run.rows), Path(png_dir) / "spending.png")
    return target
