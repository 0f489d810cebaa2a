"""The `swe` and `terminal` seeds act in a task environment: `swe` answers with the diff, `terminal` with a summary."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from agent_evolve.agents import ReferenceAgent
from agent_evolve.contract import load_manifest
from agent_evolve.environments import EnvironmentSpec, open_environment
from agent_evolve.llm.base import Completion, ToolCall
from agent_evolve.protocol.acting import bound_environment
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task


def _seed(name: str) -> Path:
    return Path(str(files("agent_evolve.seed_workspaces").joinpath(name)))


def call(name: str, **arguments: object) -> Completion:
    return Completion(text="", tool_calls=[ToolCall(f"c-{name}", name, dict(arguments))], finish_reason="tool_calls")


def test_the_swe_seed_submits_the_repository_diff(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def double(x):\n    return x + x + 1\n")
    llm = ScriptedLLM([call("edit", path="calc.py", old_text="x + x + 1", new_text="x + x"),
                       call("submit", summary="removed the stray + 1")])
    agent = ReferenceAgent(_seed("swe"), llm=llm)
    with open_environment(EnvironmentSpec(source_dir=str(tmp_path))) as env, bound_environment(env):
        trajectory = agent.solve(Task("t", "double(2) returns 5"))
    assert trajectory.output.startswith("diff --git a/calc.py b/calc.py")
    assert "-    return x + x + 1\n+    return x + x\n" in trajectory.output
    system = llm.calls[0].messages[0].content
    assert "`submit`" in system and "## minimal-fix" in system and "## reproduce-first" in system


def test_the_terminal_seed_answers_with_its_summary_and_leaves_the_work_in_the_environment(tmp_path: Path) -> None:
    llm = ScriptedLLM(["inspect-before-changing",
                       call("bash", command="mkdir -p out && echo ready > out/status"),
                       call("submit", summary="wrote out/status")])
    agent = ReferenceAgent(_seed("terminal"), llm=llm)
    with open_environment(EnvironmentSpec(source_dir=str(tmp_path))) as env, bound_environment(env):
        trajectory = agent.solve(Task("t", "Create out/status containing ready."))
        assert env.read_file("out/status") == "ready\n"
    assert trajectory.output == "wrote out/status"
    assert "## inspect-before-changing" in llm.calls[1].messages[0].content


def test_both_seeds_let_evolution_edit_their_tools() -> None:
    for name in ("swe", "terminal"):
        manifest = load_manifest(_seed(name))
        assert "tools" in manifest.evolvable_layers and manifest.agent_config["use_tools"] is True
