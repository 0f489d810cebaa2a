"""RatchetEngine: a governed skill library on the shared loop, one Ratchet round per cycle (its steps 1-8 are
listed in docs/ratchet.md); Ratchet governs its own bank, so its runs use `gate_strategy: keep`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from agent_evolve.agents.routing.bank import named_embedder, write_marker
from agent_evolve.algorithms.common.base import ModelEngine, StepInput
from agent_evolve.algorithms.ratchet import bank as bank_io
from agent_evolve.algorithms.ratchet import capsules as evidence
from agent_evolve.algorithms.ratchet import critic, meta
from agent_evolve.algorithms.ratchet.capsules import canonical_map, clusters
from agent_evolve.algorithms.ratchet.curator import (RollbackDecision, RollbackState, SkillTally, evictions,
                                                      restore_plan, retirement, rollback_check)
from agent_evolve.algorithms.ratchet.ledger import Ledger, ledger_path
from agent_evolve.algorithms.ratchet.plot import plot_path, plot_run
from agent_evolve.algorithms.ratchet.records import Decision, MetaSkill, RatchetSkill
from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.algorithms.ratchet.skill_forms import to_agent_skill
from agent_evolve.algorithms.ratchet.synthesizer import draft_tally, synthesize
from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.solving import is_infrastructure_failure
from agent_evolve.types import Observation, StepResult

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from agent_evolve.agents.routing.embedder import Embedder
    from agent_evolve.config import EvolveConfig
    from agent_evolve.llm.base import LLMClient
    from agent_evolve.engine.base import EngineContext


class RatchetEngine(ModelEngine):
    """Router, critic, synthesizer, meta-synthesizer, curator and rollback over an evidence ledger."""

    name = "ratchet"
    defaults: ClassVar[dict[str, Any]] = RatchetSettings.keys()

    def __init__(self, config: EvolveConfig | None = None, llm: LLMClient | None = None, **params: Any) -> None:
        super().__init__(config, llm, **params)
        self.settings = RatchetSettings.from_params({k: self.params[k] for k in RatchetSettings.keys()})

    @property
    def max_tokens(self) -> int:
        """The critic's, synthesizer's and meta-synthesizer's answer length: `role_max_tokens`, within the limits
        every built-in engine keeps (its `max_tokens` param and the config's evolver_max_tokens)."""
        return min(self.settings.role_max_tokens, super().max_tokens)

    @property
    def embedder(self) -> Embedder:
        """The run's embedder (built on first use; the router's shortlists share it)."""
        return named_embedder(self.settings.embedder)

    # -- lifecycle -----------------------------------------------------------------------------------

    def bootstrap(self, ctx: EngineContext) -> StepResult | None:
        """Mark the workspace as Ratchet's, take its skills into the ledger, snapshot the round-0 bank."""
        self.context = ctx
        root = Path(ctx.workspace.path)
        if ctx.config.gate_strategy != "keep":
            log.warning("ratchet: gate_strategy %r may reject rounds Ratchet would keep; Ratchet governs its bank "
                        "with its curator and rollback, so its runs use gate_strategy: keep", ctx.config.gate_strategy)
        write_marker(root, self.settings.router_config())
        with Ledger.open(ledger_path(root)) as ledger:
            imported = bank_io.import_workspace_skills(ledger, root)
            ledger.snapshot_bank(0, bank_io.write_bank(root, ledger))
            ledger.audit("start", {"settings": self.settings.to_dict(), "imported": imported}, 0)
        return StepResult(mutated=True, summary=f"Ratchet governs the workspace ({len(imported)} skills imported)")

    def finalize(self, ctx: EngineContext) -> str | None:
        """Plot held-out pass@1, router engagement and bank size per round (no version is selected)."""
        root = Path(ctx.workspace.path)
        with Ledger.open(ledger_path(root)) as ledger:
            plot_run(ledger, bank_io.round_scores(root), plot_path(root))
        return None

    # -- one round -----------------------------------------------------------------------------------

    def _step(self, step: StepInput) -> StepResult:
        """One round: (1) the rollback check, (2) capsules and (3) critic verdicts, each row written once, then steps
        4-8 (`_govern`) unless a re-run step finds them recorded."""
        if step.hidden:
            return StepResult(mutated=False, summary="feedback is hidden: Ratchet cannot credit skills")
        observations, round_, root = step.observations, self.cycle, Path(step.workspace.path)
        state = self.load_state()
        with Ledger.open(ledger_path(root)) as ledger:
            decision = self._rollback_check(state, root, round_)
            ids = self._capsules(ledger, observations, round_)
            critic_errors = self._critic(ledger, round_)
            report: dict[str, Any] = {"round": round_, "capsules": len(ids), "critic_errors": critic_errors,
                                      "rollback": asdict(decision) if decision else None,
                                      "train": _train_summary(observations)}
            recorded = ledger.audit_events(limit=1, event="round", round=round_)
            if recorded:  # a re-run step: the round was recorded whole before the crash
                report.update(recorded[0]["payload"])
                bank_io.write_bank(root, ledger)
            else:
                self._govern(ledger, root, decision, report)
        self.save_state(state)
        if self.context is not None:
            atomic_write(self.context.output_dir / "round.json", json.dumps(report, indent=1, default=str))
        edits = (report.get("synth") or {}).get("edits")
        return StepResult(mutated=True, summary=_summary(report),
                          metadata={"ratchet": report, **({"edits": edits} if edits else {})})

    def _govern(self, ledger: Ledger, root: Path, decision: RollbackDecision | None,
                report: dict[str, Any]) -> None:
        """(4) a rollback's restore, else (5) meta-skill refresh, (6) synthesis, (7) curation; (8) the bank written,
        snapshotted: model calls first, then one transaction closed by the `round` audit event (crash-safe)."""
        round_ = self.cycle
        restore = decision.restore_round if decision is not None and decision.restore else None
        due = restore is None and self._meta_due(ledger, round_)
        new_meta = self._draft_meta(ledger, round_) if due else None
        synth = None if restore is not None or self.settings.no_synth else self._synth(ledger, round_, new_meta)
        with ledger.transaction():
            if restore is not None:
                report["restored"] = self._restore(ledger, int(restore), round_)
            else:
                report["meta"] = self._record_meta(ledger, new_meta, round_) if due else None
                report["synth"] = synth() if synth else {"skipped": "no_synth"}
                report["curate"] = self._curate(ledger, round_)
            active = bank_io.write_bank(root, ledger)
            ledger.snapshot_bank(round_, active)
            report["bank"] = [k.name for k in active]
            ledger.audit("round", {k: v for k, v in report.items() if k != "round"}, round_)

    def _rollback_check(self, state: dict[str, Any], root: Path, round_: int) -> RollbackDecision | None:
        """Feed every held-out score not yet seen (rounds before this one) to the persistence gate."""
        seen = int(state.get("rollback_round", -1))
        current = RollbackState(**state.get("rollback", {}))
        decision = None
        for scored_round, score in sorted(bank_io.round_scores(root).items()):
            if seen < scored_round < round_:
                decision = rollback_check(current, scored_round, score, self.settings.rollback_threshold,
                                          self.settings.rollback_consecutive)
                current, seen = decision.state, scored_round
        state.update(rollback=asdict(current), rollback_round=seen)
        return decision

    def _capsules(self, ledger: Ledger, observations: list[Observation], round_: int) -> list[int]:
        """The round's train capsules (written once; a resumed step reuses them)."""
        written = ledger.capsules(round=round_, split="train")
        if written:
            return [cid for cid, _ in written]
        graded = [o for o in observations if not is_infrastructure_failure(o)]
        return ledger.add_capsules([evidence.capsule(o, round_) for o in graded])

    def _critic(self, ledger: Ledger, round_: int) -> list[str]:
        """A verdict for each routed capsule and, when on, each unrouted failure; unusable replies are audited (once:
        a re-run step asks about no capsule judged or failed on before); the audited errors, in capsule order."""
        judged = {v.capsule_id for v in ledger.verdicts(round=round_)}
        errors = {e["payload"]["capsule"]: e["payload"]["error"]
                  for e in ledger.audit_events(event="critic_failed", round=round_)}
        for cid, c in ledger.capsules(round=round_, split="train"):
            wanted = c.routed_skill or (self.settings.critic_unrouted and not c.passed)
            if cid in judged or cid in errors or not wanted:
                continue
            skill = ledger.skill(c.routed_skill) if c.routed_skill else None
            result = critic.judge(self.llm, cid, c, str(c.metadata.get("task", "")),
                                  to_agent_skill(skill).body if skill else "",
                                  str(c.metadata.get("feedback", "")), self.max_tokens)
            if result.verdict is not None:
                ledger.add_verdict(result.verdict)
            else:
                errors[cid] = result.error[:300]
                ledger.audit("critic_failed", {"capsule": cid, "error": errors[cid]}, round_)
        return [errors[cid] for cid in sorted(errors)]

    def _stats(self, ledger: Ledger, skills: list[RatchetSkill]) -> list[SkillTally]:
        return bank_io.bank_stats(ledger, skills, self.settings.credit_weighting)

    def _curate(self, ledger: Ledger, round_: int) -> list[dict[str, Any]]:
        """Retire what the evidence says hurts; every decision recorded with its numbers."""
        s = self.settings
        decided = retirement(self._stats(ledger, ledger.skills("ACTIVE")), s.retire_min_trials, s.retire_threshold)
        for d in decided:
            if d.action == "retire":
                ledger.set_status(d.name, "DEPRECATED", round_, d.reason)
            if d.action != "keep":
                ledger.add_decision(Decision(round_, d.action, d.name, d.to_dict()))
        ledger.add_decision(Decision(round_, "curate", "bank", {"decisions": [d.to_dict() for d in decided]}))
        return [d.to_dict() for d in decided]

    def _synth(self, ledger: Ledger, round_: int, new_meta: MetaSkill | None) -> Callable[[], dict[str, Any]]:
        """New skills drafted (model calls) from this window's failure clusters, with `new_meta` when this round
        refreshed the meta-skill; the call returned records them, making room under the cap, and reports."""
        s = self.settings
        failures = evidence.recent_failures(ledger.capsules(split="train"), ledger.verdicts(), round_,
                                            s.cluster_window)
        mapping = canonical_map([f.pattern for f in failures], self.embedder.embed if s.canonicalise else None,
                                float(s.canonical_threshold or 0.0))
        found = clusters(failures, mapping, s.min_cluster)
        active = ledger.skills("ACTIVE")
        stats = self._stats(ledger, active)
        _, room = evictions(stats, s.bank_cap, min(s.max_new_skills, len(found)))
        meta_body = (new_meta or self._meta(ledger)).body if s.use_meta else ""
        outcome = synthesize(self.llm, found, {k.name: k for k in active}, bank_io.cover_texts(ledger, active),
                             self.embedder.embed, replace(s, role_max_tokens=self.max_tokens), meta_body, round_,
                             {k.name for k in ledger.skills()}, room)
        evicted, _ = evictions(stats, s.bank_cap, len(outcome.created))

        def record() -> dict[str, Any]:
            for pattern, canonical in mapping.items():
                if pattern != canonical:
                    ledger.add_decision(Decision(round_, "canonicalise", pattern, {"canonical": canonical}))
            for d in evicted:
                if d.action == "evict":
                    ledger.set_status(d.name, "DEPRECATED", round_, d.reason)
                ledger.add_decision(Decision(round_, d.action, d.name, d.to_dict()))
            for d in outcome.decisions:
                ledger.add_decision(d)
            for skill in outcome.created:
                ledger.put_skill(skill, round_, f"synthesised from a cluster of failures in round {round_}")
            return {"clusters": [{"pattern": c.pattern, "size": c.size} for c in found],
                    "created": [k.name for k in outcome.created], "edits": draft_tally(outcome.decisions),
                    "evicted": [d.name for d in evicted if d.action == "evict"],
                    "skipped": [{"kind": d.kind, "subject": d.subject, **d.payload} for d in outcome.decisions
                                if d.kind != "synth"]}

        return record

    def _meta(self, ledger: Ledger) -> MetaSkill:
        """The suite's active meta-skill; the shipped default on first use."""
        suite = self.settings.suite or meta.suite_for(
            [str(c.metadata.get("task", "")) for _, c in ledger.capsules(split="train")[:20]])
        active = next((m for m in ledger.meta_skills(suite) if m.active), None)
        if active is None:
            active = meta.default_meta(suite)
            ledger.put_meta_skill(active)
        return active

    def _meta_due(self, ledger: Ledger, round_: int) -> bool:
        """Whether this round refreshes the meta-skill (`meta.refresh_due`; never with meta-skills off)."""
        s = self.settings
        if not s.use_meta:
            return False
        since = self._meta(ledger).created_round
        tasks = sum(1 for _, c in ledger.capsules(split="train") if c.round > since)
        return meta.refresh_due(round_, s.meta_every, s.meta_every_tasks, tasks)

    def refresh_meta(self, ledger: Ledger, round_: int) -> str | None:
        """A new active meta-skill from how the bank's skills fared (also `synth metaskills`): its name, or None
        when the model's reply is unusable (audited)."""
        return self._record_meta(ledger, self._draft_meta(ledger, round_), round_)

    def _draft_meta(self, ledger: Ledger, round_: int) -> MetaSkill | None:
        """The model's new meta-skill, not yet recorded; None when its reply is unusable."""
        outcomes = [f"{st.name}: {st.contribution:+.2f} over {st.trials} trials"
                    for st in self._stats(ledger, ledger.skills())]
        return meta.refresh(self.llm, self._meta(ledger), outcomes, round_, self.max_tokens,
                            self.settings.credit_weighting)

    def _record_meta(self, ledger: Ledger, new: MetaSkill | None, round_: int) -> str | None:
        """Record a drafted meta-skill as the suite's active one (an unusable reply audited); its name or None."""
        if new is None:
            ledger.audit("meta_failed", {"error": "empty reply"}, round_)
            return None
        ledger.put_meta_skill(new)
        return new.name

    def _restore(self, ledger: Ledger, best_round: int, round_: int) -> dict[str, Any]:
        """Make the best round's bank active again as it was then (every row stays; locked skills stay active)."""
        current = ledger.skills()
        plan = restore_plan(ledger.bank_skills_at(best_round), current, best_round, round_)
        reason, before = f"rollback to the bank of round {best_round}", {s.name: s.status for s in current}
        for name in plan.dropped:
            ledger.set_status(name, "DEPRECATED", round_, reason)
        for skill in plan.restored:
            ledger.put_skill(skill, round_, reason)
        revived = [s.name for s in plan.restored if before.get(s.name) != "ACTIVE"]
        done = {"dropped": plan.dropped, "revived": revived, "kept_locked": plan.kept_locked}
        ledger.add_decision(Decision(round_, "rollback", f"round {best_round}",
                                     {**done, "uncounted_rounds": [best_round + 1, round_]}))
        return {"round": best_round, **done}


def _train_summary(observations: list[Observation]) -> dict[str, Any]:
    """The train pass as Ratchet's BenchResult names it (total, resolved, pass@1), with the attempts routed."""
    graded = [o for o in observations if not is_infrastructure_failure(o)]
    resolved = sum(o.feedback.success for o in graded)
    routed = sum(evidence.routed_skill(o) is not None for o in graded)
    return {"total": len(graded), "resolved": resolved, "pass@1": resolved / len(graded) if graded else 0.0,
            "routed": routed}


def _summary(report: dict[str, Any]) -> str:
    if "restored" in report:
        return f"ratchet round {report['round']}: rollback to the bank of round {report['restored']['round']}"
    synth = report.get("synth", {})
    retired = [d["name"] for d in report.get("curate", []) if d["action"] == "retire"]
    return (f"ratchet round {report['round']}: {report['capsules']} capsules, new {synth.get('created', [])}, "
            f"retired {retired}, bank of {len(report['bank'])}")
