"""SkillOpt as an engine: bounded, validated edits to one skill document, one optimisation step per cycle.

Each step: ask for at most `lr` add / delete / replace edits (the decaying learning rate), showing the edits
rejected before; keep the edited skill only if its validation score strictly improves (the pure gate), else buffer
the edits. At an epoch's end a slow update rewrites the skill (gated alike) and a meta-skill pass updates the
proposer's advice. `finalize` picks the accepted version with the best validation score.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from agent_evolve.algorithms.candidates import (Candidate, best_accepted_tag, editable_text, join_editable,
    materialize, validation_runner)
from agent_evolve.algorithms.common.base import ModelEngine, StepInput
from agent_evolve.algorithms.common.candidate_search import write_files
from agent_evolve.algorithms.common.summaries import clip
from agent_evolve.algorithms.skillopt import prompts
from agent_evolve.algorithms.skillopt.edits import LearningRate, SkillEdit, SkillEditError, apply_edits, validation_gate
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.contract.skills import Skill, render_skill
from agent_evolve.llm.base import Message
from agent_evolve.llm.structured import complete_json
from agent_evolve.types import Observation, StepResult

if TYPE_CHECKING:
    from agent_evolve.engine.base import EngineContext
    from agent_evolve.engine.trial import TrialRunner


class SkillOptEngine(ModelEngine):
    """SkillOpt's learning-rate-bounded, validation-gated optimisation of one skill document."""

    name = "skillopt"
    defaults: ClassVar[dict[str, Any]] = {
        "skill_name": "task-strategy",      # the skill document being optimised
        "skill_description": "TRIGGER when: solving any task of this benchmark. DO NOT TRIGGER: other requests.",
        "max_lr": 4,                        # edits per step at the start
        "min_lr": 2,                        # edits per step at the end of the schedule
        "lr_schedule": "cosine",            # constant | linear | cosine
        "total_steps": None,                # steps of the schedule; none: no decay (max_lr throughout)
        "steps_per_epoch": None,            # none: train tasks / batch size, rounded up
        "examples": 8,                      # batch results shown to the proposer
        "buffer_size": 8,                   # rejected edits remembered for the next proposals
        "slow_update": True,
        "meta_skill": True,
        "example_chars": 600,
        "max_tokens": 1024,
    }

    def learning_rate(self, number: int) -> int:
        """The edit cap of step `number`: decaying from `max_lr` to `min_lr` when `total_steps` is set (Hermit's
        SkillOpt), else `max_lr` (a schedule over `max_cycles` would not end where a `run(cycles)` does)."""
        return LearningRate(int(self.params["max_lr"]), int(self.params["min_lr"]), self.params["total_steps"],
                            self.params["lr_schedule"]).at(number)

    def _step(self, step: StepInput) -> StepResult:
        """One SkillOpt step; an accepted edit leaves the new skill in the workspace."""
        trial, observations = validation_runner(self.engine_name, step.trial), step.observations
        root, state = Path(step.workspace.path), self.load_state()
        path = f"skills/{self.params['skill_name']}/SKILL.md"
        current = Candidate({path: self._current_text(root, path)})
        start = current.id
        number = int(state.get("step", 0)) + 1
        lr = self.learning_rate(number)
        scores = state.setdefault("scores", {})
        current_score = self._validate(current, root, trial, scores)
        best = max(scores.values())
        best_step = int(state.get("best_step", 0))
        rejected = [SkillEdit(**e) for e in state.get("buffer", [])]
        body = editable_text(current.files[path])
        proposed, invalid = self._propose(body, observations, lr, rejected, state.get("notes", ""))
        applied = apply_edits(body, proposed, lr)
        report: dict[str, Any] = {"step": number, "lr": lr, "proposed": len(proposed), "invalid": invalid,
                                  "applied": [e.to_dict() for e in applied.applied],
                                  "skipped": [[e.to_dict(), why] for e, why in applied.skipped],
                                  "current_score": current_score}
        epoch_kept = [SkillEdit(**e) for e in state.get("epoch_kept", [])]
        epoch_rejected = [SkillEdit(**e) for e in state.get("epoch_rejected", [])]
        if applied.applied:
            candidate = Candidate({path: join_editable(current.files[path], applied.body)})
            decision = validation_gate(self._validate(candidate, root, trial, scores), current_score, best,
                                       best_step, number)
            report.update(decision=decision.action, candidate_score=decision.candidate_score)
            if decision.accepted:
                current, current_score, best_step = candidate, decision.current_score, decision.best_step
                epoch_kept += applied.applied
            else:
                rejected = (rejected + list(applied.applied))[-int(self.params["buffer_size"]):]
                epoch_rejected += applied.applied
        else:
            report["decision"] = "no edit applied"
        if number % self._epoch_length(trial) == 0:
            current, best_step = self._epoch_end(current, path, root, trial, scores, epoch_kept, epoch_rejected,
                                                 state, number, best_step, report)
            epoch_kept, epoch_rejected = [], []
        if current.id != start:
            write_files(root, current.files)
        self.save_state({**state, "step": number, "scores": scores, "best_step": best_step,
                         "buffer": [e.to_dict() for e in rejected], "epoch_kept": [e.to_dict() for e in epoch_kept],
                         "epoch_rejected": [e.to_dict() for e in epoch_rejected], "path": path,
                         "log": [*state.get("log", []), report]})
        return StepResult(mutated=current.id != start, summary=f"skillopt step {number} (lr {lr}): {report['decision']}",
                          metadata={"skillopt": report})

    def _epoch_length(self, trial: TrialRunner) -> int:
        per_epoch = self.params["steps_per_epoch"]
        return int(per_epoch) if per_epoch else max(1, math.ceil(len(trial.train_tasks) / self.config.batch_size))

    def _current_text(self, root: Path, path: str) -> str:
        blank = Skill(self.params["skill_name"], self.params["skill_description"], "\n")
        return read_regular_text(root / path) if (root / path).is_file() else render_skill(blank)

    def _validate(self, candidate: Candidate, root: Path, trial: TrialRunner, scores: dict[str, float]) -> float:
        """The candidate's mean validation score, measured once per version and kept in the state."""
        if candidate.id not in scores:
            folder = materialize(root, candidate, self.context.scratch_dir / "candidates")
            scores[candidate.id] = trial(trial.validation_ids, workspace=folder).mean_score
        return float(scores[candidate.id])

    def _examples(self, observations: list[Observation]) -> str:
        keep, hidden = int(self.params["example_chars"]), self.hidden(observations)
        shown = sorted(observations, key=lambda o: o.feedback.score)[: int(self.params["examples"])]
        lines = []
        for n, o in enumerate(shown, start=1):
            lines.append(f"# Task {n}\nInput: {clip(o.task.input, keep)}\nOutput: {clip(o.trajectory.output, keep)}")
            if not hidden:
                lines.append(f"Score: {o.feedback.score:g}. Feedback: {clip(o.feedback.detail, keep)}")
        return "\n".join(lines)

    def _ask(self, request: str, schema: dict[str, Any]) -> dict[str, Any]:
        """One schema-checked JSON answer to `request`."""
        return complete_json(self.llm, [Message("user", request)], schema, max_tokens=self.max_tokens)

    def _propose(self, body: str, observations: list[Observation], lr: int, rejected: list[SkillEdit],
                 notes: str) -> tuple[list[SkillEdit], list[str]]:
        """The model's edits, parsed; malformed ones are listed with their problem and not applied."""
        request = prompts.edit_request(body, self._examples(observations), lr, rejected, notes)
        edits, invalid = [], []
        for item in self._ask(request, prompts.EDITS_SCHEMA)["edits"]:
            try:
                edits.append(SkillEdit.from_dict(item))
            except SkillEditError as exc:
                invalid.append(str(exc))
        return edits, invalid

    def _epoch_end(self, current: Candidate, path: str, root: Path, trial: TrialRunner, scores: dict[str, float],
                   kept: list[SkillEdit], rejected: list[SkillEdit], state: dict[str, Any], number: int,
                   best_step: int, report: dict[str, Any]) -> tuple[Candidate, int]:
        """Slow update (gated like any edit) and the meta-skill pass; notes go to the state."""
        if self.params["slow_update"] and kept:
            request = prompts.slow_update_request(editable_text(current.files[path]), kept, rejected)
            body = self._ask(request, prompts.REWRITE_SCHEMA)["body"]
            rewrite = Candidate({path: join_editable(current.files[path], body)})
            best = max(scores.values())  # before the rewrite's own score joins them
            decision = validation_gate(self._validate(rewrite, root, trial, scores), scores[current.id], best,
                                       best_step, number)
            report["slow_update"] = decision.action
            if decision.accepted:
                current, best_step = rewrite, decision.best_step
        if self.params["meta_skill"] and (kept or rejected):
            request = prompts.meta_skill_request(state.get("notes", ""), kept, rejected)
            state["notes"] = self._ask(request, prompts.NOTES_SCHEMA)["notes"]
            report["meta_skill"] = "updated"
        return current, best_step

    def finalize(self, ctx: EngineContext) -> str | None:
        """The accepted version whose skill has the best validation score."""
        state = self.load_state()
        if not state.get("scores"):
            return None
        return best_accepted_tag(Path(ctx.workspace.path), [state["path"]], state["scores"])
