"""HEAD's named transitions, the only code that moves a workspace to another version, driven by the loop. Tags:
pre-evo-N before a step, cand-N the step's result, evo-N an accepted version (evo-0 the baseline)."""

from __future__ import annotations

from agent_evolve.engine.versioning import BASELINE_TAG, VersionControl, accepted_tag, candidate_tag, pre_evolution_tag


def start(vc: VersionControl) -> str:
    """A fresh run: back to the starting workspace when an earlier try tagged it, else tag it now (pre-evo-0)."""
    pre = pre_evolution_tag(0)
    if vc.has_ref(pre):
        vc.reset_to(pre)
    else:
        vc.commit("workspace at the start of the run", tag=pre)
    return pre


def record_baseline(vc: VersionControl, summary: str) -> None:
    """Commit the bootstrapped workspace as the baseline version, evo-0."""
    vc.commit(f"cycle 0: {summary or 'starting workspace'}"[:200], tag=BASELINE_TAG)


def to_baseline(vc: VersionControl) -> None:
    """Check out the baseline version to measure it."""
    vc.reset_to(BASELINE_TAG)


def to_accepted(vc: VersionControl, accepted: str) -> None:
    """Check out the accepted version: before solving a batch, and before the gate measures the incumbent."""
    vc.reset_to(accepted)


def checkpoint(vc: VersionControl, cycle: int) -> None:
    """Tag the workspace as solving left it (memory the agent exported) pre-evo-N; commit only when it changed."""
    vc.commit_if_changed(f"cycle {cycle}: workspace before evolution", pre_evolution_tag(cycle))


def to_pre_evolution(vc: VersionControl, cycle: int) -> None:
    """Check out pre-evo-N for the engine's step (a resumed cycle that solved before it stopped)."""
    vc.reset_to(pre_evolution_tag(cycle))


def undo_step(vc: VersionControl, pre: str) -> None:
    """Throw away every edit of a failed or invalid step: back to `pre`."""
    vc.reset_to(pre)


def revert_paths(vc: VersionControl, pre: str, paths: list[str]) -> None:
    """Put back the paths a step edited outside its evolvable layers (HEAD stays where it is)."""
    vc.restore_paths(pre, paths)


def record_candidate(vc: VersionControl, cycle: int, summary: str) -> None:
    """Commit the step's result as the candidate cand-N, accepted or not."""
    vc.commit(f"cycle {cycle} candidate: {summary}"[:200], tag=candidate_tag(cycle))


def to_candidate(vc: VersionControl, cycle: int) -> None:
    """Check out the candidate cand-N: a resumed cycle, or the gate measuring it after the incumbent."""
    vc.reset_to(candidate_tag(cycle))


def accept(vc: VersionControl, cycle: int) -> str:
    """Tag the candidate cand-N as the accepted evo-N and check it out; returns the new tag."""
    tag = accepted_tag(cycle)
    vc.tag_many({tag: candidate_tag(cycle)})
    vc.reset_to(tag)
    return tag


def reject(vc: VersionControl, accepted: str) -> None:
    """Leave the candidate tagged and go back to the accepted version (a rejected or unfinished cycle)."""
    vc.reset_to(accepted)


def finalize(vc: VersionControl, chosen: str) -> None:
    """Check out the accepted version the engine picked as the run's final one."""
    vc.reset_to(chosen)


def rollback(vc: VersionControl, tag: str) -> None:
    """Check out the version a person rolled back to, between runs."""
    vc.reset_to(tag)
