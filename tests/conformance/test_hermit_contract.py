"""Conformance with Hermit's Evolver contract (seeds/hermit-evolver.md), mapped onto our names by
docs/hermit-mapping.md; deviations kept on purpose are in docs/deviations.md ("## Hermit").

Names and signatures by introspection; the lifecycle, statuses, usage and state rules by small scripted runs.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace, reference_manifest

import agent_evolve as ae
from agent_evolve.api import resolve_engine
from agent_evolve.engine.base import EngineContext, StepProgress, engine_params, step_progress
from agent_evolve.engine.run_usage import ENGINE_REPORTED_ROLE, reported_charge
from agent_evolve.engine.trial import TrialResult
from agent_evolve.errors import ConfigError
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import STEP_STATUSES, StepResult, Usage


DEVIATIONS = Path(__file__).parents[2] / "docs" / "deviations.md"


def evolve(tmp_path: Path, engine: ae.EvolutionEngine, cycles: int, *, agent: Any = None,
           ledger: UsageLedger | None = None, **config: Any) -> tuple[ae.EvolutionResult, Path]:
    workspace = tmp_path / "ws"
    if not workspace.exists():
        make_workspace(workspace)
    settings = {"batch_size": 4, "holdout_ratio": 0.3, "concurrency": 1, **config}
    subject = agent(workspace) if agent is not None else str(workspace)
    result = ae.Evolver(subject, KeywordBenchmark(n=10), ae.EvolveConfig(**settings), engine, ledger=ledger).run(cycles)
    return result, workspace


def records(workspace: Path) -> list[dict]:
    return ae.EvolutionHistory(workspace).cycle_records()


class Scripted(PlanEngine):
    """Each cycle: write the prompt it is given (if any), return the StepResult (or object) it is given."""

    def __init__(self, steps: list[tuple[str | None, Any]]):
        super().__init__([])
        self.steps = steps
        self.contexts: list[EngineContext] = []

    def step(self, workspace, observations, history, trial=None):
        self.contexts.append(self.context)
        prompt, result = self.steps[(self.context.cycle - 1) % len(self.steps)]
        if prompt is not None:
            workspace.write_prompt(prompt)
        (self.state_dir / "seen.log").open("a").write(f"{self.context.cycle}\n")
        return result


# -- names, fields and defaults ---------------------------------------------------------------------------

def test_the_interface_methods_and_their_context_parameter() -> None:
    for method in ("setup", "bootstrap", "finalize"):
        assert list(inspect.signature(getattr(ae.EvolutionEngine, method)).parameters) == ["self", "ctx"]
    assert list(inspect.signature(ae.EvolutionEngine.step).parameters)[:5] == [
        "self", "workspace", "observations", "history", "trial"]
    assert ae.EvolutionEngine.supports_resume is False


def test_step_result_carries_status_usage_and_a_session_handle() -> None:
    fields = {f.name: f for f in dataclasses.fields(StepResult)}
    assert {"mutated", "summary", "metadata", "status", "usage", "session"} <= set(fields)
    assert StepResult(False, "").status == "done" and StepResult(False, "").usage == Usage()
    assert STEP_STATUSES == ("done", "failed", "out_of_budget", "stop")
    assert [f.name for f in dataclasses.fields(Usage)] == ["calls", "input_tokens", "output_tokens", "cost"]
    with pytest.raises(ValueError):
        StepResult(False, "", status="finished")  # type: ignore[arg-type]


def test_the_context_has_every_field_the_contract_names() -> None:
    names = {f.name for f in dataclasses.fields(EngineContext)}
    assert {"workspace", "history", "state_dir", "scratch_dir", "output_dir", "params", "task_info", "tools",
            "message", "cancel", "progress", "session", "trial"} <= names
    assert {f.name for f in dataclasses.fields(StepProgress)} == {"epoch", "step", "epoch_end"}


def test_config_defaults_of_the_contract() -> None:
    config = ae.EvolveConfig()
    assert config.allow_early_stop is True and config.engine_resume is False


def test_skillopt_learning_rate_decays_only_when_total_steps_is_set() -> None:
    """Built-in Evolvers: skillopt's edits are bounded by its learning rate, "decaying when `total_steps` is set"
    (it decayed over `max_cycles` otherwise, a schedule a shorter `run(cycles)` never finished)."""
    from agent_evolve.algorithms.skillopt import SkillOptEngine

    config = ae.EvolveConfig(max_cycles=4)
    assert [SkillOptEngine(config, ScriptedLLM([])).learning_rate(n) for n in (1, 4)] == [4, 4]
    assert [SkillOptEngine(config, ScriptedLLM([]), total_steps=4).learning_rate(n) for n in (1, 4)] == [4, 2]


def test_the_built_in_evolvers_are_engine_names() -> None:
    assert {"codex", "claude", "gepa", "skillopt"} <= set(ae.ENGINE_REGISTRY)
    assert "mwm" not in ae.ENGINE_REGISTRY and "No `mwm` Evolver" in DEVIATIONS.read_text()


def test_trial_results_carry_cost_time_and_a_log_path() -> None:
    assert {"task_id", "success", "score", "detail", "output", "cost", "time_s", "log_path"} <= {
        f.name for f in dataclasses.fields(TrialResult)}


# -- statuses -----------------------------------------------------------------------------------------------

def test_done_keeps_the_checked_edit(tmp_path: Path) -> None:
    result, workspace = evolve(tmp_path, Scripted([("k0 k1", StepResult(True, "better"))]), 1)
    assert records(workspace)[0]["metadata"]["outcome"] == "accepted"
    assert (workspace / "prompts" / "system.md").read_text() == "k0 k1"


@pytest.mark.parametrize("status", ["failed", "out_of_budget"])
def test_failed_and_out_of_budget_keep_the_previous_adapter_and_are_recorded(tmp_path: Path, status: str) -> None:
    engine = Scripted([("k0 k1", StepResult(True, "claimed", status=status))])
    result, workspace = evolve(tmp_path, engine, 2)
    assert [r["metadata"]["status"] for r in records(workspace)] == [status, status]
    assert (workspace / "prompts" / "system.md").read_text() == "baseline\n"
    assert result.cycles_completed == 2, "without a spent budget the run goes on"
    snapshot = workspace / "evolution" / "engine" / "snapshots" / "2" / "seen.log"
    assert snapshot.read_text() == "1\n2\n", "learner state of failed steps is kept and snapshotted"


@pytest.mark.parametrize("returned", ["done", None, {"mutated": True}], ids=["str", "none", "dict"])
def test_a_wrong_return_type_is_a_failed_step(tmp_path: Path, returned: Any) -> None:
    result, workspace = evolve(tmp_path, Scripted([("k0 k1", returned)]), 1)
    record = records(workspace)[0]
    assert record["metadata"]["status"] == "failed" and "not StepResult" in record["summary"]
    assert (workspace / "prompts" / "system.md").read_text() == "baseline\n"


def test_done_with_an_invalid_workspace_fails_instead_of_being_repaired(tmp_path: Path) -> None:
    """`done`: "check changed files, repair if necessary"; ours reverts paths outside the enabled layers and fails
    a step that leaves an invalid workspace (docs/deviations.md)."""
    engine = PlanEngine([("file", "skills/broken/SKILL.md", "no frontmatter")])
    result, workspace = evolve(tmp_path, engine, 1)
    record = records(workspace)[0]
    assert record["metadata"]["status"] == "failed" and "invalid workspace" in record["summary"]
    assert not (workspace / "skills" / "broken").exists()
    assert "repair" in DEVIATIONS.read_text().split("## Hermit")[1].split("## ")[0]


def test_an_exception_is_a_failed_step(tmp_path: Path) -> None:
    result, workspace = evolve(tmp_path, PlanEngine([("raise",)]), 1)
    assert records(workspace)[0]["metadata"]["status"] == "failed"


@pytest.mark.parametrize("allow", [True, False])
def test_stop_processes_the_adapter_then_stops_when_allowed(tmp_path: Path, allow: bool) -> None:
    engine = Scripted([("k0 k1", StepResult(True, "good enough", status="stop"))])
    result, workspace = evolve(tmp_path, engine, 3, allow_early_stop=allow)
    assert records(workspace)[0]["metadata"]["outcome"] == "accepted"
    assert result.cycles_completed == (1 if allow else 3)
    assert result.details["stop_reason"] == ("engine_stop" if allow else "")


class BrokenOnCue(KeywordAgent):
    """An infrastructure fault (OSError) on every task while the prompt says 'broken'."""

    def solve(self, task):
        if "broken" in self.system_prompt:
            raise OSError("the sandbox is gone")
        return super().solve(task)


def test_stop_is_honoured_when_its_gate_fails(tmp_path: Path) -> None:
    engine = Scripted([("broken k0", StepResult(True, "stop here", status="stop"))])
    result, workspace = evolve(tmp_path, engine, 3, agent=BrokenOnCue)
    record = records(workspace)[0]
    assert record["metadata"]["gate_failure"], "the candidate's gate failed"
    assert result.cycles_completed == 1 and result.details["stop_reason"] == "engine_stop"


# -- lifecycle ----------------------------------------------------------------------------------------------

class Lifecycle(PlanEngine):
    calls: ClassVar[list[str]] = []

    def setup(self, ctx):
        self.calls.append("setup")

    def bootstrap(self, ctx):
        self.calls.append("bootstrap")
        return None

    def step(self, workspace, observations, history, trial=None):
        self.calls.append(f"step{self.context.cycle}")
        return StepResult(False, "nothing")

    def finalize(self, ctx):
        self.calls.append("finalize")
        return None


def test_setup_and_bootstrap_only_on_a_fresh_run_and_finalize_on_every_completion(tmp_path: Path) -> None:
    Lifecycle.calls = []
    evolve(tmp_path, Lifecycle([]), 1)
    evolve(tmp_path, Lifecycle([]), 2)  # the same workspace: a resumed run
    assert Lifecycle.calls == ["setup", "bootstrap", "step1", "finalize", "step2", "finalize"]


class PicksTheFirst(Scripted):
    def finalize(self, ctx):
        return "evo-1"


def test_finalize_through_the_loop_selects_an_earlier_version_and_the_records_agree(tmp_path: Path) -> None:
    engine = PicksTheFirst([("k0", StepResult(True, "half")), ("k0 k1", StepResult(True, "all"))])
    result, workspace = evolve(tmp_path, engine, 2)
    assert [r["metadata"]["outcome"] for r in records(workspace)] == ["accepted", "accepted"]
    assert (workspace / "prompts" / "system.md").read_text() == "k0"
    metrics = json.loads((workspace / "evolution" / "metrics.json").read_text())
    assert metrics["accepted_tag"] == "evo-1" == result.details["accepted_tag"]
    assert metrics["accepted_score"] == result.final_score < 1.0


def test_cancel_stops_after_the_cycle_as_a_controlled_stop(tmp_path: Path) -> None:
    class Cancels(Lifecycle):
        def step(self, workspace, observations, history, trial=None):
            self.context.cancel.set()
            return super().step(workspace, observations, history, trial)

    Lifecycle.calls = []
    result, _ = evolve(tmp_path, Cancels([]), 3)
    assert result.details["stop_reason"] == "cancelled" and Lifecycle.calls[-2:] == ["step1", "finalize"]


# -- usage and budgets --------------------------------------------------------------------------------------

def test_engine_reported_usage_is_charged_and_stops_the_run(tmp_path: Path) -> None:
    ledger = UsageLedger()
    engine = Scripted([("k0 k1", StepResult(True, "outside call", usage=Usage(1, 405, 100)))])
    result, workspace = evolve(tmp_path, engine, 5, ledger=ledger, max_total_tokens=100)
    assert ledger.total(ENGINE_REPORTED_ROLE).total_tokens == 505 and ledger.total().total_tokens == 505
    assert result.details["stop_reason"] == "out_of_budget" and result.cycles_completed == 1
    assert records(workspace)[0]["metadata"]["usage"][ENGINE_REPORTED_ROLE]["input_tokens"] == 405
    assert (workspace / "prompts" / "system.md").read_text() == "baseline\n"


def test_usage_already_metered_is_not_charged_twice(tmp_path: Path) -> None:
    ledger = UsageLedger()
    metered, outside = Usage(1, 50, 10), Usage(2, 7, 3)

    class Reports(PlanEngine):
        def step(self, workspace, observations, history, trial=None):
            ledger.record("engine", metered)  # a call through a metered client
            report = metered if self.context.cycle == 1 else outside
            return StepResult(False, "reported", usage=report)

    evolve(tmp_path, Reports([]), 2, ledger=ledger)
    assert ledger.total("engine") == Usage(2, 100, 20)
    assert ledger.total(ENGINE_REPORTED_ROLE) == outside
    assert reported_charge(metered, metered) == Usage() and reported_charge(outside, metered) == outside


def test_a_client_given_for_a_role_is_metered_into_the_run(tmp_path: Path) -> None:
    """One meter: an agent's calls through the client a user gives for its role (`clients=`, `ae.evolve(llm=)`)
    are the run's usage and under its budget, as a built client's are (they were not counted at all)."""
    workspace = make_workspace(tmp_path / "ws", manifest=reference_manifest("given-client"))
    llm = ScriptedLLM([lambda messages: "k0"] * 100)
    ledger = UsageLedger()
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=1, preflight=False, llm_cache=False)
    result = ae.Evolver(str(workspace), KeywordBenchmark(n=10), config, PlanEngine([("noop",)]), ledger=ledger,
                        clients={"agent": llm}).run(1)
    assert ledger.total("agent").calls == len(llm.calls) == result.details["spent"]["calls"] > 0
    spent = ledger.total().total_tokens
    workspace = make_workspace(tmp_path / "capped", manifest=reference_manifest("given-client"))
    capped = dataclasses.replace(config, max_total_tokens=spent // 2)
    stopped = ae.Evolver(str(workspace), KeywordBenchmark(n=10), capped, PlanEngine([("noop",)]),
                         clients={"agent": ScriptedLLM([lambda messages: "k0"] * 100)}).run(1)
    assert stopped.details["stop_reason"] == "out_of_budget"


class Interrupted(Exception):
    """Stands for a crash after a cycle's phases were journaled and before it was recorded."""


