"""Deterministic evidence analysis: failure kinds, answer formats, skill use, clusters, hidden feedback."""

from __future__ import annotations

from engine_fakes import gsm_obs

from agent_evolve.algorithms.common.evidence import analyse, answer_marker, format_problems, numeric_kind
from agent_evolve.algorithms.common.summaries import batch_digest, clip, evidence_prompt
from agent_evolve.types import Feedback, Observation, Task, Trajectory


def test_no_number_found_is_an_answer_format_failure(failing_batch):
    evidence = analyse(failing_batch)
    assert evidence.answer_marker == "Answer:"
    assert evidence.kind_counts["no_answer"] == 2
    first = evidence.findings[0]
    assert first.kind == "no_answer"
    assert "no line starting with 'Answer:'" in first.format_problems
    assert evidence.clusters[0].kind == "no_answer" and evidence.clusters[0].size == 2
    assert evidence.solved_count == 1 and evidence.mean_score == 0.25


def test_answer_marker_from_instruction_and_plain_mention():
    assert answer_marker(["End with a last line of the form `Final answer: <value>`."]) == "Final answer:"
    assert answer_marker(["Give the answer: as a number"]) == "Answer:"
    assert answer_marker(["Write a poem."]) is None


def test_format_problems_of_one_output():
    assert format_problems("", "Answer:") == ["empty output"]
    assert format_problems("work\nAnswer: 5", "Answer:") == []
    assert format_problems("Answer: 5\nthanks", "Answer:") == ["text after the 'Answer:' line"]
    assert format_problems("**Answer:** 5", "Answer:") == []
    assert "output cut at the length limit" in format_problems("x", None, [{"finish_reason": "length"}])


def test_wrong_numbers_get_finer_kinds():
    assert numeric_kind("18", "16", "16 + 2 = 18, so 16") == "reported_intermediate"
    assert numeric_kind("0.5", "50", "50") == "unit_scale"
    assert numeric_kind("1000", "1001", "1001") == "rounding"
    assert numeric_kind("18", "16", "16") is None
    batch = [gsm_obs("a", "q", "3 * 6 = 18 eggs.\nAnswer: 16", expected="18", extracted="16")]
    assert analyse(batch).findings[0].kind == "reported_intermediate"


def test_error_kinds_from_feedback_text():
    def obs(detail: str) -> Observation:
        return Observation(Task("c", "write f"), Trajectory("c", "def f(): pass"), Feedback(False, 0.0, detail))

    kinds = [analyse([obs(d)]).findings[0].kind for d in (
        "Traceback ...\nZeroDivisionError: division by zero",
        "SyntaxError: invalid syntax",
        "AssertionError: assert f(2) == 4",
        "timed out after 10s",
        "rubric not met",
    )]
    assert kinds == ["runtime_error", "syntax_error", "test_failure", "timeout", "other"]


def test_skill_use_and_success_rate():
    batch = [
        gsm_obs("a", "q1", "Answer: 18", extracted="18", skills=["check-units"]),
        gsm_obs("b", "q2", "Answer: 3", extracted="3", expected="4", skills=["check-units", "verify"]),
    ]
    stats = analyse(batch).skill_stats
    assert (stats["check-units"].uses, stats["check-units"].solved) == (2, 1)
    assert stats["verify"].rate == 0.0


def test_cluster_keywords_skip_boilerplate():
    batch = [gsm_obs(f"t{i}", f"The farmer sells apples at the market, case {i}.", "no idea") for i in range(3)]
    batch.append(gsm_obs("ok", "Trains leave the station.", "Answer: 18", extracted="18"))
    cluster = analyse(batch).clusters[0]
    assert "farmer" in cluster.keywords and "solve" not in cluster.keywords


def test_hidden_feedback_is_never_used(failing_batch):
    hidden = [Observation(o.task, o.trajectory, Feedback(False, 0.0, "", {"hidden": True})) for o in failing_batch]
    evidence = analyse(hidden)
    assert evidence.hidden and evidence.mean_score is None and evidence.solved_count is None
    assert [f.kind for f in evidence.findings] == ["answer_format", "answer_format", None, None]
    text = evidence_prompt(evidence, None, set())  # type: ignore[arg-type]
    assert "solved" not in text and "expected" not in text and "Result:" not in text
    assert "scores hidden" in batch_digest(evidence)


def test_summaries_are_bounded(failing_batch):
    long = [gsm_obs(f"x{i}", "word " * 2000, "out " * 2000) for i in range(10)]
    evidence = analyse(long)
    text = evidence_prompt(evidence, None, set(), failures=3, limit=1500)  # type: ignore[arg-type]
    assert len(text) < 1800
    assert len(clip("a" * 1000, 100)) <= 100
