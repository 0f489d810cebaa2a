"""Conformance with the A-Evolve API page (seeds/a-evolve-api.md): every name, signature and default it states,
and its rules by small runs. Deviations kept on purpose are in docs/deviations.md ("## A-Evolve")."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.loop import EvolutionLoop, _is_score_converged
from agent_evolve.errors import AgentEvolveError, ConfigError
from agent_evolve.registry import import_object, seed_path
from agent_evolve.types import Feedback, Task, Trajectory

NO_DEFAULT = inspect.Parameter.empty


def parameters(function: Callable[..., Any]) -> list[tuple[str, Any]]:
    """(name, default) of the parameters a caller may pass positionally or by keyword, `self` left out."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY)
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()
            if p.kind in kinds and p.name != "self"]


def assert_page_signature(function: Callable[..., Any], page: list[tuple[str, Any]]) -> None:
    """The page's parameters come first, in its order, with its defaults; anything we add has a default."""
    ours = parameters(function)
    assert ours[: len(page)] == page, f"{function.__qualname__}: {ours} against the page's {page}"
    assert all(default is not NO_DEFAULT for _, default in ours[len(page):]), function.__qualname__


def fields(cls: type) -> list[tuple[str, Any]]:
    """(name, default) of a dataclass's fields; a default factory is called."""
    def default(f: dataclasses.Field) -> Any:
        if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            return f.default_factory()  # type: ignore[misc]
        return NO_DEFAULT if f.default is dataclasses.MISSING else f.default
    return [(f.name, default(f)) for f in dataclasses.fields(cls)]


# -- top level and types -------------------------------------------------------------------------------------

def test_evolver_signature() -> None:
    assert_page_signature(ae.Evolver.__init__, [("agent", NO_DEFAULT), ("benchmark", NO_DEFAULT), ("config", None),
                                                ("engine", None), ("workspace_dir", None)])
    assert_page_signature(ae.Evolver.run, [("cycles", None)])


@pytest.mark.parametrize("cls, page", [
    (ae.Task, [("id", NO_DEFAULT), ("input", NO_DEFAULT), ("metadata", {})]),
    (ae.Trajectory, [("task_id", NO_DEFAULT), ("output", NO_DEFAULT), ("steps", []), ("conversation", [])]),
    (ae.Feedback, [("success", NO_DEFAULT), ("score", NO_DEFAULT), ("detail", ""), ("raw", {})]),
    (ae.Observation, [("task", NO_DEFAULT), ("trajectory", NO_DEFAULT), ("feedback", NO_DEFAULT)]),
    (ae.SkillMeta, [("name", NO_DEFAULT), ("description", NO_DEFAULT), ("path", NO_DEFAULT)]),
    (ae.StepResult, [("mutated", NO_DEFAULT), ("summary", NO_DEFAULT), ("metadata", {})]),
    (ae.CycleRecord, [("cycle", NO_DEFAULT), ("score", NO_DEFAULT), ("mutated", NO_DEFAULT), ("engine_name", ""),
                      ("summary", ""), ("observation_batch", ""), ("metadata", {})]),
    (ae.EvolutionResult, [("cycles_completed", NO_DEFAULT), ("final_score", NO_DEFAULT), ("score_history", []),
                          ("converged", False), ("details", {})]),
], ids=lambda value: value.__name__ if isinstance(value, type) else "")
def test_core_types_have_the_page_fields_in_order(cls: type, page: list[tuple[str, Any]]) -> None:
    ours = fields(cls)
    assert ours[: len(page)] == page
    assert all(default is not NO_DEFAULT for _, default in ours[len(page):])


def test_types_live_where_the_page_says() -> None:
    from agent_evolve import types

    for name in ("Task", "Trajectory", "Feedback", "Observation", "SkillMeta", "StepResult", "CycleRecord",
                 "EvolutionResult"):
        assert getattr(types, name) is getattr(ae, name)


# -- protocol, benchmark, engine --------------------------------------------------------------------------------

def test_base_agent_interface() -> None:
    from agent_evolve.protocol.base_agent import BaseAgent

    assert BaseAgent is ae.BaseAgent
    assert_page_signature(BaseAgent.__init__, [("workspace_dir", NO_DEFAULT)])
    assert_page_signature(BaseAgent.solve, [("task", NO_DEFAULT)])
    assert_page_signature(BaseAgent.reload_from_fs, [])
    assert_page_signature(BaseAgent.export_to_fs, [])
    assert_page_signature(BaseAgent.remember, [("content", NO_DEFAULT), ("category", "episodic")])
    assert inspect.signature(BaseAgent.remember).parameters["extra"].kind is inspect.Parameter.VAR_KEYWORD
    assert_page_signature(BaseAgent.get_skill_content, [("name", NO_DEFAULT)])
    assert isinstance(BaseAgent.system_prompt, property) and isinstance(BaseAgent.skills, property)
    assert isinstance(BaseAgent.memories, property)


