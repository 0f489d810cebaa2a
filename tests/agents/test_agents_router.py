"""The tf-idf matcher and Ratchet's router: who is shown, how replies are read, when no call is made."""

from __future__ import annotations

import pytest

from agent_evolve.agents.routing import router
from agent_evolve.agents.routing.bank import BankRouter, RouterConfig
from agent_evolve.agents.routing.router import (
    BankShortlist,
    SkillRouter,
    bank_index,
    match_skills,
    parse_choice,
    trigger_text,
)
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import SkillMeta


def meta(name: str, trigger: str, avoid: str = "other tasks") -> SkillMeta:
    return SkillMeta(name, f"TRIGGER when: {trigger}. DO NOT TRIGGER: {avoid}.", f"/skills/{name}/SKILL.md")


BANK = [
    meta("check-units", "a word problem mixes units such as hours and minutes"),
    meta("percent-change", "a problem asks for a percentage increase or discount"),
    meta("sort-lists", "a function must sort a list of items"),
]


def test_trigger_text() -> None:
    assert trigger_text("TRIGGER when: mixing units. DO NOT TRIGGER: plain sums.") == "mixing units."
    assert trigger_text("Use for unit conversion.") == "Use for unit conversion."


def test_match_skills_uses_the_trigger_part() -> None:
    found = match_skills("A train runs 2 hours and 30 minutes. How many minutes?", BANK, k=2)
    assert [s.name for s, _ in found] == ["check-units"]
    assert match_skills("What is the percentage discount on a $20 shirt?", BANK, 3)[0][0].name == "percent-change"
    excluded = [meta("a", "alpha beta", avoid="gamma delta")]
    assert match_skills("gamma delta", excluded, 3) == [], "the DO NOT TRIGGER part is not matched"


def test_the_bank_index_is_built_once_per_bank_version() -> None:
    first = bank_index(BANK)
    assert bank_index(list(BANK)) is first, "the same names and descriptions reuse the index"
    changed = [*BANK[:2], meta("sort-lists", "a function must order records by date")]
    assert bank_index(changed) is not first
    assert match_skills("order the records by date", changed, 1)[0][0].name == "sort-lists"
    assert match_skills("order the records by date", BANK, 1) == [], "the old version's index is not reused"


def test_a_kept_shortlist_finds_its_index_once_for_every_task(monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[int] = []
    real = router.bank_index
    monkeypatch.setattr(router, "bank_index", lambda skills: looked_up.append(len(skills)) or real(skills))
    shortlist = BankShortlist(BANK)
    tasks = ["How many minutes in 2 hours?", "Sort these items.", "What is the percentage discount?"]
    assert [shortlist.top(t, 1)[0][0].name for t in tasks] == ["check-units", "sort-lists", "percent-change"]
    assert looked_up == [3], "the bank's names and descriptions are hashed once per version, not per task"
    assert shortlist.top("anything", 0) == [] and BankShortlist([]).top("units", 3) == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("check-units", "check-units"),
        ("  `check-units`\n", "check-units"),
        ("**Skill:** percent-change.", "percent-change"),
        ("NONE", None),
        ("none of these apply", None),
        ("I would use sort-lists; check-units does not apply.", "sort-lists"),
        ("<think>maybe check-units</think>NONE", None),
        ("check-units-v2", None),
        ("use the metric skill", None),
        ("", None),
    ],
)
def test_parse_choice(reply: str, expected: str | None) -> None:
    assert parse_choice(reply, [s.name for s in BANK])[0] == expected


def test_small_bank_shows_every_skill_and_obeys_the_answer() -> None:
    llm = ScriptedLLM(["percent-change"])
    decision = SkillRouter(llm).route("Some task text", BANK)
    assert decision.skill == "percent-change"
    assert decision.candidates == ["check-units", "percent-change", "sort-lists"]
    prompt = llm.calls[0].messages[-1].content
    assert all(s.name in prompt and s.description in prompt for s in BANK) and "Some task text" in prompt
    assert decision.to_dict()["reply"] == "percent-change"


def test_unknown_name_means_none() -> None:
    decision = SkillRouter(ScriptedLLM(["use-magic"])).route("task", BANK)
    assert decision.skill is None and "no listed skill" in decision.reason


def test_empty_bank_makes_no_call() -> None:
    llm = ScriptedLLM([])
    decision = SkillRouter(llm).route("task", [])
    assert decision.skill is None and llm.calls == []


def test_large_bank_shows_a_tfidf_shortlist() -> None:
    bank = [meta(f"topic-{i}", f"the task mentions keyword{i} and shared") for i in range(30)]
    llm = ScriptedLLM(["topic-7"])
    decision = SkillRouter(llm).route("about keyword7 and shared things", bank)
    assert decision.skill == "topic-7"
    assert len(decision.candidates) == 10 and decision.candidates[0] == "topic-7"
    shown = llm.calls[0].messages[-1].content
    assert shown.count("\n- topic-") == 10


def test_large_bank_with_no_overlap_makes_no_call() -> None:
    bank = [meta(f"topic-{i}", f"keyword{i}") for i in range(25)]
    llm = ScriptedLLM([])
    assert SkillRouter(llm).route("unrelated words only", bank).skill is None and llm.calls == []


def test_embedder_adds_its_top_to_the_shortlist() -> None:
    bank = [meta(f"topic-{i}", f"keyword{i}") for i in range(25)]

    class Embed:
        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0, 0.0] if ("keyword3" in t or "unrelated" in t) else [0.0, 1.0] for t in texts]

    llm = ScriptedLLM(["topic-3"])
    router = BankRouter(bank, RouterConfig(full_bank_limit=20, shortlist_lexical=2, shortlist_embedding=2), Embed())
    decision = router.route(llm, "unrelated words only")
    assert decision.candidates[0] == "topic-3" and len(decision.candidates) == 2
    assert decision.skill == "topic-3"


def test_long_descriptions_and_tasks_are_shortened() -> None:
    long = [SkillMeta("long-one", "TRIGGER when: " + "x " * 800, "/p")]
    message = SkillRouter.messages("t" * 5000, long)[-1].content
    assert len(message) < 2200
