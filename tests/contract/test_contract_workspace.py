from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from agent_evolve.contract import AgentWorkspace, validate_workspace
from agent_evolve.errors import ManifestError, SkillFormatError, WorkspaceError
from agent_evolve.types import SkillMeta


def skill_doc(name: str, description: str = "Does a thing.", body: str = "Body.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}"


@pytest.fixture
def ws(ws_dir: Path) -> AgentWorkspace:
    return AgentWorkspace(ws_dir)


def test_missing_workspace_dir(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="does not exist"):
        AgentWorkspace(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(WorkspaceError, match="not a directory"):
        AgentWorkspace(tmp_path / "file")


def test_path_attribute(ws: AgentWorkspace, ws_dir: Path) -> None:
    assert isinstance(ws.path, Path) and ws.path == ws_dir.resolve()
    assert AgentWorkspace(str(ws_dir)).path == ws.path


# ----- prompts -------------------------------------------------------------------------------------------
def test_prompt_round_trip(ws: AgentWorkspace) -> None:
    assert ws.read_prompt() == "You solve math problems.\n"
    ws.write_prompt("New prompt ✓\n")
    assert ws.read_prompt() == "New prompt ✓\n"
    assert (ws.path / "prompts" / "system.md").read_text(encoding="utf-8") == "New prompt ✓\n"


def test_missing_prompt_reads_empty(tmp_path: Path) -> None:
    ws = AgentWorkspace(tmp_path)
    assert ws.read_prompt() == ""
    ws.write_prompt("hi")
    assert ws.read_prompt() == "hi"


def test_fragments_round_trip(ws: AgentWorkspace) -> None:
    assert ws.list_fragments() == []
    ws.write_fragment("style.md", "Be terse.")
    ws.write_fragment("a.md", "First.")
    assert ws.read_fragment("style.md") == "Be terse."
    assert ws.list_fragments() == ["a.md", "style.md"]
    with pytest.raises(WorkspaceError, match="not found"):
        ws.read_fragment("missing.md")


# ----- skills --------------------------------------------------------------------------------------------
def test_skills_round_trip(ws: AgentWorkspace) -> None:
    assert [s.name for s in ws.list_skills()] == ["check-units"]
    ws.write_skill("b-skill", skill_doc("b-skill", "B does b."))
    ws.write_skill("a-skill", skill_doc("a-skill", "A does a."))
    skills = ws.list_skills()
    assert [s.name for s in skills] == ["a-skill", "b-skill", "check-units"]
    assert skills[0] == SkillMeta("a-skill", "A does a.", str(ws.path / "skills" / "a-skill" / "SKILL.md"))
    assert ws.read_skill("a-skill") == skill_doc("a-skill", "A does a.")
    ws.delete_skill("a-skill")
    assert not (ws.path / "skills" / "a-skill").exists()
    assert [s.name for s in ws.list_skills()] == ["b-skill", "check-units"]
    ws.delete_skill("a-skill")  # absent: nothing happens
    with pytest.raises(WorkspaceError, match="no skill named 'a-skill'"):
        ws.read_skill("a-skill")


def test_list_skills_skips_drafts_and_empty_folders(ws: AgentWorkspace) -> None:
    ws.write_draft("idea", "not even frontmatter")
    (ws.path / "skills" / "empty-folder").mkdir()
    assert [s.name for s in ws.list_skills()] == ["check-units"]


def test_one_bad_skill_never_hides_the_others(ws: AgentWorkspace, caplog: pytest.LogCaptureFixture) -> None:
    ws.write_skill("good", skill_doc("good"))
    bad = ws.path / "skills" / "broken" / "SKILL.md"
    bad.parent.mkdir()
    bad.write_text("no frontmatter")
    assert [m.name for m in ws.list_skills()] == ["check-units", "good"]
    assert str(bad) in caplog.text and "no YAML frontmatter" in caplog.text


def test_a_skill_over_a_spec_limit_loads_with_a_warning(ws: AgentWorkspace, caplog: pytest.LogCaptureFixture) -> None:
    long = ws.path / "skills" / "long" / "SKILL.md"
    long.parent.mkdir()
    long.write_text(f"---\nname: long\ndescription: {'x' * 1500}\n---\n\nbody\n")
    ws.write_skill("good", skill_doc("good"))
    assert [m.name for m in ws.list_skills()] == ["check-units", "good", "long"]
    assert "1500 characters long; the limit is 1024" in caplog.text
    assert any("1500 characters long" in p for p in validate_workspace(ws.path))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("no frontmatter at all", "no YAML frontmatter"),
        ("---\nname: [oops\n---\n", "not valid YAML"),
        ("---\nname: check-units\n---\nbody", "missing required key 'description'"),
        (skill_doc("check-units", "[1, 2]"), "'description' must be a string"),
        (skill_doc("Check_Units"), "lowercase"),
        (skill_doc("other"), "does not match its directory name 'check-units'"),
        ("---\nname: check-units\ndescription: d\nstatus: ACTIVE\n---\n", "unknown frontmatter keys: status"),
    ],
)
def test_write_skill_invalid_writes_nothing(ws: AgentWorkspace, snap, content: str, problem: str) -> None:
    target = ws.path / "skills" / "check-units" / "SKILL.md"
    old = target.read_bytes()
    before = snap(ws.path)
    with pytest.raises(SkillFormatError) as info:
        ws.write_skill("check-units", content)
    assert str(target) in str(info.value) and problem in str(info.value), str(info.value)
    assert target.read_bytes() == old
    assert snap(ws.path) == before


