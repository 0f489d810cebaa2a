"""adaptive and adaptive_skill: seeded skills, trend-adapted density, sanity fixes, skills-only variant."""

from __future__ import annotations

import json
import shutil

from engine_fakes import PROMPT, add_skill, gsm_obs, snapshot

from agent_evolve.algorithms.adaptive import AdaptiveEvolutionEngine, edit_budget
from agent_evolve.algorithms.adaptive_skill import AdaptiveSkillEngine
from agent_evolve.algorithms.common.edits import RULES_HEADING, learned_rules
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Feedback, Observation, Task, Trajectory

UNITS = "Convert every quantity to one unit before computing.\nWrite the unit next to each number.\nCheck the unit."
RULE = json.dumps({"rule": "Finish with one last line `Answer: <number>` and nothing after it."})


def solved_batch() -> list:
    return [gsm_obs(f"s{i}", f"question {i}", "Answer: 18", extracted="18") for i in range(3)]


def test_prompt_is_capped_with_oldest_rules_dropped(ws):
    rules = "".join(f"- learned rule {i}: " + "keep the arithmetic exact " * 6 + "\n" for i in range(40))
    ws.write_prompt(PROMPT + f"\n{RULES_HEADING}\n{rules}")
    llm = ScriptedLLM([])
    result = AdaptiveEvolutionEngine(llm=llm, prompt_cap=2000).step(ws, solved_batch(), None)
    prompt = ws.read_prompt()
    assert result.mutated and len(prompt) <= 2000 and prompt.startswith(PROMPT.strip())
    assert learned_rules(prompt)[-1].startswith("learned rule 39") and "learned rule 0:" not in prompt
    assert not llm.calls  # a perfect batch gets no model edits, only sanity fixes


def test_near_duplicate_skill_is_removed_and_big_skill_capped(ws):
    add_skill(ws, "check-units", "TRIGGER when: a problem mixes units.", UNITS)
    add_skill(ws, "units-check", "TRIGGER when: a problem mixes units.", UNITS + "\nCheck the unit again.")
    add_skill(ws, "huge", "TRIGGER when: always.", "Say more.\n" * 400)
    batch = [gsm_obs("a", "q", "Answer: 18", extracted="18", skills=["check-units"])]
    result = AdaptiveEvolutionEngine(llm=ScriptedLLM([])).step(ws, batch, None)
    names = [s.name for s in ws.list_skills()]
    assert names == ["check-units", "huge"]  # the unused duplicate went, the used one stayed
    assert len(ws.read_skill("huge")) <= 1500 and not validate_workspace(ws.path)
    assert any("near-duplicate" in f for f in result.metadata["fixes"])


def test_memory_is_deduplicated(ws):
    for text in ("End with the Answer: line.", "end with the answer: line", "Check units."):
        ws.add_memory({"content": text})
    AdaptiveEvolutionEngine(llm=ScriptedLLM([])).step(ws, solved_batch(), None)
    assert [m["content"] for m in ws.read_memories()] == ["carry the one", "end with the answer: line",
                                                          "Check units."]


def test_recurring_failure_seeds_a_skill_and_the_model_adds_a_rule(ws, failing_batch):
    llm = ScriptedLLM([RULE, json.dumps({"name": "check-each-step", "description": "TRIGGER when: many steps.",
                                         "body": "Recompute each line."})])
    result = AdaptiveEvolutionEngine(llm=llm).step(ws, failing_batch, None)
    assert result.metadata["seeded"] == ["final-answer-line"] and result.metadata["budget"] == 2
    assert "`Answer: <answer>`" in ws.read_skill("final-answer-line")
    assert "Answer: <number>" in ws.read_prompt()
    assert {s.name for s in ws.list_skills()} == {"final-answer-line", "check-each-step"}


def test_density_follows_the_reward_trend_and_survives_a_restart(ws, failing_batch, make_context):
    assert edit_budget([1.0], 0, 2) == 0
    assert edit_budget([0.2, 0.6], 0, 2) == 1
    assert edit_budget([0.5, 0.5], 0, 2) == 2
    assert edit_budget([0.6, 0.2], 0, 2) == 3
    assert edit_budget([0.2, 0.6], 2, 2) == 3
    first = AdaptiveEvolutionEngine(llm=ScriptedLLM([]), max_edits=0)
    first.context = make_context(ws)
    first.step(ws, failing_batch, None)
    first.on_cycle_end(False, 0.3)
    restarted = AdaptiveEvolutionEngine(llm=ScriptedLLM([]))
    restarted.context = make_context(ws)
    assert restarted.load_state() == {"rewards": [0.25], "rejections": 1}


def test_malformed_model_output_leaves_the_workspace_byte_identical(ws, failing_batch):
    before = snapshot(ws.path)
    result = AdaptiveEvolutionEngine(llm=ScriptedLLM(["a rule!", "{'rule': 1}"])).step(ws, failing_batch, None)
    assert result.status == "failed" and snapshot(ws.path) == before


