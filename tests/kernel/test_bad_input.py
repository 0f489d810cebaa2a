"""Bad input gets an error naming the file and the problem, and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kernel_fakes import MANIFEST, KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae
from agent_evolve.engine.records import RunRecords
from agent_evolve.errors import (AgentEvolveError, ConfigError, ManifestError, SkillFormatError, UnknownNameError,
                                 WorkspaceError)


def files(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def test_missing_manifest_names_the_file(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", manifest="")
    before = files(workspace)
    with pytest.raises(ManifestError, match="manifest.yaml"):
        ae.Evolver(str(workspace), KeywordBenchmark(), engine=PlanEngine([]))
    assert files(workspace) == before


def test_manifest_without_entrypoint_names_the_key(tmp_path: Path) -> None:
    manifest = MANIFEST.replace("  entrypoint: kernel_fakes.KeywordAgent\n", "")
    workspace = make_workspace(tmp_path / "ws", manifest=manifest)
    before = files(workspace)
    with pytest.raises(ManifestError, match=r"manifest\.yaml.*entrypoint"):
        ae.Evolver(str(workspace), KeywordBenchmark(), engine=PlanEngine([]))
    assert files(workspace) == before


def test_entrypoint_that_does_not_import_names_the_manifest(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", manifest=MANIFEST.replace("kernel_fakes.KeywordAgent", "nowhere.Agent"))
    with pytest.raises(WorkspaceError, match=r"manifest\.yaml.*nowhere\.Agent"):
        ae.Evolver(str(workspace), KeywordBenchmark(), engine=PlanEngine([]))


def test_bad_skill_frontmatter_stops_the_run_before_any_change(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    (workspace / "skills" / "broken").mkdir()
    (workspace / "skills" / "broken" / "SKILL.md").write_text("---\nname: [unclosed\n---\nbody\n")
    before = files(workspace)
    with pytest.raises((SkillFormatError, WorkspaceError), match=r"skills/broken/SKILL\.md"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(batch_size=2), PlanEngine([])).run(1)
    after = {k: v for k, v in files(workspace).items() if not k.startswith((".git/", "evolution/"))}
    assert after == before


@pytest.mark.parametrize("line, problem", [("garbage", "not valid JSON"), ('{"cycle": 2, "metadata": 3}', "'metadata' is 3")])
def test_a_damaged_history_line_stops_a_resumed_run_before_it_solves_anything(tmp_path: Path, line: str,
                                                                               problem: str) -> None:
    """The damaged line was found (a wrong type as a traceback) only when the resumed cycle's work was done."""
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=2)
    ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, PlanEngine([("prompt", "k0\n")])).run(1)
    records = RunRecords(workspace)
    records.history.write_text(records.history.read_text() + line + "\n")
    journal = records.journal.read_bytes()
    with pytest.raises(WorkspaceError, match=rf"history\.jsonl.*{problem}"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, PlanEngine([("prompt", "k1\n")])).run(2)
    assert records.journal.read_bytes() == journal


@pytest.mark.parametrize("field, value, problem", [
    ("usage", "x", "'usage' is 'x', not an object of numbers"),
    ("usage", {"by_role": {"agent": {"calls": "many"}}}, "'usage' is .*not an object of numbers"),
    ("accepted_score", "high", "'accepted_score' is 'high', not a number"),
    ("accepted_tag", 5, "'accepted_tag' is 5, not a string"),
    ("cycle", "one", "'cycle' is 'one', not a whole number"),
])
def test_a_journal_record_of_the_wrong_type_stops_a_resumed_run_naming_it(tmp_path: Path, field: str, value: object,
                                                                          problem: str) -> None:
    """Valid JSON with a field of the wrong type was a raw TypeError or ValueError from deep in the resume."""
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=2)
    ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, PlanEngine([("prompt", "k0\n")])).run(1)
    records = RunRecords(workspace)
    lines = records.journal.read_text().splitlines()
    lines[-1] = json.dumps({**json.loads(lines[-1]), field: value})
    records.journal.write_text("\n".join(lines) + "\n")
    journal = records.journal.read_bytes()
    with pytest.raises(WorkspaceError, match=rf"journal\.jsonl: record {len(lines)}: {problem}; the record is damaged"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, PlanEngine([("prompt", "k1\n")])).run(2)
    assert records.journal.read_bytes() == journal


def test_ill_typed_yaml_config_names_file_and_key(tmp_path: Path) -> None:
    config = tmp_path / "evolve.yaml"
    config.write_text("batch_size: ten\n")
    with pytest.raises(ConfigError, match=r"evolve\.yaml.*batch_size' must be a whole number, got 'ten'"):
        ae.EvolveConfig.from_yaml(config)
    config.write_text("llm_cache_dir: 5\n")  # says what a YAML user writes, not a Python annotation
    with pytest.raises(ConfigError, match=r"llm_cache_dir' must be text or null, got 5"):
        ae.EvolveConfig.from_yaml(config)
    config.write_text("holdout_ratio: 1.5\n")
    with pytest.raises(ConfigError, match=r"evolve\.yaml.*holdout_ratio"):
        ae.EvolveConfig.from_yaml(config)
    config.write_text("batch_size: [1\n")
    with pytest.raises(ConfigError, match=r"evolve\.yaml.*not valid YAML"):
        ae.EvolveConfig.from_yaml(config)


