"""Bundled candidates of the demos engine: kinds joined by + are one edit, written together for the gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_fakes import gsm_obs
from test_demos_engine import NeedsBenchmark, ProgramAgent, context, wrong_numbers

import agent_evolve as ae
from agent_evolve.algorithms.common.candidate_search import CandidateEdit, bundled
from agent_evolve.algorithms.common.techniques import PROGRAM_INSTRUCTION
from agent_evolve.algorithms.demos import DemoSearchEngine, kind_of, parse_kinds
from agent_evolve.contract.experience import EXPERIENCE_FILE
from agent_evolve.engine.trial import TrialRunner


def solved(ids: range) -> list[ae.Observation]:
    return [gsm_obs(f"t{i}", f"question {i} about apples", f"{i} + {i}\nAnswer: 18", extracted="18") for i in ids]


def test_bundles_parse_check_each_part_and_name_their_kind() -> None:
    assert parse_kinds("cross-check + experience,cross-check") == ("cross-check+experience", "cross-check")
    with pytest.raises(ae.errors.ConfigError, match="memory"):
        DemoSearchEngine(candidates="cross-check+memory")
    assert kind_of(CandidateEdit("cross-check+experience", {})) == "cross-check+experience"
    assert kind_of(CandidateEdit("experience-k3", {})) == "experience"


def test_a_bundle_needs_every_part_and_refuses_parts_that_write_the_same_file() -> None:
    found = [CandidateEdit("cross-check", {"a": "1"}, "cross"), CandidateEdit("experience", {"b": "2"}, "memory"),
             CandidateEdit("check", {"a": "3"}, "check")]
    both = bundled("cross-check+experience", found, kind_of)
    assert both == CandidateEdit("cross-check+experience", {"a": "1", "b": "2"}, "cross; memory")
    assert bundled("cross-check+notes", found, kind_of) is None
    assert bundled("cross-check+check", found, kind_of) is None


def test_without_a_trial_the_bundle_is_written_whole_with_examples_from_the_batch_only(ws) -> None:
    engine = DemoSearchEngine(trial_tasks=0, candidates="cross-check+experience,cross-check")
    bench = NeedsBenchmark("")
    train = {t.id: t for t in bench.get_tasks(limit=None) if t.id != "t19"}
    trial = TrialRunner(train, bench, ProgramAgent, Path(ws.path))
    engine.context = context(ws)
    engine.context.trial = trial
    batch = wrong_numbers(3) + solved(range(10, 13)) + [gsm_obs("t19", "question 19", "Answer: 18", extracted="18")]
    result = engine.step(ws, batch, None, trial)  # type: ignore[arg-type]
    assert result.mutated and "no trial" in result.summary and "experience memory" in result.summary
    assert ws.read_program_prompt() == PROGRAM_INSTRUCTION and ws.read_check_settings().cross_check == 2
    examples = [json.loads(line) for line in (Path(ws.path) / EXPERIENCE_FILE).read_text().splitlines()]
    assert [e["task_id"] for e in examples] == ["t10", "t11", "t12"], "verified train solves only, t19 is no train task"
