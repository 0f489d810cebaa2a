"""Memory evolution: recurring episodic lessons become one semantic entry; guided_synth stages it as an edit."""

from __future__ import annotations

from agent_evolve.algorithms.common.memory_ops import promotions, recurring_groups
from agent_evolve.algorithms.guided_synth import GuidedSynthesisEngine
from agent_evolve.testing import ScriptedLLM

RECURRING = ["Always run the full test suite before submitting",
             "Always run the full test suite before you submit",
             "run the full test suite before submitting a patch"]


def test_a_lesson_seen_three_times_is_one_group_and_others_are_not() -> None:
    texts = [RECURRING[0], "Check the file encoding first", RECURRING[1], RECURRING[2], "Numbers need units"]
    assert recurring_groups(texts, similarity=0.6, min_count=3) == [[0, 2, 3]]
    assert recurring_groups(texts, similarity=0.6, min_count=4) == []


def test_promotion_keeps_the_newest_wording_and_skips_what_semantic_memory_knows() -> None:
    episodic = [{"content": text, "task_ids": [f"t{i}"]} for i, text in enumerate(RECURRING)]
    [promotion] = promotions(episodic, [], 0.6, 3, {"source": "test"})
    assert promotion.entry["content"] == RECURRING[2] and promotion.entry["promoted_from"] == 3
    assert promotion.entry["task_ids"] == ["t0", "t1", "t2"] and promotion.replaced == (0, 1, 2)
    assert promotions(episodic, [{"content": RECURRING[0]}], 0.6, 3, {}) == []


def test_guided_synth_promotes_recurring_memories_without_a_model(ws, failing_batch) -> None:
    for text in RECURRING:
        ws.add_memory({"content": text})
    llm = ScriptedLLM([])
    result = GuidedSynthesisEngine(llm=llm, propose=False, review_pairs=False).step(ws, failing_batch, None)
    assert not llm.calls and result.mutated
    assert [m["content"] for m in ws.read_memories("semantic")] == [RECURRING[2]]
    episodic = [m["content"] for m in ws.read_memories("episodic", limit=None)]
    assert "carry the one" in episodic and not set(RECURRING) & set(episodic)


def test_promotion_is_off_with_promote_repeats_zero(ws, failing_batch) -> None:
    for text in RECURRING:
        ws.add_memory({"content": text})
    GuidedSynthesisEngine(llm=ScriptedLLM([]), propose=False, review_pairs=False, promote_repeats=0).step(
        ws, failing_batch, None)
    assert ws.read_memories("semantic") == []
