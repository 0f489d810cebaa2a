"""Prompt assembly: sections, order, memory priority and the size cap."""

from __future__ import annotations

from agent_evolve.agents.prompting import (
    SkillText,
    assemble_system_prompt,
    build_messages,
    memory_line,
    render_system_prompt,
    select_memories,
)


def test_render_orders_prompt_fragments_skills_memory() -> None:
    text = render_system_prompt(
        "Base prompt.",
        {"b.md": "Fragment B.", "a.md": "Fragment A."},
        [SkillText("check-units", "Convert units.\n")],
        ["carry the one"],
    )
    assert text == (
        "Base prompt.\n\nFragment A.\n\nFragment B.\n\n# Skills\n## check-units\nConvert units.\n\n"
        "# Memory\n- carry the one\n"
    )


def test_render_omits_empty_sections() -> None:
    assert render_system_prompt("Base.", {}, [], []) == "Base.\n"


def test_select_memories_prefers_knowledge_then_recent_lessons() -> None:
    memories = [
        {"category": "episodic", "content": "old lesson"},
        {"category": "episodic", "content": "new lesson"},
        {"category": "semantic", "content": "a fact"},
        {"category": "episodic", "content": ""},
    ]
    assert select_memories(memories, 2) == ["a fact", "new lesson"]
    assert select_memories(memories, 10) == ["a fact", "new lesson", "old lesson"]
    assert select_memories(memories, 0) == []


def test_memory_line_is_one_bounded_line() -> None:
    assert memory_line({"content": "a\n  b"}) == "a b"
    assert memory_line({"content": {"k": 1}}) == '{"k": 1}'
    assert len(memory_line({"content": "x" * 1000})) == 300


def test_cap_drops_memories_first_then_extra_skills() -> None:
    skills = [SkillText("first", "F" * 400), SkillText("second", "S" * 400)]
    memories = [f"memory {i} " + "m" * 100 for i in range(20)]
    full = assemble_system_prompt("Base.", {}, skills, memories, max_chars=100_000)
    assert full.skills == ["first", "second"] and full.memories == 20

    fewer = assemble_system_prompt("Base.", {}, skills, memories, max_chars=1500)
    assert len(fewer.text) <= 1500
    assert fewer.skills == ["first", "second"] and 0 < fewer.memories < 20
    assert "memory 0 " in fewer.text and "memory 19 " not in fewer.text, "lowest-priority memories go first"

    no_memory = assemble_system_prompt("Base.", {}, skills, memories, max_chars=700)
    assert no_memory.memories == 0 and no_memory.skills == ["first"] and no_memory.dropped_skills == ["second"]
    assert len(no_memory.text) <= 700 and "# Memory" not in no_memory.text


def test_cap_shortens_the_last_skill_then_drops_it() -> None:
    skills = [SkillText("only", "word " * 200)]
    short = assemble_system_prompt("Base.", {}, skills, [], max_chars=600)
    assert short.skills == ["only"] and short.shortened_skill == "only"
    assert len(short.text) <= 600 and short.text.rstrip().endswith("[...]")

    gone = assemble_system_prompt("Base." * 100, {}, skills, [], max_chars=600)
    assert gone.skills == [] and gone.dropped_skills == ["only"]
    assert gone.text == "Base." * 100 + "\n", "the workspace's own prompt is never cut"


def test_default_cap_holds_for_a_big_bank() -> None:
    skills = [SkillText(f"skill-{i}", "guidance line\n" * 60) for i in range(20)]
    prompt = assemble_system_prompt("Base.", {}, skills, ["lesson"] * 10)
    assert len(prompt.text) <= 6000 and prompt.memories == 0
    assert prompt.skills == [f"skill-{i}" for i in range(len(prompt.skills))] and len(prompt.skills) < 20


def test_build_messages() -> None:
    system, user = build_messages("S", "the task")
    assert (system.role, system.content, user.role, user.content) == ("system", "S", "user", "the task")