def test_a_resumed_run_keeps_the_usage_of_the_phases_it_does_not_repeat(tmp_path: Path) -> None:
    """Usage is accounted once, across a restart too: a cycle cut off after its gate resumes without solving or
    stepping again, so the restored ledger must hold what those phases spent (metered and reported)."""
    class Spends(PlanEngine):
        def __init__(self, ledger: UsageLedger, crash: bool):
            super().__init__([])
            self.ledger, self.crash = ledger, crash

        def step(self, workspace, observations, history, trial=None):
            self.ledger.record("engine", Usage(1, 50, 10))
            return StepResult(False, "spent", usage=Usage(2, 7, 3))

        def on_cycle_end(self, accepted, score):
            if self.crash:
                raise Interrupted

    first = UsageLedger()
    with pytest.raises(Interrupted):
        evolve(tmp_path, Spends(first, crash=True), 1, ledger=first)
    resumed = UsageLedger()
    result, workspace = evolve(tmp_path, Spends(resumed, crash=False), 1, ledger=resumed)
    assert resumed.total("engine") == Usage(1, 50, 10) and resumed.total(ENGINE_REPORTED_ROLE) == Usage(2, 7, 3)
    assert result.details["spent"]["input_tokens"] == 57
    assert records(workspace)[0]["metadata"]["usage"]["engine"]["input_tokens"] == 50


