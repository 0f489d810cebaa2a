"""Adaptive evolution: failure patterns, auto-seeded skills, edits as dense as the reward trend calls for.

Each step: record the batch reward (engine state) and set the number of model edits from the recent trend; seed
a template skill for every recurring failure kind no skill covers (no model); ask the model for that many
bounded edits, one target each; then sanity fixes (size caps, near-duplicate skills, memory dedup). Everything
is validated before the single write.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agent_evolve.algorithms.common.base import ModelEngine, StepInput
from agent_evolve.algorithms.common.edits import Edit, EditBatch, EditError, cap_prompt
from agent_evolve.algorithms.common.evidence import Evidence
from agent_evolve.algorithms.common.generation import covering_skill, plan_targets, propose
from agent_evolve.algorithms.common.memory_ops import dedup_entries
from agent_evolve.algorithms.common.prompts import seed_skill
from agent_evolve.algorithms.common.skill_ops import cap_skill, make_skill, most_similar, near_duplicates, read_skills
from agent_evolve.algorithms.common.summaries import evidence_prompt
from agent_evolve.contract.skills import Skill, render_skill
from agent_evolve.llm.errors import StructuredOutputError
from agent_evolve.types import StepResult

TREND_EPSILON = 0.05


def edit_budget(rewards: list[float], rejections: int, max_edits: int) -> int:
    """Model edits for this step from the recent rewards (oldest first) and consecutive gate rejections."""
    if rewards and rewards[-1] >= 1.0:
        return 0
    half = len(rewards) // 2
    trend = (sum(rewards[half:]) / (len(rewards) - half) - sum(rewards[:half]) / half) if half else 0.0
    if trend > TREND_EPSILON and rejections < 2:
        return min(1, max_edits)
    if trend < -TREND_EPSILON or rejections >= 2:
        return max_edits + 1
    return max_edits


class AdaptiveEvolutionEngine(ModelEngine):
    """Pattern analysis, seeded skills, trend-adapted bounded edits, sanity fixes."""

    name = "adaptive"
    editable: ClassVar[frozenset[str]] = frozenset({"prompts", "skills", "memory"})
    defaults: ClassVar[dict[str, Any]] = {
        "max_edits": 2,            # model edits at normal density
        "window": 4,               # rewards the trend looks at
        "seed_min_failures": 2,    # failures of one kind that seed a template skill
        "prompt_cap": 4000,        # characters of prompts/system.md
        "skill_cap": 1500,         # characters of a SKILL.md (Ratchet's budget)
        "dup_threshold": 0.85,     # tf-idf cosine from which two skills are duplicates
        "memory_cap": 200,         # entries kept per memory category
        "failures_shown": 2,
        "prompt_chars": 2000,
    }

    def _step(self, step: StepInput) -> StepResult:
        """Analyse, adapt the density, seed, edit, fix, write."""
        workspace, layers, evidence = step.workspace, step.layers, step.evidence
        state = self.load_state()
        if evidence.mean_score is not None:
            state["rewards"] = [*state.get("rewards", []), evidence.mean_score][-self.params["window"]:]
        self.save_state(state)
        budget = edit_budget(state.get("rewards", []), state.get("rejections", 0), self.params["max_edits"])
        batch = EditBatch(workspace, layers, skill_cap=self.params["skill_cap"])
        skills = read_skills(workspace) if "skills" in layers else {}
        seeded = self._seed(batch, evidence, skills) if "skills" in layers else []
        try:
            self._bounded_edits(batch, step, skills, seeded, budget)
        except (StructuredOutputError, EditError) as exc:
            return StepResult(False, f"{self.engine_name}: malformed proposal ({type(exc).__name__}: {exc})",
                              status="failed")
        fixes = self._sanity(batch, step, skills)
        return self.written(batch, {"budget": budget, "seeded": seeded, "fixes": fixes,
                                    "kinds": dict(evidence.kind_counts)})

    def on_cycle_end(self, accepted: bool, score: float) -> None:
        """Count consecutive rejections: they raise the density of the next steps."""
        state = self.load_state()
        state["rejections"] = 0 if accepted else state.get("rejections", 0) + 1
        self.save_state(state)

    def _stage_skill(self, batch: EditBatch, skills: dict[str, Skill], skill: Skill) -> bool:
        """Stage a new or rewritten skill unless it nearly duplicates another one; True when staged."""
        closest = most_similar(skill, {n: s for n, s in skills.items() if n != skill.name})
        if closest and closest[1] >= self.params["dup_threshold"]:
            return False
        if not batch.try_add(Edit("write_skill", skill=skill)):
            return False
        skills[skill.name] = skill
        return True

    def _seed(self, batch: EditBatch, evidence: Evidence, skills: dict[str, Skill]) -> list[str]:
        """A template skill for each recurring failure kind that no skill covers yet (an arithmetic one only for
        failures of number tasks)."""
        seeded = []
        marker = evidence.answer_marker or "Answer:"
        for cluster in evidence.clusters:
            seed = seed_skill(cluster.kind, cluster.about_numbers)
            if seed is None or cluster.size < self.params["seed_min_failures"] or covering_skill(cluster.kind, skills):
                continue
            name, when, lines = seed
            body = "\n".join(f"- {line.format(marker=marker)}" for line in lines)
            skill = make_skill(name, f"TRIGGER when: {when}.", body,
                               {"kind": cluster.kind, "source": self.engine_name, "seeded": True},
                               self.params["skill_cap"])
            if self._stage_skill(batch, skills, skill):
                seeded.append(name)
        return seeded

    def _bounded_edits(self, batch: EditBatch, step: StepInput, skills: dict[str, Skill], seeded: list[str],
                       budget: int) -> None:
        """At most `budget` model edits, one per target; targets the seeds just covered are left alone."""
        evidence = step.evidence
        targets = [t for t in plan_targets(evidence, step.layers, skills, budget + len(seeded)) if t.skill not in seeded]
        if not targets[:budget]:
            return
        request = evidence_prompt(evidence, step.workspace, step.layers, self.params["failures_shown"],
                                  self.params["prompt_chars"], step.rejected)
        for target in targets[:budget]:
            edit = propose(target, self.llm, evidence, request, skills, self.max_tokens, self.source,
                           self.params["skill_cap"])
            if edit.skill is not None:
                self._stage_skill(batch, skills, edit.skill)
            else:
                batch.try_add(edit)

    def _sanity(self, batch: EditBatch, step: StepInput, skills: dict[str, Skill]) -> list[str]:
        """Stage the size caps and dedups; returns what they did."""
        layers, fixes = step.layers, []
        if "prompts" in layers and len(batch.prompt) > self.params["prompt_cap"]:
            batch.add(Edit("write_prompt", text=cap_prompt(batch.prompt, self.params["prompt_cap"])))
            fixes.append(f"prompt capped at {self.params['prompt_cap']} characters")
        if "skills" in layers:
            fixes += self._skill_sanity(batch, skills, step.evidence)
        if "memory" in layers:
            for category in step.workspace.list_memory_categories():
                entries = batch.memories(category)
                kept = dedup_entries(entries, self.params["dup_threshold"])[-self.params["memory_cap"]:]
                if len(kept) < len(entries):
                    batch.add(Edit("rewrite_memory", category=category, entries=kept))
                    fixes.append(f"memory {category}: {len(entries) - len(kept)} entries removed")
        return fixes

    def _skill_sanity(self, batch: EditBatch, skills: dict[str, Skill], evidence: Evidence) -> list[str]:
        """Cap oversized skills; of each near-duplicate pair on disk, delete the less useful one."""
        fixes = []
        staged = {e.skill.name for e in batch.edits if e.skill is not None}
        for name, skill in sorted(skills.items()):
            if name not in staged and len(render_skill(skill)) > self.params["skill_cap"]:
                batch.add(Edit("write_skill", skill=cap_skill(skill, self.params["skill_cap"])))
                fixes.append(f"skill {name} capped")
        on_disk = {n: s for n, s in skills.items() if n not in staged}
        removed: set[str] = set()
        for first, second, score in near_duplicates(on_disk, self.params["dup_threshold"]):
            if first in removed or second in removed:
                continue
            better = self._worth(first, skills[first], evidence) >= self._worth(second, skills[second], evidence)
            loser = second if better else first
            batch.add(Edit("delete_skill", name=loser))
            removed.add(loser)
            fixes.append(f"skill {loser} removed (near-duplicate, similarity {score:.2f})")
        return fixes

    @staticmethod
    def _worth(name: str, skill: Skill, evidence: Evidence) -> tuple[float, int, int]:
        """Which of two duplicates to keep: better success rate, then more uses, then the longer body."""
        stats = evidence.skill_stats.get(name)
        rate = stats.rate if stats and not evidence.hidden else 0.0
        return rate, stats.uses if stats else 0, len(skill.body)
