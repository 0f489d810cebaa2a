"""Guided synthesis: memory first, then a curator for proposed skills.

Each step: promote lessons that recur in episodic memory to semantic memory and write one lesson per failure
cluster (no model); then, for each proposed skill (the agent's drafts, and optionally one of the engine model's
own), the curator sees the closest existing skill and decides ACCEPT, MERGE or SKIP, and it reviews the most
similar existing pair the same way. All decisions precede the one write; a malformed reply fails the step.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from agent_evolve.algorithms.common.base import ModelEngine, StepInput
from agent_evolve.algorithms.common.edits import Edit, EditBatch, EditError
from agent_evolve.algorithms.common.evidence import Evidence
from agent_evolve.algorithms.common.generation import decide, merge, plan_targets, propose
from agent_evolve.algorithms.common.memory_ops import lessons, stage_promotions
from agent_evolve.algorithms.common.skill_ops import (DUPLICATE_THRESHOLD, draft_to_skill, most_similar,
    near_duplicates, read_skills)
from agent_evolve.algorithms.common.summaries import evidence_prompt
from agent_evolve.contract.skills import Skill
from agent_evolve.llm.errors import StructuredOutputError
from agent_evolve.types import StepResult


def distinct(candidates: list[Skill]) -> list[Skill]:
    """Candidates without near-duplicates of earlier ones (the agent often drafts the same lesson twice)."""
    kept: dict[str, Skill] = {}
    for candidate in candidates:
        closest = most_similar(candidate, kept)
        if closest is None or closest[1] < DUPLICATE_THRESHOLD:
            kept[candidate.name] = candidate
    return list(kept.values())


class GuidedSynthesisEngine(ModelEngine):
    """Memory-first evolution with an ACCEPT / MERGE / SKIP curator for skills."""

    name = "guided_synth"
    defaults: ClassVar[dict[str, Any]] = {
        "max_memories": 2,         # lessons written per step
        "promote_repeats": 3,      # an episodic lesson seen this often becomes one semantic entry (0: never)
        "promote_similarity": 0.6,  # tf-idf cosine from which two episodic entries are the same lesson
        "max_reviews": 3,          # proposed skills the curator reviews per step
        "propose": True,           # the engine model proposes one skill of its own
        "review_pairs": True,      # also review the most similar pair of existing skills
        "pair_threshold": 0.5,     # similarity from which an existing pair is reviewed
        "related_threshold": 0.2,  # below it, a proposal is shown with no existing skill (MERGE impossible)
        "failures_shown": 2,
        "prompt_chars": 2000,
    }

    def _step(self, step: StepInput) -> StepResult:
        """Lessons, proposals, curation, then one write."""
        batch = EditBatch(step.workspace, step.layers)
        decisions: list[str] = []
        try:
            if "memory" in step.layers:
                self._remember(batch, step.evidence)
            if "skills" in step.layers:
                decisions = self._curate(batch, step)
        except (StructuredOutputError, EditError) as exc:
            return StepResult(False, f"guided_synth: malformed proposal ({type(exc).__name__}: {exc})",
                              status="failed")
        return self.written(batch, {"decisions": decisions})

    def _remember(self, batch: EditBatch, evidence: Evidence) -> None:
        """Stage promotions of recurring lessons, then one lesson per failure cluster (largest first), skipping
        lessons memory already holds."""
        if self.params["promote_repeats"]:
            stage_promotions(batch, float(self.params["promote_similarity"]), int(self.params["promote_repeats"]),
                             self.source)
        for entry in lessons(evidence, self.source, self.params["max_memories"]):
            batch.try_add(Edit("add_memory", entry=entry))

    def _curate(self, batch: EditBatch, step: StepInput) -> list[str]:
        """Review drafts, the engine's own proposal and one similar pair; stage the outcomes."""
        workspace = step.workspace
        skills = read_skills(workspace)
        on_disk = set(skills)
        drafts = [draft_to_skill(d["name"], d["content"]) for d in workspace.list_drafts()]
        candidates = distinct([s for s in drafts if s is not None])
        if self.params["propose"]:
            candidates += self._own_proposal(step, skills)
        decisions = []
        for candidate in candidates[: self.params["max_reviews"]]:
            closest = most_similar(candidate, skills)
            existing = skills[closest[0]] if closest and closest[1] >= self.params["related_threshold"] else None
            decision = decide(self.llm, candidate, existing, self.max_tokens)
            if decision == "ACCEPT" and closest and closest[1] >= DUPLICATE_THRESHOLD:
                decision = "MERGE"
            decisions.append(f"{candidate.name}: {decision}")
            self._apply_decision(batch, skills, on_disk, decision, candidate, existing, new=True)
        if self.params["review_pairs"]:
            decisions += self._review_pair(batch, skills, on_disk)
        if workspace.list_drafts():
            batch.add(Edit("clear_drafts"))
        return decisions

    def _own_proposal(self, step: StepInput, skills: dict[str, Skill]) -> list[Skill]:
        """One new skill from the model for the largest failure cluster that no skill covers."""
        evidence = step.evidence
        targets = [t for t in plan_targets(evidence, {"skills"}, skills, limit=3) if t.action == "write_skill"]
        if not targets:
            return []
        request = evidence_prompt(evidence, step.workspace, step.layers, self.params["failures_shown"],
                                  self.params["prompt_chars"], step.rejected)
        edit = propose(targets[0], self.llm, evidence, request, skills, self.max_tokens, self.source)
        return [edit.skill] if edit.skill is not None else []

    def _review_pair(self, batch: EditBatch, skills: dict[str, Skill], on_disk: set[str]) -> list[str]:
        """The curator's decision on the most similar pair of existing skills; only MERGE changes anything."""
        pairs = near_duplicates({n: s for n, s in skills.items() if n in on_disk}, self.params["pair_threshold"])
        if not pairs:
            return []
        first, second, _ = pairs[0]
        decision = decide(self.llm, skills[second], skills[first], self.max_tokens)
        if decision == "MERGE":
            self._apply_decision(batch, skills, on_disk, decision, skills[second], skills[first], new=False)
        return [f"{second} with {first}: {decision}"]

    def _apply_decision(self, batch: EditBatch, skills: dict[str, Skill], on_disk: set[str], decision: str,
                        candidate: Skill, existing: Skill | None, new: bool) -> None:
        """Stage ACCEPT (write the candidate) or MERGE (write the merged skill, delete what it replaces)."""
        if decision == "SKIP" or (decision == "MERGE" and existing is None):
            return
        if decision == "ACCEPT":
            result, replaced = candidate, []
        else:
            assert existing is not None
            result = merge(self.llm, existing, candidate, self.max_tokens)
            if existing.name not in on_disk:  # merging into a skill accepted this step: keep its name
                result = replace(result, name=existing.name)
            replaced = [s.name for s in (existing, candidate) if s.name != result.name and (s is existing or not new)]
        batch.try_add(Edit("write_skill", skill=result))
        for name in replaced:
            batch.add(Edit("delete_skill", name=name))
            skills.pop(name, None)
        skills[result.name] = result