def test_benchmark_and_engine_interfaces() -> None:
    assert ae.BenchmarkAdapter is BenchmarkAdapter
    assert_page_signature(BenchmarkAdapter.get_tasks, [("split", "train"), ("limit", 10)])
    assert_page_signature(BenchmarkAdapter.evaluate, [("task", NO_DEFAULT), ("trajectory", NO_DEFAULT)])
    from agent_evolve.engine.base import EvolutionEngine

    assert_page_signature(EvolutionEngine.step, [("workspace", NO_DEFAULT), ("observations", NO_DEFAULT),
                                                 ("history", NO_DEFAULT), ("trial", None)])
    assert_page_signature(EvolutionEngine.on_cycle_end, [("accepted", NO_DEFAULT), ("score", NO_DEFAULT)])
    with pytest.raises(NotImplementedError):
        EvolutionEngine().step(None, [], None)  # type: ignore[arg-type]


# -- configuration -------------------------------------------------------------------------------------------

PAGE_CONFIG = {"batch_size": 10, "max_cycles": 20, "holdout_ratio": 0.2, "evolve_prompts": True,
               "evolve_skills": True, "evolve_memory": True, "evolve_tools": False, "trajectory_only": False,
               "evolver_max_tokens": 16384, "egl_threshold": 0.05, "egl_window": 3, "extra": {}}


def test_config_defaults() -> None:
    config = ae.EvolveConfig()
    assert {key: getattr(config, key) for key in PAGE_CONFIG} == PAGE_CONFIG
    assert isinstance(config.evolver_model, str) and config.evolver_model  # default differs: docs/deviations.md