def test_prompt_flag_off_leaves_the_prompt_alone(ws, failing_batch):
    big = PROMPT + "x" * 5000
    ws.write_prompt(big)
    llm = ScriptedLLM([json.dumps({"name": "check-each-step", "description": "TRIGGER when: many steps.",
                                   "body": "Recompute each line."})])
    AdaptiveEvolutionEngine(EvolveConfig(evolve_prompts=False), llm=llm).step(ws, failing_batch, None)
    assert ws.read_prompt() == big
    assert "Write ONE rule" not in "".join(m.content for c in llm.calls for m in c.messages)


def test_skill_engine_never_touches_prompt_or_memory(ws, failing_batch):
    ws.write_prompt(PROMPT + "y" * 5000)  # over the prompt cap
    ws.add_memory({"content": "carry the one"})  # a duplicate memory
    before_prompt, before_memory = ws.read_prompt(), ws.read_memories()
    llm = ScriptedLLM([json.dumps({"name": "check-each-step", "description": "TRIGGER when: many steps.",
                                   "body": "Recompute each line."})])
    result = AdaptiveSkillEngine(llm=llm).step(ws, failing_batch, None)
    assert ws.read_prompt() == before_prompt and ws.read_memories() == before_memory
    assert {s.name for s in ws.list_skills()} == {"final-answer-line", "check-each-step"}
    assert result.summary.startswith("adaptive_skill:")


def test_skill_engine_refines_a_skill_that_does_not_help(ws):
    add_skill(ws, "check-units", "TRIGGER when: a problem mixes units.", UNITS)
    batch = [gsm_obs(f"w{i}", f"q {i}", "Answer: 5", expected="7", extracted="5", skills=["check-units"])
             for i in range(2)]
    refined = {"name": "whatever", "description": "TRIGGER when: units differ.", "body": "Convert minutes to hours."}
    llm = ScriptedLLM([json.dumps({"name": "check-each-step", "description": "TRIGGER when: many steps.",
                                   "body": "Recompute each line."}), json.dumps(refined)])
    AdaptiveSkillEngine(llm=llm, seed_min_failures=3).step(ws, batch, None)
    assert "Convert minutes to hours." in ws.read_skill("check-units")
    assert "used in 2 task(s) and 0 were solved" in llm.calls[1].messages[-1].content


def test_a_skill_body_given_as_a_list_of_lines_is_accepted(ws, failing_batch):
    listed = json.dumps({"name": "Answer Line", "description": "an answer line is asked for",
                         "body": ["Finish with `Answer: <number>`.", "Write nothing after it."]})
    AdaptiveSkillEngine(llm=ScriptedLLM([listed]), seed_min_failures=9, max_edits=1).step(ws, failing_batch, None)
    text = ws.read_skill("answer-line")
    assert "- Finish with `Answer: <number>`.\n- Write nothing after it." in text
    assert "TRIGGER when: an answer line is asked for" in text


def test_a_trigger_that_names_the_outcome_is_replaced(ws, failing_batch):
    outcome = json.dumps({"name": "final-answer-is-wrong", "description": "TRIGGER when: the final answer is wrong.",
                          "body": "Recompute each step."})
    engine = AdaptiveSkillEngine(llm=ScriptedLLM([outcome]), seed_min_failures=9, max_edits=1)
    engine.step(ws, failing_batch[2:], None)  # one wrong answer
    text = ws.read_skill("final-answer-is-wrong")
    assert "TRIGGER when: a problem needs several arithmetic steps." in text and "is wrong" not in text


def label_obs(task_id: str, review: str, got: str, want: str) -> Observation:
    """A failed sentiment label of an exact-match text task file."""
    task = Task(task_id, f"Classify the sentiment as positive, negative or neutral: {review}", {"answer_kind": "text"})
    return Observation(task, Trajectory(task_id, got), Feedback(False, 0.0, f"expected {want!r}, got {got!r}",
                                                                {"expected": want}))


def test_wrong_labels_of_text_tasks_get_no_arithmetic_skill(ws):
    """A wrong answer's seed skill is about arithmetic: seeded, and suggested to the model, for number tasks only."""
    labels = [label_obs(f"s{i}", f"review {i} of the shop", "positive", "neutral") for i in range(3)]
    skill = json.dumps({"name": "read-the-tone", "description": "TRIGGER when: the final answer is wrong.",
                        "body": "Name the tone the review states."})
    llm = ScriptedLLM([skill])
    result = AdaptiveSkillEngine(llm=llm, max_edits=1).step(ws, labels, None)
    request = llm.calls[0].messages[-1].content
    assert result.metadata["seeded"] == [] and "arithmetic" not in request and "check-each-step" not in request
    assert [s.name for s in ws.list_skills()] == ["read-the-tone"]
    assert "arithmetic" not in ws.read_skill("read-the-tone"), "the fallback trigger is the failures' focus"
    shutil.rmtree(ws.path / "skills" / "read-the-tone")  # it covers wrong answers now
    wrong = [gsm_obs(f"g{i}", f"question {i}", "Answer: 5", expected="7", extracted="5") for i in range(3)]
    assert AdaptiveSkillEngine(llm=ScriptedLLM([]), max_edits=0).step(ws, wrong, None).metadata["seeded"] == [
        "check-each-step"]
