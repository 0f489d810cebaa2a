"""demos: bootstrapped demonstrations and targeted rules, chosen by measurement (an engine for small models).

A 1.5B model ignores generic advice but copies worked examples and follows concrete rules; no model call writes an
edit. Each step pools the batch's graded-correct train solutions, classifies its failures, proposes candidates
(demo sets, rules, program answers, a cross-check, a redraw on checked failures; each only for the answer kinds it
applies to, `common.techniques`), scores them and the working copy on the same train tasks (none a demo's source),
and writes the best only when it beats the working copy; the loop's gate then decides.

With `trial_tasks` 0 the first candidate goes straight to the gate: on a small budget a trial before the gate
accepts a helpful edit less often than a gate twice as large (`speed/gate_power.py`). The first is the first of the
`candidates` order that writes none of the files the gate rejected since the last accepted version, so a rejected
technique gives the next one its turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from agent_evolve.algorithms.common.base import ModelEngine, StepInput
from agent_evolve.algorithms.common.candidate_search import (JOIN, CandidateEdit, bundle_parts, bundled, fingerprint,
    rejected, search, trial_ids, untried_first, write_files)
from agent_evolve.algorithms.common.demos import (DEMO_FRAGMENT, Demo, demo_sets, demos_in, merge_pool, render_demos,
    verified_demos)
from agent_evolve.algorithms.common.evidence import analyse
from agent_evolve.algorithms.common.failure_notes import RULES_FRAGMENT, note_candidates, targeted_fixes, with_fix
from agent_evolve.algorithms.common.techniques import (applicable, caught_failures, check_candidate,
    cross_check_candidate, learned_form, program_candidate, program_instruction)
from agent_evolve.algorithms.experience import experience_candidates
from agent_evolve.benchmarks.answer_kinds import kind_of as answer_kind
from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.versioning import BASELINE_TAG
from agent_evolve.errors import ConfigError
from agent_evolve.types import Observation, StepResult

if TYPE_CHECKING:
    from agent_evolve.config import EvolveConfig
    from agent_evolve.contract.check_settings import AnswerForm
    from agent_evolve.contract.workspace import AgentWorkspace

FRAGMENTS = "prompts/fragments"
KINDS = ("program", "cross-check", "check", "demos", "rule", "experience", "notes")
OPT_IN = ("experience", "notes")  # proposed only when named in `candidates`


def kind_of(candidate: CandidateEdit) -> str:
    """The kind a candidate's name starts with (demos-2 is a demos candidate, rule-truncated a rule); a bundle's
    name is its kind (cross-check+experience)."""
    name = candidate.name
    return name if name in KINDS or JOIN in name else name.split("-", 1)[0]


def parse_kinds(value: object) -> tuple[str, ...]:
    """The `candidates` param (a comma-separated string or a list) as kinds and bundles of kinds joined by +;
    ConfigError names unknown ones."""
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list | tuple) else [value]
    names = tuple(JOIN.join(bundle_parts(str(n))) for n in items)
    unknown = sorted({part for n in names for part in bundle_parts(n)} - set(KINDS))
    if unknown or not names:
        raise ConfigError(f"demos: engine param candidates={value!r}: unknown kinds {unknown}; known: {list(KINDS)}")
    return names


class DemoSearchEngine(ModelEngine):
    """Demo sets and targeted rules as candidates, the best by trial score kept."""

    name = "demos"
    defaults: ClassVar[dict[str, Any]] = {
        "demo_sets": 2,        # candidate demo sets per step
        "demos_per_set": 2,    # demos in one set (each adds ~200 prompt tokens to every solve)
        "pool_size": 40,       # verified solutions kept in the pool (newest)
        "demo_chars": 700,     # longest solution used as a demo
        "fixes": 1,            # targeted-rule candidates per step
        "program_min_failures": 2,  # wrong answers (of kinds programs print) that propose program answers; 0: never
        "check_min_failures": 1,    # failed replies caught by the agent's own check that propose it; 0: never
        "cross_check_samples": 2,   # programs that settle a program and a text answer that disagree; 0: never
        "trial_tasks": 8,      # train tasks every candidate is scored on; 0: no trial, the first candidate is written
        "candidates": ",".join(k for k in KINDS if k not in OPT_IN),  # kinds of candidate proposed
        "min_gain": 0.0,       # a candidate must beat the working copy by more than this on the trial tasks
    }

    def __init__(self, config: EvolveConfig | None = None, **params: Any) -> None:
        """No `llm`: the engine calls no model, so a run builds and pre-flights no engine model for it (the embedded
        one, by default, would be loaded for nothing, or refuse a run that has no `[local]` extra)."""
        super().__init__(config, None, **params)
        self.kinds = parse_kinds(self.params["candidates"])
        self.trial_tasks = int(self.params["trial_tasks"])
        if self.trial_tasks < 0:
            raise ConfigError(f"demos: engine param trial_tasks={self.trial_tasks}: expected 0 or more")

    def _step(self, step: StepInput) -> StepResult:
        """Pool, analyse, propose, measure, keep (see the module docstring); the check's caught tasks join the trial."""
        workspace, observations, trial = step.workspace, step.observations, step.trial
        if trial is None or self.context is None:
            return StepResult(mutated=False, summary="demos runs in the loop (it needs the trial runner); no change")
        if step.hidden:
            return StepResult(mutated=False, summary="feedback is hidden: no solution can be verified as a demo")
        state = self.load_state()
        pool = merge_pool([Demo.from_dict(d) for d in state.get("pool", [])],
                          verified_demos(applicable("demos", observations), int(self.params["demo_chars"])),
                          int(self.params["pool_size"]))
        state = {**state, "pool": [d.to_dict() for d in pool]}
        self.save_state(state)
        form = learned_form(observations)
        caught = caught_failures(applicable("check", observations), form) if "prompts" in self.layers(workspace) else []
        proposed = self.candidates(workspace, observations, pool, caught, form)
        records = self.context.history.cycle_records()
        accepted = str(records[-1].get("metadata", {}).get("accepted_tag", BASELINE_TAG)) if records else BASELINE_TAG
        written: dict[str, str] = dict(state.get("written", {}))
        seen = rejected(written, records)
        candidates = [c for c in proposed if fingerprint(c, accepted) not in seen]
        if not candidates:
            why = f"{len(proposed)} proposed, each rejected against {accepted}" if proposed else "no targeted failure"
            return StepResult(mutated=False, summary=f"no candidate (pool of {len(pool)} demos, {why})")
        root = Path(workspace.path)

        def write(chosen: CandidateEdit) -> None:
            write_files(root, chosen.files)
            self.save_state({**state, "written": {**written, str(self.cycle): fingerprint(chosen, accepted)}})

        if self.trial_tasks == 0:
            first = untried_first(candidates, records, accepted)[0]
            write(first)
            return StepResult(mutated=True, summary=f"{first.summary} (no trial: the gate decides)")
        sources = [d.task_id for d in pool]
        ids = trial_ids(list(trial.train_tasks), sources, self.trial_tasks, f"{self.config.seed}:{self.cycle}")
        if any("check" in bundle_parts(c.name) for c in candidates):  # the check alone or in a bundle
            ids += sorted(set(caught) & set(trial.train_tasks) - set(ids) - set(sources))
        result = search(trial, root, self.context.scratch_dir, candidates, ids, float(self.params["min_gain"]),
                        curtail=self.config.gate_curtail)
        atomic_write(self.context.output_dir / "search.json", json.dumps(result.to_dict(), indent=1))
        scores = ", ".join(result.describe(c.name) for c in candidates)
        measured = f"trial on {len(ids)} train tasks: current {result.incumbent:.2f}; {scores}"
        if result.best is None:
            return StepResult(mutated=False, summary=f"no candidate beat the current workspace ({measured})",
                              metadata={"search": result.to_dict()})
        chosen = next(c for c in candidates if c.name == result.best)
        write(chosen)
        return StepResult(mutated=True, summary=f"{chosen.summary} ({measured})", metadata={"search": result.to_dict()})

    def candidates(self, workspace: AgentWorkspace, observations: list[Observation], pool: list[Demo],
                   caught: list[str] | None = None, form: AnswerForm | None = None) -> list[CandidateEdit]:
        """Every kind's candidates on top of the current files, each technique seeing only the tasks of the answer
        kinds it applies to (`techniques.TECHNIQUES`); only the kinds in `candidates`, in its order."""
        if "prompts" not in self.layers(workspace):
            return []
        programmable = applicable("program", observations)
        instruction = program_instruction({answer_kind(o.task) for o in programmable})
        current_program, current_check = workspace.read_program_prompt(), workspace.read_check_settings()
        min_numeric = int(self.params["program_min_failures"])
        program = program_candidate(analyse(programmable, hidden=False), current_program, min_numeric, instruction)
        cross = cross_check_candidate(analyse(applicable("cross-check", observations), hidden=False), current_program,
                                      current_check, form, int(self.params["cross_check_samples"]), min_numeric,
                                      instruction)
        check = check_candidate(caught or [], current_check, int(self.params["check_min_failures"]), form)
        current_demos = workspace.read_fragment(DEMO_FRAGMENT) if DEMO_FRAGMENT in workspace.list_fragments() else ""
        sets = demo_sets(pool, int(self.params["demos_per_set"]), int(self.params["demo_sets"]),
                         f"{self.config.seed}:{self.cycle}", demos_in(current_demos, pool))
        found = [c for c in (program, cross, check) if c is not None]
        found += [
            CandidateEdit(f"demos-{i}", {f"{FRAGMENTS}/{DEMO_FRAGMENT}": render_demos(demos)},
                      f"demonstrations {', '.join(d.task_id for d in demos)}")
            for i, demos in enumerate(sets, 1)
        ]
        rules = workspace.read_fragment(RULES_FRAGMENT) if RULES_FRAGMENT in workspace.list_fragments() else ""
        numbers = {o.task.id for o in observations if answer_kind(o.task) == "number"}
        for fix in targeted_fixes(analyse(applicable("rule", observations), hidden=False), rules,
                                  limit=int(self.params["fixes"]), number_tasks=numbers):
            found.append(CandidateEdit(f"rule-{fix.kind}", {f"{FRAGMENTS}/{RULES_FRAGMENT}": with_fix(rules, fix)},
                                       f"rule for {fix.kind} (x{fix.count}): {fix.rule}"))
        found += experience_candidates(workspace, observations, pool, self.context, self.layers(workspace))
        found += note_candidates(workspace, applicable("notes", observations), FRAGMENTS)
        found += [b for entry in self.kinds if JOIN in entry and (b := bundled(entry, found, kind_of)) is not None]
        chosen = [c for c in found if kind_of(c) in self.kinds]
        return sorted(chosen, key=lambda c: self.kinds.index(kind_of(c)))