def test_write_new_invalid_skill_creates_nothing(ws: AgentWorkspace) -> None:
    with pytest.raises(SkillFormatError):
        ws.write_skill("new-skill", skill_doc("wrong-name"))
    assert not (ws.path / "skills" / "new-skill").exists()


def test_drafts_folder_is_not_a_skill(ws: AgentWorkspace) -> None:
    with pytest.raises(WorkspaceError, match="reserved"):
        ws.delete_skill("_drafts")


# ----- drafts --------------------------------------------------------------------------------------------
def test_drafts_round_trip(ws: AgentWorkspace) -> None:
    assert ws.list_drafts() == []
    ws.write_draft("zeta", "z content")
    ws.write_draft("alpha.md", "a content")
    assert ws.list_drafts() == [{"name": "alpha", "content": "a content"}, {"name": "zeta", "content": "z content"}]
    assert (ws.path / "skills" / "_drafts" / "zeta.md").is_file()
    ws.clear_drafts()
    assert ws.list_drafts() == []
    ws.clear_drafts()  # idempotent
    assert [s.name for s in ws.list_skills()] == ["check-units"]


# ----- memory --------------------------------------------------------------------------------------------
def test_memory_round_trip(ws: AgentWorkspace) -> None:
    ws.add_memory({"content": "one", "source": "cycle-1"})
    ws.add_memory({"content": "fact ✓"}, category="semantic")
    assert ws.read_memories() == [{"content": "carry the one"}, {"content": "one", "source": "cycle-1"}]
    assert ws.read_memories("semantic") == [{"content": "fact ✓"}]
    assert ws.read_memories("never-written") == []
    lines = (ws.path / "memory" / "episodic.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines][-1] == {"content": "one", "source": "cycle-1"}


def test_memory_limit_returns_last_entries(ws: AgentWorkspace) -> None:
    for i in range(10):
        ws.add_memory({"content": str(i)}, category="numbers")
    assert [m["content"] for m in ws.read_memories("numbers", limit=3)] == ["7", "8", "9"]
    assert len(ws.read_memories("numbers", limit=None)) == 10
    assert ws.read_memories("numbers", limit=0) == []


def test_read_all_memories(ws: AgentWorkspace) -> None:
    ws.add_memory({"content": "s1"}, category="semantic")
    ws.add_memory({"content": "d1", "category": "stale"}, category="domain_knowledge")
    assert ws.read_all_memories() == [
        {"content": "d1", "category": "domain_knowledge"},
        {"content": "carry the one", "category": "episodic"},
        {"content": "s1", "category": "semantic"},
    ]
    for i in range(5):
        ws.add_memory({"content": f"e{i}"})
    per_category = ws.read_all_memories(limit=2)
    assert [m["content"] for m in per_category] == ["d1", "e3", "e4", "s1"]


@pytest.mark.parametrize("category", ["../escape", "/abs", "a/b", "", "has space"])
def test_memory_category_checked(ws: AgentWorkspace, category: str) -> None:
    with pytest.raises(WorkspaceError, match="memory category"):
        ws.add_memory({"content": "x"}, category=category)
    with pytest.raises(WorkspaceError, match="memory category"):
        ws.read_memories(category)


def test_memory_entry_must_be_json_object(ws: AgentWorkspace) -> None:
    with pytest.raises(WorkspaceError, match="must be a dict"):
        ws.add_memory("just text")  # type: ignore[arg-type]
    with pytest.raises(WorkspaceError, match="not JSON-serialisable"):
        ws.add_memory({"content": object()})


def test_malformed_memory_line_names_file_and_line(ws: AgentWorkspace) -> None:
    path = ws.path / "memory" / "episodic.jsonl"
    path.write_text('{"content": "ok"}\n\n{"content": broken\n{"content": "later"}\n')
    with pytest.raises(WorkspaceError) as info:
        ws.read_memories()
    assert f"{path}:3:" in str(info.value)
    path.write_text('{"content": "ok"}\n[1, 2]\n')
    with pytest.raises(WorkspaceError, match=r"episodic\.jsonl:2: each line must be a JSON object"):
        ws.read_all_memories()


def test_add_memory_after_truncated_line_starts_new_line(ws: AgentWorkspace) -> None:
    path = ws.path / "memory" / "episodic.jsonl"
    path.write_text('{"content": "ok"}\n{"content": "cut')
    ws.add_memory({"content": "next"})
    assert path.read_text().splitlines()[-1] == '{"content": "next"}'


def test_rewrite_memories(ws: AgentWorkspace) -> None:
    ws.add_memory({"content": "dup"})
    ws.rewrite_memories("episodic", [{"content": "merged"}])
    assert ws.read_memories() == [{"content": "merged"}]
    ws.rewrite_memories("episodic", [])
    assert ws.read_memories() == []


def test_concurrent_add_memory(ws: AgentWorkspace) -> None:
    def work(t: int) -> None:
        for i in range(50):
            ws.add_memory({"content": f"{t}-{i}"}, category="par")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    contents = [m["content"] for m in ws.read_memories("par", limit=None)]
    assert sorted(contents) == sorted(f"{t}-{i}" for t in range(8) for i in range(50))


# ----- tools ---------------------------------------------------------------------------------------------
def test_tools_round_trip(ws: AgentWorkspace) -> None:
    assert ws.read_tool_registry() == []
    tools = [{"name": "calc", "file": "calc.py", "description": "evaluates arithmetic", "args": {"expr": "str"}}]
    ws.write_tool_registry(tools)
    assert ws.read_tool_registry() == tools
    ws.write_tool("calc.py", "def calc(expr):\n    return eval(expr)\n")
    assert ws.read_tool("calc.py").startswith("def calc")
    with pytest.raises(WorkspaceError, match="write_tool_registry"):
        ws.write_tool("registry.yaml", "[]")
    with pytest.raises(WorkspaceError, match="not found"):
        ws.read_tool("missing.py")


def test_tool_registry_must_be_list_of_mappings(ws: AgentWorkspace) -> None:
    with pytest.raises(WorkspaceError, match="list of mappings"):
        ws.write_tool_registry({"calc": 1})  # type: ignore[arg-type]
    (ws.path / "tools").mkdir()
    (ws.path / "tools" / "registry.yaml").write_text("calc: 1\n")
    with pytest.raises(WorkspaceError, match=r"registry\.yaml: the tool registry"):
        ws.read_tool_registry()
    (ws.path / "tools" / "registry.yaml").write_text("[unclosed\n")
    with pytest.raises(WorkspaceError, match="not valid YAML"):
        ws.read_tool_registry()


# ----- evolution records and manifest --------------------------------------------------------------------
def test_evolution_records(ws: AgentWorkspace) -> None:
    assert ws.read_evolution_history() == []
    assert ws.read_evolution_metrics() == {}
    (ws.path / "evolution").mkdir()
    (ws.path / "evolution" / "history.jsonl").write_text('{"cycle": 1, "score": 0.5}\n{"cycle": 2, "score": 0.7}\n')
    (ws.path / "evolution" / "metrics.json").write_text('{"best": 0.7}')
    assert ws.read_evolution_history() == [{"cycle": 1, "score": 0.5}, {"cycle": 2, "score": 0.7}]
    assert ws.read_evolution_metrics() == {"best": 0.7}
    (ws.path / "evolution" / "metrics.json").write_text("{bad")
    with pytest.raises(WorkspaceError, match=r"metrics\.json: not valid JSON"):
        ws.read_evolution_metrics()


def test_manifest_accessors(ws: AgentWorkspace) -> None:
    raw = ws.read_manifest()
    assert raw["name"] == "gsm8k-solver" and raw["agent"]["entrypoint"].endswith("ReferenceAgent")
    assert ws.manifest().name == "gsm8k-solver"
    assert ws.evolvable_layers == ["prompts", "skills", "memory"]
    (ws.path / "manifest.yaml").unlink()
    with pytest.raises(ManifestError, match=r"manifest\.yaml"):
        ws.read_manifest()


# ----- path safety ---------------------------------------------------------------------------------------
ESCAPES = ["../x", "../../etc/passwd", "/etc/passwd", "a/b", ".."]


@pytest.mark.parametrize("name", ESCAPES)
def test_names_cannot_escape(ws: AgentWorkspace, name: str) -> None:
    calls = [
        lambda: ws.read_fragment(name),
        lambda: ws.write_fragment(name, "x"),
        lambda: ws.read_skill(name),
        lambda: ws.write_skill(name, skill_doc("x")),
        lambda: ws.delete_skill(name),
        lambda: ws.write_draft(name, "x"),
        lambda: ws.read_tool(name),
        lambda: ws.write_tool(name, "x"),
        lambda: ws.add_memory({"content": "x"}, category=name),
    ]
    for call in calls:
        with pytest.raises(WorkspaceError):
            call()
    assert not (ws.path.parent / "x").exists()


def test_symlink_escape_refused(ws: AgentWorkspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "evil").mkdir(parents=True)
    (outside / "evil" / "SKILL.md").write_text(skill_doc("evil"))
    (outside / "secret.md").write_text("secret")
    (ws.path / "skills" / "evil").symlink_to(outside / "evil")
    (ws.path / "prompts" / "fragments").mkdir()
    (ws.path / "prompts" / "fragments" / "leak.md").symlink_to(outside / "secret.md")
    with pytest.raises(WorkspaceError, match="escapes"):
        ws.read_skill("evil")
    with pytest.raises(WorkspaceError, match="escapes"):
        ws.write_skill("evil", skill_doc("evil", body="overwritten"))
    with pytest.raises(WorkspaceError, match="escapes"):
        ws.delete_skill("evil")
    with pytest.raises(WorkspaceError, match="escapes"):
        ws.read_fragment("leak.md")
    with pytest.raises(WorkspaceError, match="escapes"):
        ws.write_fragment("leak.md", "overwritten")
    assert [m.name for m in ws.list_skills()] == ["check-units"]
    assert (outside / "evil" / "SKILL.md").read_text() == skill_doc("evil")
    assert (outside / "secret.md").read_text() == "secret"


def test_symlinked_layer_folder_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (root / "memory").symlink_to(tmp_path / "elsewhere")
    ws = AgentWorkspace(root)
    with pytest.raises(WorkspaceError, match="escapes"):
        ws.add_memory({"content": "x"})
    with pytest.raises(WorkspaceError, match="escapes"):
        ws.read_memories()
    assert list((tmp_path / "elsewhere").iterdir()) == []