def test_yaml_config_loads_and_keeps_own_settings_in_extra(tmp_path: Path) -> None:
    config = tmp_path / "evolve.yaml"
    config.write_text(
        "batch_size: 15\nmax_cycles: 30\nevolve_memory: false\nevolver_model: us.anthropic.claude-opus-4-6-v1\n"
        "egl_threshold: 0.03\negl_window: 5\nextra:\n  solver_proposed: true\n  my_flag: 3\n"
    )
    loaded = ae.EvolveConfig.from_yaml(config)
    assert (loaded.batch_size, loaded.max_cycles, loaded.evolve_memory, loaded.egl_window) == (15, 30, False, 5)
    assert loaded.extra == {"solver_proposed": True, "my_flag": 3}


@pytest.mark.parametrize("cycles", ["3", -1, 2.5, True])
def test_a_cycle_count_that_is_no_count_is_refused_before_the_baseline(tmp_path: Path, cycles: object) -> None:
    """"3" was a TypeError after the baseline was scored; -1 scored the baseline and stopped."""
    workspace = make_workspace(tmp_path / "ws")
    before = files(workspace)
    evolver = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(batch_size=2), PlanEngine([]))
    with pytest.raises(ConfigError, match=f"cycles must be a whole number >= 0 or None.*got {cycles!r}"):
        evolver.run(cycles)
    assert files(workspace) == before


def test_an_unknown_top_level_key_is_refused_with_the_nearest_known_one(tmp_path: Path) -> None:
    config = tmp_path / "evolve.yaml"
    config.write_text("batch_sise: 4\n")
    with pytest.raises(ConfigError, match=r"evolve\.yaml: unknown key 'batch_sise' \(did you mean 'batch_size'\?\)"):
        ae.EvolveConfig.from_yaml(config)
    config.write_text("my_flag: 3\n")
    with pytest.raises(ConfigError, match="my_flag.*under 'extra:'"):
        ae.EvolveConfig.from_yaml(config)


def test_negative_batch_size_is_refused() -> None:
    with pytest.raises(ConfigError, match="batch_size"):
        ae.EvolveConfig(batch_size=-1)


def test_unknown_names_list_the_known_ones() -> None:
    with pytest.raises(UnknownNameError, match="known benchmarks: .*gsm8k"):
        ae.Evolver(KeywordAgent.__new__(KeywordAgent), "no-such-benchmark")


class DictTasks(KeywordBenchmark):
    def get_tasks(self, split: str = "train", limit: int = 10) -> list:
        return [{"id": task.id, "input": task.input} for task in super().get_tasks(split, limit)]


class RepeatedIds(KeywordBenchmark):
    def get_tasks(self, split: str = "train", limit: int = 10) -> list:
        return [ae.Task(id="same", input=t.input, metadata=t.metadata) for t in super().get_tasks(split, limit)]


@pytest.mark.parametrize(("benchmark", "named"), [(DictTasks(), r"DictTasks.*returned a dict, not a Task"),
                                                  (RepeatedIds(), r"RepeatedIds.*duplicate task ids: \['same'\]")])
def test_a_benchmark_that_returns_no_task_list_is_named(tmp_path: Path, benchmark: ae.BenchmarkAdapter,
                                                        named: str) -> None:
    workspace = make_workspace(tmp_path / "ws")
    with pytest.raises(AgentEvolveError, match=named):
        ae.Evolver(KeywordAgent(workspace), benchmark, ae.EvolveConfig(batch_size=2), PlanEngine([("noop",)])).run(1)


class TextAgent(KeywordAgent):
    def solve(self, task: ae.Task) -> str:  # type: ignore[override]
        return super().solve(task).output


class BoolGrades(KeywordBenchmark):
    def evaluate(self, task: ae.Task, trajectory: ae.Trajectory) -> bool:  # type: ignore[override]
        return trajectory.output == task.metadata["keyword"]


def test_a_solve_or_evaluate_that_returns_the_wrong_type_is_a_failure_naming_the_method(tmp_path: Path) -> None:
    config = ae.EvolveConfig(batch_size=2, max_infra_failure_ratio=1.0)
    agent_run = ae.Evolver(TextAgent(make_workspace(tmp_path / "a")), KeywordBenchmark(), config,
                           PlanEngine([("noop",)]))
    assert agent_run.run(1).details["errors"] == {"agent_error": 2}
    details = ae.EvolutionHistory(tmp_path / "a").get_observations()[0].feedback.detail
    assert "TextAgent.solve returned str, not a Trajectory" in details

    with pytest.raises(AgentEvolveError, match="BoolGrades.evaluate returned bool, not a Feedback"):
        ae.Evolver(KeywordAgent(make_workspace(tmp_path / "b")), BoolGrades(), ae.EvolveConfig(batch_size=2),
                   PlanEngine([("noop",)])).run(1)