def test_config_from_the_page_yaml(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("batch_size: 15\nmax_cycles: 30\nevolve_prompts: true\nevolve_skills: true\n"
                    "evolve_memory: false\nevolver_model: us.anthropic.claude-opus-4-6-v1\negl_threshold: 0.03\n"
                    "egl_window: 5\nextra:\n  solver_proposed: true\n")
    config = ae.EvolveConfig.from_yaml(str(path))
    assert (config.batch_size, config.max_cycles, config.evolve_memory, config.egl_window) == (15, 30, False, 5)
    assert config.evolver_model == "us.anthropic.claude-opus-4-6-v1" and config.extra == {"solver_proposed": True}


def test_evolver_max_tokens_bounds_every_built_in_engine(tmp_path: Path) -> None:
    """`evolver_max_tokens` is the engine's output limit: Ratchet's roles answered with their own 400 regardless."""
    from agent_evolve.algorithms.ratchet.engine import RatchetEngine
    from agent_evolve.algorithms.ratchet.ledger import Ledger
    from agent_evolve.testing import ScriptedLLM

    llm = ScriptedLLM(["Write skills about edge cases."])
    engine = RatchetEngine(config=ae.EvolveConfig(evolver_max_tokens=100), llm=llm)
    with Ledger.open(tmp_path / "ratchet.sqlite") as ledger:
        engine.refresh_meta(ledger, 1)
    assert llm.calls[0].max_tokens == 100
    assert RatchetEngine(llm=ScriptedLLM([])).max_tokens == 400, "below the limit, role_max_tokens applies"
    assert RatchetEngine(llm=ScriptedLLM([]), max_tokens=200).max_tokens == 200, "the param it accepts counts too"


# -- workspace -----------------------------------------------------------------------------------------------

WORKSPACE_METHODS: dict[str, list[tuple[str, Any]]] = {
    "__init__": [("path", NO_DEFAULT)],
    "read_prompt": [], "write_prompt": [("content", NO_DEFAULT)],
    "read_fragment": [("name", NO_DEFAULT)], "write_fragment": [("name", NO_DEFAULT), ("content", NO_DEFAULT)],
    "list_fragments": [],
    "list_skills": [], "read_skill": [("name", NO_DEFAULT)],
    "write_skill": [("name", NO_DEFAULT), ("content", NO_DEFAULT)], "delete_skill": [("name", NO_DEFAULT)],
    "list_drafts": [], "write_draft": [("name", NO_DEFAULT), ("content", NO_DEFAULT)], "clear_drafts": [],
    "add_memory": [("entry", NO_DEFAULT), ("category", "episodic")],
    "read_memories": [("category", "episodic"), ("limit", 100)], "read_all_memories": [("limit", 100)],
    "read_tool_registry": [], "write_tool_registry": [("tools", NO_DEFAULT)],
    "read_tool": [("name", NO_DEFAULT)], "write_tool": [("name", NO_DEFAULT), ("content", NO_DEFAULT)],
    "read_evolution_history": [], "read_evolution_metrics": [], "read_manifest": [],
}


@pytest.mark.parametrize("method", sorted(WORKSPACE_METHODS))
def test_workspace_methods(method: str) -> None:
    from agent_evolve.contract.workspace import AgentWorkspace

    assert AgentWorkspace is ae.AgentWorkspace
    assert_page_signature(getattr(AgentWorkspace, method), WORKSPACE_METHODS[method])


def test_workspace_files_are_where_the_page_says(tmp_path: Path) -> None:
    workspace = ae.AgentWorkspace(str(make_workspace(tmp_path / "ws")))
    workspace.write_prompt("be brief")
    workspace.write_fragment("style.md", "short")
    workspace.write_skill("check-units", "---\nname: check-units\ndescription: \"TRIGGER when: units. DO NOT "
                                         "TRIGGER: otherwise.\"\n---\n\nConvert first.\n")
    workspace.add_memory({"content": "Always run full test suite", "source": "cycle-5-failure"})
    workspace.add_memory({"content": "Water boils at 100 C"}, category="semantic")
    workspace.add_memory({"content": "fcntl.flock on NFS"}, category="domain_knowledge")
    root = Path(workspace.path)
    assert (root / "prompts" / "system.md").read_text().strip() == "be brief"
    assert (root / "prompts" / "fragments" / "style.md").is_file()
    assert (root / "skills" / "check-units" / "SKILL.md").is_file()
    for category in ("episodic", "semantic", "domain_knowledge"):
        assert (root / "memory" / f"{category}.jsonl").is_file()
    assert [m["content"] for m in workspace.read_memories(category="episodic", limit=20)] == [
        "Always run full test suite"]
    assert len(workspace.read_all_memories(limit=100)) == 3
    agent = KeywordAgent(root)
    assert agent.get_skill_content("check-units").strip() == "Convert first."  # frontmatter stripped
    assert [s.name for s in agent.skills] == ["check-units"]
    assert {m.get("category") for m in agent.memories} >= {"episodic", "semantic"}


def test_agent_memories_and_skill_proposals_reach_disk_on_export(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    agent = KeywordAgent(root)
    agent.remember("File locks on NFS require fcntl.flock with LOCK_EX", category="domain_knowledge")
    agent.propose_skill("retry-io", "Retry transient IO errors\nthree times.\n")
    agent.export_to_fs()
    workspace = ae.AgentWorkspace(str(root))
    assert workspace.read_memories("domain_knowledge")[0]["content"].startswith("File locks")
    assert [d["name"] for d in workspace.list_drafts()] == ["retry-io"]
    assert (root / "skills" / "_drafts").is_dir()


# -- algorithms and registries ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dotted", [
    "agent_evolve.algorithms.skillforge.engine.AEvolveEngine",
    "agent_evolve.algorithms.guided_synth.GuidedSynthesisEngine",
    "agent_evolve.algorithms.adaptive.AdaptiveEvolutionEngine",
    "agent_evolve.algorithms.adaptive_skill.AdaptiveSkillEngine",
])
def test_built_in_algorithms_are_engines_at_their_page_paths(dotted: str) -> None:
    assert issubclass(import_object(dotted), ae.EvolutionEngine)


def test_registries_hold_the_page_entries_and_api_exports_them() -> None:
    from agent_evolve import api

    for name, target in {"swe": "seed_workspaces/swe", "swe-verified": "seed_workspaces/swe",
                         "terminal": "seed_workspaces/terminal", "terminal2": "seed_workspaces/terminal",
                         "mcp": "seed_workspaces/mcp", "mcp-atlas": "seed_workspaces/mcp",
                         "arc": "seed_workspaces/arc"}.items():
        assert api.AGENT_REGISTRY[name] == target
    for name, target in {
        "swe-verified": "agent_evolve.benchmarks.swe_verified.SweVerifiedBenchmark",
        "mcp-atlas": "agent_evolve.benchmarks.mcp_atlas.McpAtlasBenchmark",
        "terminal2": "agent_evolve.benchmarks.terminal2.Terminal2Benchmark",
        "skill-bench": "agent_evolve.benchmarks.skill_bench.SkillBenchBenchmark",
        "arc-agi-3": "agent_evolve.benchmarks.arc_agi3.ArcAgi3Benchmark",
    }.items():
        assert api.BENCHMARK_REGISTRY[name] == target


