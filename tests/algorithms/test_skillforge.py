"""skillforge: tool conversation, bash confinement inside the engine, bash edits undone with git, fallback, hidden
feedback, layer flags."""

from __future__ import annotations

import json
import subprocess

import pytest
from engine_fakes import PROMPT, snapshot

from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash
from agent_evolve.algorithms.skillforge.engine import NO_GIT, AEvolveEngine
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.llm.base import Completion, ToolCall
from agent_evolve.testing import ScriptedLLM, ScriptExhaustedError

WRITE_SKILL = ("mkdir -p skills/answer-line && printf -- '---\\nname: answer-line\\n"
               "description: \"TRIGGER when: always.\"\\n---\\n\\nEnd with Answer: <number>.\\n' "
               "> skills/answer-line/SKILL.md")
SKILL_ARGS = {"name": "final-answer-line", "description": "TRIGGER when: the task asks for an Answer: line.",
              "body": "End with one last line `Answer: <number>`."}


@pytest.fixture
def ws(ws: AgentWorkspace) -> AgentWorkspace:
    """The engine tests' workspace as the loop hands it to a step: committed in git, which undoes bash edits."""
    vc = VersionControl(ws.path)
    vc.init()
    vc.commit("the workspace before the step")
    return ws


@pytest.fixture
def unconfined(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bash commands run in the workspace with no confinement: edits outside the layers reach the disk."""
    def run(bash: ConfinedBash, command: str) -> str:
        done = subprocess.run(["bash", "-c", command], cwd=bash.root, capture_output=True, text=True, check=False)
        return f"exit code {done.returncode}\n{done.stdout}{done.stderr}"

    monkeypatch.setattr(ConfinedBash, "run", run)


def calls(*tool_calls: tuple[str, dict]) -> Completion:
    requested = [ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(tool_calls)]
    return Completion("", requested, finish_reason="tool_calls")


def all_text(llm: ScriptedLLM) -> str:
    return "\n".join(m.content for call in llm.calls for m in call.messages)


def test_tools_inspect_and_write_a_skill(ws, failing_batch):
    llm = ScriptedLLM([calls(("bash", {"command": "cat prompts/system.md"})),
                       calls(("write_skill", SKILL_ARGS)), "DONE: added final-answer-line"])
    result = AEvolveEngine(llm=llm).step(ws, failing_batch, None)
    assert result.mutated and result.status == "done" and not result.metadata["fallback"]
    assert "final-answer-line" in [s.name for s in ws.list_skills()]
    assert PROMPT.strip() in llm.calls[1].messages[-1].content  # the bash output came back to the model
    assert not validate_workspace(ws.path)


def test_bash_inside_the_engine_cannot_leave_the_workspace(ws, failing_batch, tmp_path):
    (tmp_path / "secret.txt").write_text("top secret")
    llm = ScriptedLLM([calls(("bash", {"command": "cat ../secret.txt"})),
                       calls(("bash", {"command": "echo hacked > ../pwned.txt"})),
                       calls(("add_rule", {"rule": "End with a last line `Answer: <number>`, nothing after it."})),
                       "DONE"])
    result = AEvolveEngine(llm=llm).step(ws, failing_batch, None)
    tool_replies = [m.content for m in llm.calls[-1].messages if m.role == "tool"]
    assert not any(reply.startswith("exit code 0") for reply in tool_replies[:2])  # the kernel refused both
    assert "top secret" not in all_text(llm) and not (tmp_path / "pwned.txt").exists()
    assert result.mutated and "Answer: <number>" in ws.read_prompt()


def test_plain_reply_falls_back_to_one_schema_checked_proposal(ws, failing_batch):
    rule = {"rule": "Always finish with a final line `Answer: <number>`."}
    llm = ScriptedLLM(["I would add a rule about the answer format.", json.dumps(rule)])
    result = AEvolveEngine(llm=llm).step(ws, failing_batch, None)
    assert result.mutated and result.metadata["fallback"]
    assert "Always finish with a final line" in ws.read_prompt()
    assert llm.calls[1].tools is None  # the fallback is a plain JSON request


def test_malformed_fallback_leaves_the_workspace_byte_identical(ws, failing_batch):
    before = snapshot(ws.path)
    llm = ScriptedLLM(["no tools today", "{not json", "still not json"])
    result = AEvolveEngine(llm=llm).step(ws, failing_batch, None)
    assert result.status == "failed" and not result.mutated
    assert snapshot(ws.path) == before


def test_trajectory_only_hides_scores_and_feedback_from_the_model(ws, failing_batch):
    llm = ScriptedLLM(["DONE", json.dumps({"rule": "End with the line `Answer: <number>`."})])
    engine = AEvolveEngine(EvolveConfig(trajectory_only=True), llm=llm)
    engine.step(ws, failing_batch, None)
    sent = all_text(llm)
    for leaked in ("expected 70000", "no number found", "correct: 18", "solved", "Result:", "wrong"):
        assert leaked not in sent, leaked
    assert "scores hidden" in sent
    visible = ScriptedLLM(["DONE", json.dumps({"rule": "End with the line `Answer: <number>`."})])
    AEvolveEngine(llm=visible).step(ws, failing_batch, None)
    assert "no number found" in all_text(visible) and "1 solved" in all_text(visible)


def test_prompt_flag_off_keeps_the_prompt_untouched(ws, failing_batch):
    llm = ScriptedLLM([calls(("add_rule", {"rule": "A rule the flags forbid here."}),
                             ("bash", {"command": "echo extra >> prompts/system.md"}),
                             ("add_memory", {"content": "Finish with the Answer: line."})), "DONE"])
    result = AEvolveEngine(EvolveConfig(evolve_prompts=False), llm=llm).step(ws, failing_batch, None)
    assert ws.read_prompt() == PROMPT
    assert "add_rule" not in [t.name for t in llm.calls[0].tools or []]
    assert result.mutated and ws.read_memories()[-1]["content"] == "Finish with the Answer: line."


def test_bash_edit_that_breaks_the_workspace_is_undone(ws, failing_batch):
    before = snapshot(ws.path)
    llm = ScriptedLLM([calls(("bash", {"command": "rm memory/episodic.jsonl && mkdir -p skills/bad "
                                                  "&& echo nonsense > skills/bad/SKILL.md"})), "DONE"])
    result = AEvolveEngine(llm=llm, fallback=False).step(ws, failing_batch, None)
    assert not result.mutated and snapshot(ws.path) == before  # the deleted memory is back
    assert not (ws.path / "skills" / "bad").exists() and not validate_workspace(ws.path)


def test_invalid_tool_arguments_are_reported_to_the_model_not_written(ws, failing_batch):
    before = snapshot(ws.path)
    bad = {"name": "x", "description": "", "body": ""}
    llm = ScriptedLLM([calls(("write_skill", bad)), "DONE"])
    result = AEvolveEngine(llm=llm, fallback=False).step(ws, failing_batch, None)
    assert llm.calls[1].messages[-1].content.startswith("Error:")
    assert not result.mutated and snapshot(ws.path) == before


def test_an_all_solved_batch_calls_no_model(ws, failing_batch):
    llm = ScriptedLLM([])
    result = AEvolveEngine(llm=llm).step(ws, failing_batch[3:], None)
    assert not result.mutated and not llm.calls


def test_bash_changes_outside_the_enabled_layers_are_undone(ws, failing_batch):
    before = snapshot(ws.path)
    llm = ScriptedLLM([calls(("bash", {"command": "echo x >> manifest.yaml && touch notes.txt && mkdir -p tools "
                                                  "&& echo y > tools/t.py && echo z >> memory/episodic.jsonl"})),
                       "DONE"])
    result = AEvolveEngine(llm=llm, fallback=False).step(ws, failing_batch, None)
    assert not result.mutated and snapshot(ws.path) == before  # memory got an invalid line, so it went too


def test_valid_bash_edit_in_an_enabled_layer_is_kept(ws, failing_batch):
    llm = ScriptedLLM([calls(("bash", {"command": f"{WRITE_SKILL} && touch notes.txt"})), "DONE"])
    result = AEvolveEngine(llm=llm, fallback=False).step(ws, failing_batch, None)
    assert result.mutated and [s.name for s in ws.list_skills()] == ["answer-line"]
    assert not (ws.path / "notes.txt").exists()
    assert result.metadata["edits"] == {"proposed": 0, "valid": 0, "shell": 1}, "the shell's change is counted"


def test_edits_escaping_the_confinement_are_undone_by_git_and_layer_edits_kept(ws, failing_batch, unconfined):
    (ws.path / "tools").mkdir()
    (ws.path / "tools" / "helper.py").write_text("print('help')\n")
    VersionControl(ws.path).commit("a tool outside the enabled layers")
    before = snapshot(ws.path)
    escape = ("echo x >> manifest.yaml && touch notes.txt && rm tools/helper.py && mkdir -p tools/new "
              "&& echo y > tools/new/t.py && rm memory/episodic.jsonl")
    llm = ScriptedLLM([calls(("bash", {"command": f"{escape} && {WRITE_SKILL}"})), "DONE"])
    result = AEvolveEngine(llm=llm, fallback=False).step(ws, failing_batch, None)
    after = snapshot(ws.path)
    assert result.mutated and [s.name for s in ws.list_skills()] == ["answer-line"]
    assert "bash changed memory/episodic.jsonl; bash changed skills/answer-line/SKILL.md" in result.summary
    assert {p for p in after if after[p] != before.get(p)} == {"skills/answer-line/SKILL.md"}
    assert set(before) - set(after) == {"memory/episodic.jsonl"}  # deleted inside a layer: kept
    assert not (ws.path / "tools" / "new").exists()


def test_the_model_is_told_it_may_switch_on_program_answers_and_a_program_prompt_it_writes_is_kept(ws, failing_batch):
    def model(messages):
        told = "prompts/program.md" in messages[0].content
        if told and len(messages) == 2:
            return calls(("bash", {"command": "printf 'Write a Python program that prints the answer.\\n' "
                                              "> prompts/program.md"}))
        return "DONE: answers with programs" if told else "DONE: nothing"

    result = AEvolveEngine(llm=ScriptedLLM([model] * 4), fallback=False).step(ws, failing_batch, None)
    assert result.mutated and ws.read_program_prompt() == "Write a Python program that prints the answer.\n"
    assert result.metadata["edits"]["shell"] == 1 and not validate_workspace(ws.path)


def test_without_bash_the_program_switch_is_not_offered(ws, failing_batch):
    llm = ScriptedLLM(["DONE"])
    AEvolveEngine(llm=llm, fallback=False, bash=False).step(ws, failing_batch, None)
    assert "prompts/program.md" not in llm.calls[0].messages[0].content, "only bash could write it"


def test_a_step_on_uncommitted_changes_offers_no_bash_and_keeps_them(ws, failing_batch):
    (ws.path / "notes.txt").write_text("a person's notes, not committed\n")
    llm = ScriptedLLM(["DONE"])
    result = AEvolveEngine(llm=llm, fallback=False).step(ws, failing_batch, None)
    assert "bash" not in [t.name for t in llm.calls[0].tools or []] and result.metadata["isolation"] == NO_GIT
    assert (ws.path / "notes.txt").read_text() == "a person's notes, not committed\n"


def test_a_crashing_model_leaves_no_bash_edit_behind(ws, failing_batch):
    before = snapshot(ws.path)
    llm = ScriptedLLM([calls(("bash", {"command": "echo more >> prompts/system.md"}))])  # then the script runs out
    with pytest.raises(ScriptExhaustedError):  # the loop records it as a failed step
        AEvolveEngine(llm=llm).step(ws, failing_batch, None)
    assert snapshot(ws.path) == before


def test_a_rule_about_the_prompt_instead_of_the_task_becomes_the_advice(ws, failing_batch):
    llm = ScriptedLLM(["no tools", json.dumps({"rule": "The system prompt should mention the answer format."})])
    AEvolveEngine(llm=llm).step(ws, failing_batch, None)
    assert "system prompt should" not in ws.read_prompt()
    assert "End with exactly one final line in the requested answer format" in ws.read_prompt()


def test_the_step_records_how_many_proposed_edits_were_valid(ws, failing_batch):
    llm = ScriptedLLM([calls(("write_skill", {"name": "no-body"})),  # arguments that make no edit
                       calls(("add_rule", {"rule": "   "})),  # an edit that fails its check
                       calls(("add_rule", {"rule": "End with a last line `Answer: <number>`, nothing after it."})),
                       "DONE"])
    result = AEvolveEngine(llm=llm).step(ws, failing_batch, None)
    assert result.metadata["edits"] == {"proposed": 3, "valid": 1, "shell": 0}


def test_an_unparsed_fallback_reply_counts_as_a_proposal_that_was_not_valid(ws, failing_batch):
    result = AEvolveEngine(llm=ScriptedLLM(["no tools today", "{not json", "still not json"])).step(
        ws, failing_batch, None)
    assert result.status == "failed" and result.metadata["edits"] == {"proposed": 1, "valid": 0}  # nothing written