# -- context -------------------------------------------------------------------------------------------------

def test_step_context_fields_are_filled(tmp_path: Path) -> None:
    engine = Scripted([(None, StepResult(False, "looked"))])
    engine.params = {"alpha": 2}
    evolve(tmp_path, engine, 3)
    first = engine.contexts[0]
    assert first.params == {"alpha": 2}
    assert first.task_info["benchmark"] == "KeywordBenchmark" and first.task_info["train_tasks"] == 7
    assert "holdout" not in json.dumps(first.task_info.get("description", ""))
    assert set(first.tools) == {"run_agent", "check_spec"} and first.tools["check_spec"]() == []
    assert "No `llm` tool" in DEVIATIONS.read_text(), "Hermit's metered `llm` tool is a documented deviation"
    assert "cycle 1" in first.message and "run_agent" in first.message
    assert isinstance(first.cancel, threading.Event) and first.session is None
    assert [c.progress for c in engine.contexts] == [StepProgress(1, 1, False), StepProgress(1, 2, True),
                                                     StepProgress(2, 3, False)]


def test_params_are_the_engine_defaults_merged_with_the_run_parameters() -> None:
    config = ae.EvolveConfig(engine_params={"max_memories": 5})
    params = engine_params(resolve_engine("guided_synth", config), config)
    assert params["max_memories"] == 5 and params["max_reviews"] == 3
    assert step_progress(cycle=2, cursor_after=8, batch_size=4, train_size=7) == StepProgress(1, 2, True)