# -- loop, convergence, observer, history, version control -------------------------------------------------------

def test_loop_signature_and_convergence_function() -> None:
    assert_page_signature(EvolutionLoop.__init__, [("agent", NO_DEFAULT), ("benchmark", NO_DEFAULT),
                                                   ("engine", NO_DEFAULT), ("config", NO_DEFAULT),
                                                   ("workspace", NO_DEFAULT)])
    assert_page_signature(EvolutionLoop.run, [("cycles", None)])
    assert_page_signature(_is_score_converged, [("scores", NO_DEFAULT), ("window", 3), ("epsilon", 0.01)])
    assert not _is_score_converged([0.5, 0.5])
    assert _is_score_converged([0.1, 0.5, 0.5, 0.505]) and not _is_score_converged([0.5, 0.5, 0.52])


def test_observer_history_and_version_control_signatures() -> None:
    assert_page_signature(ae.Observer.__init__, [("workspace_path", NO_DEFAULT)])
    assert_page_signature(ae.Observer.record, [("task", NO_DEFAULT), ("trajectory", NO_DEFAULT),
                                               ("feedback", NO_DEFAULT)])
    assert_page_signature(ae.Observer.flush, [("batch_label", "")])
    assert_page_signature(ae.Observer.get_observations, [])
    assert_page_signature(ae.EvolutionHistory.__init__, [("workspace_path", NO_DEFAULT)])
    assert_page_signature(ae.EvolutionHistory.get_observations, [("last_n_cycles", None), ("only_failures", False)])
    assert_page_signature(ae.EvolutionHistory.get_score_curve, [])
    assert_page_signature(ae.EvolutionHistory.get_workspace_diff, [("from_label", NO_DEFAULT),
                                                                   ("to_label", NO_DEFAULT)])
    assert_page_signature(ae.EvolutionHistory.read_file_at, [("version_label", NO_DEFAULT), ("path", NO_DEFAULT)])
    vc = ae.VersionControl
    assert_page_signature(vc.__init__, [("workspace_path", NO_DEFAULT)])
    assert_page_signature(vc.init, [])
    assert_page_signature(vc.commit, [("message", NO_DEFAULT), ("tag", None)])
    assert_page_signature(vc.get_diff, [("from_ref", NO_DEFAULT), ("to_ref", NO_DEFAULT)])
    assert_page_signature(vc.show_file_at, [("ref", NO_DEFAULT), ("path", NO_DEFAULT)])
    assert_page_signature(vc.list_tags, [("prefix", "evo-")])
    assert_page_signature(vc.get_log, [("max_entries", 50)])


def test_observer_flushes_to_the_page_path(tmp_path: Path) -> None:
    observer = ae.Observer(tmp_path)
    task = Task("t1", "q")
    observer.record(task, Trajectory("t1", "a"), Feedback(True, 1.0))
    assert [o.task.id for o in observer.get_observations()] == ["t1"]
    path = observer.flush("3")
    assert Path(path) == tmp_path / "evolution" / "observations" / "batch_3.jsonl"
    assert json.loads(Path(path).read_text().splitlines()[0])["task"]["id"] == "t1"


def test_a_cycle_snapshots_records_reloads_and_converges(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, egl_window=2, egl_threshold=0.5)
    engine = PlanEngine([("prompt", "k0 k1"), ("noop",)])
    result = ae.Evolver(str(workspace), KeywordBenchmark(n=10), config, engine).run(5)
    tags = ae.VersionControl(workspace).list_tags(prefix="")
    assert {"pre-evo-1", "pre-evo-2", "pre-evo-3", "evo-1"} <= set(tags)
    history = ae.EvolutionHistory(workspace)
    assert history.get_score_curve() == [(1, 0.0), (2, 1.0), (3, 1.0)]
    record = history.cycle_records()[0]
    assert record["engine_name"] == "PlanEngine" and record["observation_batch"].endswith("batch_1.jsonl")
    assert result.converged and result.cycles_completed == 3, "egl_threshold is the loop's epsilon"
    assert "k0" in history.read_file_at("evo-1", "prompts/system.md")
    assert "k0 k1" in history.get_workspace_diff("evo-0", "evo-1")


# -- resolution rules ----------------------------------------------------------------------------------------------

