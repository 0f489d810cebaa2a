"""The bank at the edges: the ledger's active skills on disk as Agent Skills (disk follows the ledger; skills found
in the workspace at the start are taken in), their evidence, and each round's held-out score."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_evolve.algorithms.ratchet.capsules import skill_stats
from agent_evolve.algorithms.ratchet.curator import CreditWeighting, SkillTally
from agent_evolve.algorithms.ratchet.ledger import Ledger
from agent_evolve.algorithms.ratchet.records import RatchetSkill
from agent_evolve.algorithms.ratchet.skill_forms import read_skills, write_skills
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.journal import CLOSING_PHASES, Journal, Phase
from agent_evolve.engine.records import RunRecords


def import_workspace_skills(ledger: Ledger, root: Path) -> list[str]:
    """Skills on disk the ledger does not know yet, recorded as imported ACTIVE skills; their names."""
    names = []
    for skill in read_skills(AgentWorkspace(root)):
        if ledger.skill(skill.name) is None:
            if skill.origin == "synthesized":
                skill.origin = "imported"
            ledger.put_skill(skill, 0, "in the workspace when Ratchet started")
            names.append(skill.name)
    return names


def write_bank(root: Path, ledger: Ledger) -> list[RatchetSkill]:
    """Make skills/ hold the ledger's active bank (retired skills leave the disk, not the ledger); the bank."""
    write_skills(AgentWorkspace(root), ledger.skills())
    return ledger.skills("ACTIVE")


def bank_stats(ledger: Ledger, skills: Sequence[RatchetSkill], weighting: CreditWeighting) -> list[SkillTally]:
    """Each skill's routed train trials and credits since it was added (what the curator decides on)."""
    capsules, verdicts = ledger.capsules(split="train"), ledger.verdicts()
    return [skill_stats(s, capsules, verdicts, weighting) for s in skills]


def cover_texts(ledger: Ledger, active: Sequence[RatchetSkill]) -> dict[str, str]:
    """What the cover guard compares a cluster with: the pattern a skill was born from, else its applies_when."""
    born = {d.subject: str(d.payload.get("pattern", "")) for d in ledger.decisions(kind="synth")}
    return {s.name: born.get(s.name) or f"{s.applies_when} {s.intent}".strip() for s in active}


def round_scores(root: Path) -> dict[int, float]:
    """Each finished round's held-out pass@1: its gated candidate's, else the accepted one's (round 0: baseline)."""
    journal = Journal(RunRecords(root).journal)
    scores: dict[int, float] = {}
    for entry in journal.entries(*CLOSING_PHASES):
        if entry.get("accepted_score") is not None:
            scores[int(entry["cycle"])] = float(entry["accepted_score"])
    for entry in journal.entries(Phase.GATED):
        decision = entry.get("decision") or {}
        if decision.get("candidate_score") is not None and int(entry["cycle"]) in scores:
            scores[int(entry["cycle"])] = float(decision["candidate_score"])
    return scores