class Trier(PlanEngine):
    """Runs `run_agent` on its batch once a cycle and keeps the report."""

    def step(self, workspace, observations, history, trial=None):
        self.report = self.context.tools["run_agent"]()
        return StepResult(False, "tried")


def test_trial_reports_time_cost_and_a_log_of_train_tasks(tmp_path: Path) -> None:
    engine = Trier([])
    evolve(tmp_path, engine, 1)
    results = engine.report.results
    assert len(results) == 4 and all(r.time_s >= 0 and r.cost == 0.0 for r in results)
    logged = json.loads(Path(results[0].log_path).read_text())
    assert logged["task_id"] == results[0].task_id and "score" not in logged
    assert engine.report.usage == Usage() and engine.report.time_s >= 0


class Costly(KeywordAgent):
    """Reports one model call's usage in its trajectory, as the reference agent does."""

    def solve(self, task):
        trajectory = super().solve(task)
        trajectory.steps = [{"usage": {"calls": 1, "input_tokens": 10, "output_tokens": 2, "cost": 0.01}}]
        return trajectory


def test_trial_cost_per_task_comes_from_its_trajectory_at_any_concurrency(tmp_path: Path) -> None:
    engine = Trier([])
    evolve(tmp_path, engine, 1, agent=Costly, concurrency=2)
    assert [(r.calls, r.tokens, r.cost) for r in engine.report.results] == [(1, 12, 0.01)] * 4
    assert "what the task's trajectory reports" in DEVIATIONS.read_text()


# -- session resume -------------------------------------------------------------------------------------------

class Resumable(Scripted):
    supports_resume = True
    handles: ClassVar[list[str | None]] = []

    def step(self, workspace, observations, history, trial=None):
        self.handles.append(self.context.session)
        return StepResult(False, "talked", session=f"s{self.context.cycle}")

    def finalize(self, ctx):
        self.handles.append(f"finalize:{ctx.session}")


@pytest.mark.parametrize("enabled", [True, False])
def test_session_handle_is_given_back_when_resume_is_enabled(tmp_path: Path, enabled: bool) -> None:
    Resumable.handles = []
    evolve(tmp_path, Resumable([]), 2, engine_resume=enabled)
    evolve(tmp_path, Resumable([]), 3, engine_resume=enabled)  # a new process: the handle comes from the journal
    expected = [None, "s1", "finalize:s2", "s2", "finalize:s3"] if enabled else [
        None, None, "finalize:None", None, "finalize:None"]
    assert Resumable.handles == expected


def test_resume_for_an_engine_without_support_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="supports_resume"):
        evolve(tmp_path, PlanEngine([("noop",)]), 1, engine_resume=True)