def test_seed_names_match_before_folders_of_the_same_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = make_workspace(tmp_path / "gsm8k", prompt="my own agent\n")
    evolver = ae.Evolver("gsm8k", "gsm8k", workspace_dir=str(tmp_path / "run"))
    seeded = (seed_path("gsm8k") / "prompts" / "system.md").read_text()
    assert (Path(evolver.workspace.path) / "prompts" / "system.md").read_text() == seeded
    assert (folder / "prompts" / "system.md").read_text() == "my own agent\n"
    by_path = ae.Evolver("./gsm8k", KeywordBenchmark())
    assert Path(by_path.workspace.path) == folder.resolve()


def test_a_seed_is_copied_to_a_working_directory(tmp_path: Path) -> None:
    evolver = ae.Evolver("gsm8k", "gsm8k", workspace_dir=str(tmp_path / "w"))
    assert Path(evolver.workspace.path) == (tmp_path / "w").resolve() != seed_path("gsm8k").resolve()


@pytest.mark.parametrize("missing", ["entrypoint", "evolvable_layers"])
def test_manifest_validation_needs_entrypoint_and_evolvable_layers(tmp_path: Path, missing: str) -> None:
    manifest = "\n".join(line for line in (make_workspace(tmp_path / "probe") / "manifest.yaml").read_text().splitlines()
                         if missing not in line)
    workspace = make_workspace(tmp_path / "ws", manifest=manifest + "\n")
    with pytest.raises(AgentEvolveError, match=missing):
        ae.Evolver(str(workspace), KeywordBenchmark())


def test_workspace_dir_for_an_agent_instance_is_refused_unless_it_is_its_own(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    with pytest.raises(ConfigError, match="workspace_dir"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), workspace_dir=str(tmp_path / "elsewhere"))
    assert not (tmp_path / "elsewhere").exists()
    same = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), workspace_dir=str(workspace))
    assert Path(same.workspace.path) == workspace.resolve()


# -- memory evolution and skill review ------------------------------------------------------------------------------

def test_memory_promotion_is_measured_through_the_gate(tmp_path: Path) -> None:
    from agent_evolve.algorithms.guided_synth import GuidedSynthesisEngine
    from agent_evolve.testing import ScriptedLLM

    workspace = make_workspace(tmp_path / "ws")
    ws = ae.AgentWorkspace(str(workspace))
    for text in ("Always run the full test suite before submitting",
                 "Always run the full test suite before you submit",
                 "run the full test suite before submitting a patch"):
        ws.add_memory({"content": text})
    ws.write_draft("k-words", "Answer with the k word\nfrom the prompt.\n")
    engine = GuidedSynthesisEngine(llm=ScriptedLLM([json.dumps({"decision": "ACCEPT", "reason": "useful"})]),
                                   propose=False, review_pairs=False)
    ae.Evolver(str(workspace), KeywordBenchmark(n=10), ae.EvolveConfig(batch_size=4, holdout_ratio=0.3),
               engine).run(1)
    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["metadata"]["gate"] is not None, "the promotion went through the gate like any edit"
    assert "memory/semantic.jsonl" in record["metadata"]["changed_paths"]
    assert "skills/k-words/SKILL.md" in record["metadata"]["changed_paths"], "the agent's draft was reviewed"
    candidate = ae.VersionControl(workspace).show_file_at("cand-1", "memory/semantic.jsonl")
    assert "full test suite" in candidate


# -- deviations kept on purpose ------------------------------------------------------------------------------------

def test_kept_deviations_behave_as_documented(tmp_path: Path) -> None:
    """Where we differ from the page on purpose, docs/deviations.md says so, and the code does what it says."""
    from agent_evolve.api import default_engine
    from agent_evolve.engine.run_metrics import accepted_score_plateaued

    section = (Path(__file__).parents[2] / "docs" / "deviations.md").read_text().split("## A-Evolve")[1].split("## ")[0]
    for point in ("`AEvolveEngine`", "`_is_score_converged(", "`run(cycles)`", "`read_all_memories(limit)`"):
        assert point in section, point
    assert default_engine("anthropic/claude-x") == "skillforge"
    assert default_engine(ae.EvolveConfig().evolver_model) == "demos"
    assert _is_score_converged([0.2, 0.2, 0.2]) and not accepted_score_plateaued([0.2, 0.2, 0.2], 3, 0.05)
    workspace = ae.AgentWorkspace(str(make_workspace(tmp_path / "ws")))
    for category in ("episodic", "semantic"):
        for i in range(3):
            workspace.add_memory({"content": f"{category} {i}"}, category=category)
    assert len(workspace.read_all_memories(limit=2)) == 4, "the limit applies to each category"
