"""GEPA as an engine: one reflective-mutation iteration of the GEPA search per cycle.

Each step: score the pool on the validation tasks (each pair once, kept in the score ledger); take the parent
chosen last step; score it on a minibatch of the cycle's train batch; unless it is perfect there, the reflector
rewrites one component (round robin) and the child is kept only if it beats the parent on that minibatch; select
the next parent and leave it in the workspace for the loop's gate. With `use_merge`, an iteration after one that
kept a child first tries GEPA's merge of two Pareto parents (`merge.py`). `finalize` picks the accepted version
holding the best validation candidate.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from agent_evolve.algorithms.candidates import (Candidate, best_accepted_tag, check_components, default_components,
    editable_text, materialize, read_candidate, validation_runner)
from agent_evolve.algorithms.common.base import ModelEngine, StepInput
from agent_evolve.algorithms.common.candidate_search import write_files
from agent_evolve.algorithms.common.summaries import clip
from agent_evolve.algorithms.gepa.merge import decide_merge, merge_subsample, plan_merge
from agent_evolve.algorithms.gepa.reflection import extract_proposal, proposal_prompt
from agent_evolve.algorithms.gepa.scores import LEDGER_NAME, ScoreLedger
from agent_evolve.algorithms.gepa.selection import (MinibatchImprovement, front_frequency, is_perfect, make_selector,
    mean_scores)
from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import Message
from agent_evolve.types import Observation, StepResult

if TYPE_CHECKING:
    from agent_evolve.contract.workspace import AgentWorkspace
    from agent_evolve.engine.base import EngineContext
    from agent_evolve.engine.trial import TrialResult

NO_MERGES: dict[str, Any] = {"due": 0, "tested": 0, "found_new": False, "tried": [], "made": [], "parents": {}}


class GepaEngine(ModelEngine):
    """GEPA's reflective evolution over workspace text components, gated by the loop."""

    name = "gepa"
    defaults: ClassVar[dict[str, Any]] = {
        "minibatch_size": 3,                # reflection minibatch drawn from the cycle's batch
        "candidate_selection": "pareto",    # pareto | current_best | epsilon_greedy
        "epsilon": 0.1,                     # exploration rate of epsilon_greedy
        "skip_perfect_score": True,         # no proposal when the parent is perfect on the minibatch
        "perfect_score": 1.0,
        "components": [],                   # files to evolve; empty: system prompt, fragments, skills
        "example_chars": 1200,              # per field shown to the reflector
        "max_tokens": 2048,
        "use_merge": False,                 # GEPA's merge of two Pareto parents after an iteration that kept a child
        "max_merge_invocations": 5,         # kept merges at most
        "merge_val_overlap_floor": 5,       # validation tasks both parents must share before a merge
        "merge_subsample_size": 5,          # validation tasks a merged child is first scored on
    }

    def _ledger(self) -> ScoreLedger:
        if self.context is None:
            raise AgentEvolveError("gepa: runs only inside the loop (it needs the trial runner and state_dir)")
        return ScoreLedger(self.context.state_dir.parent / LEDGER_NAME)

    def _pool(self, state: dict[str, Any]) -> dict[str, Candidate]:
        return {c.id: c for c in map(Candidate.from_dict, state.get("candidates", []))}

    def _rng(self, iteration: int) -> random.Random:
        return random.Random(f"gepa:{self.config.seed}:{iteration}")

    def _score(self, candidate: Candidate, task_ids: list[str], train: bool) -> dict[str, float]:
        """Scores of `candidate` on `task_ids`, running the trial only for pairs the ledger does not have."""
        ledger = self._scores
        missing = [t for t in task_ids if not ledger.has(candidate.id, t)]
        if missing:
            folder = materialize(self._root, candidate, self.context.scratch_dir / "candidates")
            keep = self.params["example_chars"] if train else 0

            def record(result: TrialResult) -> None:
                ledger.record(candidate.id, result.task_id, result.score, clip(result.output, keep) if keep else "",
                              clip(result.detail, keep) if keep else "")

            self._trial(missing, workspace=folder, on_result=record)
        return ledger.scores(candidate.id, task_ids)

    def _examples(self, task_ids: list[str], parent: Candidate, hidden: bool) -> list[dict[str, Any]]:
        keep = self.params["example_chars"]
        examples = []
        for task_id in task_ids:
            entry = self._scores.get(parent.id, task_id) or {}
            example: dict[str, Any] = {"Inputs": clip(self._trial.train_tasks[task_id].input, keep),
                                       "Generated Outputs": entry.get("output", "")}
            if not hidden:
                example["Feedback"] = f"score {entry.get('score', 0.0):g}. {entry.get('feedback', '')}".strip()
            examples.append(example)
        return examples

    def _step(self, step: StepInput) -> StepResult:
        """One GEPA iteration; the workspace is left holding the next parent."""
        trial = self._trial = validation_runner(self.engine_name, step.trial)
        val_ids = trial.validation_ids
        root, ledger, state = Path(step.workspace.path), self._ledger(), self.load_state()
        self._root, self._scores = root, ledger
        components = state.get("components") or self._components(root, step.workspace)
        current = read_candidate(root, components, self.cycle)
        pool = self._pool(state) or {current.id: current}
        iteration = int(state.get("iteration", 0))
        selector = make_selector(self.params["candidate_selection"], float(self.params["epsilon"]))
        for candidate in pool.values():
            self._score(candidate, val_ids, train=False)
        merging = {**NO_MERGES, **state.get("merge", {})}
        component = components[int(state.get("next_component", 0)) % len(components)]
        report: dict[str, Any] = {"iteration": iteration}
        merged = self._merge(pool, merging, iteration)
        if merged is not None:
            report.update(merged)
        else:
            parent = pool.get(state.get("next_parent", "")) or pool[
                selector.select(ledger.table(list(pool), val_ids), self._rng(iteration))]
            report.update(self._reflect(parent, current, component, step.observations, pool, iteration),
                          component=component)
            if report["decision"].startswith("kept") and self.params["use_merge"]:
                merging["found_new"] = True
                merging["due"] += int(merging["tested"] < int(self.params["max_merge_invocations"]))
        table = ledger.table(list(pool), val_ids)
        next_parent = pool[selector.select(table, self._rng(iteration + 1))]
        write_files(root, next_parent.files)
        report.update(next_parent=next_parent.id, val_means=mean_scores(table))
        self.save_state({
            "components": components,
            "val_ids": val_ids,
            "candidates": [c.to_dict() for c in pool.values()],
            "merge": merging,
            "iteration": iteration + 1,
            "next_component": int(state.get("next_component", 0)) + (merged is None),
            "next_parent": next_parent.id,
            "log": [*state.get("log", []), report],
        })
        return StepResult(mutated=next_parent.id != current.id, summary=f"gepa {iteration}: {report['decision']}",
                          metadata={"gepa": report})

    def _reflect(self, parent: Candidate, current: Candidate, component: str, observations: list[Observation],
                 pool: dict[str, Candidate], iteration: int) -> dict[str, Any]:
        """The reflective iteration: the parent on a minibatch of the batch, then (unless it is perfect there) a
        proposal for `component` as the child, kept in `pool` only if it beats the parent on the minibatch."""
        rng, ledger = self._rng(iteration), self._scores
        batch = [o for o in observations if o.task.id in self._trial.train_tasks]
        minibatch = sorted(rng.sample(batch, min(int(self.params["minibatch_size"]), len(batch))),
                           key=lambda o: batch.index(o))
        ids = [o.task.id for o in minibatch]
        hidden = self.hidden(observations)
        if parent.id == current.id and not hidden:   # the batch's own scores are the parent's (unless hidden)
            keep = self.params["example_chars"]
            for o in minibatch:
                ledger.record(parent.id, o.task.id, o.feedback.score, clip(o.trajectory.output, keep),
                              clip(o.feedback.detail, keep))
        parent_scores = self._score(parent, ids, train=True)
        report: dict[str, Any] = {"parent": parent.id, "minibatch": ids, "parent_scores": parent_scores}
        if not ids:
            return {**report, "decision": "no train tasks in the batch"}
        if self.params["skip_perfect_score"] and is_perfect(parent_scores, float(self.params["perfect_score"])):
            return {**report, "decision": "skipped: the parent is perfect on the minibatch"}
        request = proposal_prompt(editable_text(parent.files[component]), self._examples(ids, parent, hidden))
        reply = self.llm.complete([Message("user", request)], max_tokens=self.max_tokens).text
        text = extract_proposal(reply)
        if not text:
            return {**report, "decision": f"rejected: empty proposal for {component}"}
        child = parent.with_component(component, text, self.cycle)
        if child.id in pool:
            return {**report, "decision": f"rejected: the proposal for {component} is already a candidate",
                    "child": child.id}
        child_scores = self._score(child, ids, train=True)
        decision = MinibatchImprovement().decide(ledger.scores(parent.id, ids), child_scores)
        report.update(child=child.id, child_scores=child_scores, reason=decision.reason)
        if not decision.accept:
            return {**report, "decision": f"rejected child {child.id}: {decision.reason}"}
        pool[child.id] = child
        self._score(child, self._trial.validation_ids, train=False)
        return {**report, "decision": f"kept child {child.id}: {decision.reason}"}

    def _merge(self, pool: dict[str, Candidate], merging: dict[str, Any], iteration: int) -> dict[str, Any] | None:
        """GEPA's merge step, when one is due after an iteration that kept a child: None when no merge was tried
        (the reflective iteration runs instead), else its report. Updates the bookkeeping in `merging`."""
        if not self.params["use_merge"]:
            return None
        due = merging["due"] > 0 and merging["found_new"]
        merging["found_new"] = False
        if not due:
            return None
        rng = random.Random(f"gepa-merge:{self.config.seed}:{iteration}")
        table = self._scores.table(list(pool), self._trial.validation_ids)
        means = mean_scores(table)
        lineage = {**{c.id: [c.parent] for c in pool.values() if c.parent}, **merging["parents"]}
        floor = int(self.params["merge_val_overlap_floor"])
        plan = plan_merge(rng, lineage, list(front_frequency(table, means)), {tuple(t) for t in merging["tried"]},
                          {(a, b, tuple(s)) for a, b, s in merging["made"]}, means,
                          {c.id: c.files for c in pool.values()}, list(pool),
                          lambda a, b: len(set(table[a]) & set(table[b])) >= floor)
        if plan is None:
            return None
        merging["tried"] = [*merging["tried"], [plan.a, plan.b, plan.ancestor]]
        merging["made"] = [*merging["made"], [plan.a, plan.b, list(plan.sources)]]
        subsample = merge_subsample(table[plan.a], table[plan.b], rng, int(self.params["merge_subsample_size"]))
        child = Candidate(plan.files, plan.a, self.cycle)
        report: dict[str, Any] = {"merge": {"parents": [plan.a, plan.b], "ancestor": plan.ancestor,
                                            "subsample": subsample, "child": child.id}}
        name = f"merge {child.id} of {plan.a} and {plan.b}"
        if child.id in pool:
            return {**report, "decision": f"rejected {name}: it is already a candidate"}
        child_scores = self._score(child, list(dict.fromkeys(subsample)), train=False)
        decision = decide_merge(table[plan.a], table[plan.b], child_scores, subsample)
        report["merge"].update(child_scores=child_scores, reason=decision.reason)
        if not decision.accept:
            return {**report, "decision": f"rejected {name}: {decision.reason}"}
        pool[child.id] = child
        merging["parents"] = {**merging["parents"], child.id: [plan.a, plan.b]}
        merging["due"] -= 1
        merging["tested"] += 1
        self._score(child, self._trial.validation_ids, train=False)
        return {**report, "decision": f"kept {name}: {decision.reason}"}

    def _components(self, root: Path, workspace: AgentWorkspace) -> list[str]:
        layers = self.layers(workspace)
        components = list(self.params["components"]) or default_components(root, layers)
        check_components(components, layers)
        return components

    def finalize(self, ctx: EngineContext) -> str | None:
        """The accepted version whose texts are the pool candidate with the best mean validation score."""
        state = self.load_state()
        pool = self._pool(state)
        if not pool:
            return None
        means = mean_scores(self._ledger().table(list(pool), state.get("val_ids", [])))
        return best_accepted_tag(Path(ctx.workspace.path), state.get("components", []), means)
