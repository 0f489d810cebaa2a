"""ReferenceAgent: settings, skill modes, the trajectory, draft proposals, reloads and concurrent solves."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from agent_evolve.agents import ReferenceAgent, reference
from agent_evolve.agents.drafts import draft_skill
from agent_evolve.agents.reference import AgentSettings
from agent_evolve.config import EvolveConfig
from agent_evolve.contract import parse_skill, validate_skill
from agent_evolve.errors import ManifestError
from agent_evolve.llm.base import Completion, Message, ToolSpec
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

UNITS_TASK = Task("t1", "A film lasts 2 hours and 15 minutes. How many minutes is that?")


def _skills_step(trajectory) -> dict:
    return next(step for step in trajectory.steps if step["type"] == "skills")


def _system(llm: ScriptedLLM, call: int = -1) -> str:
    return llm.calls[call].messages[0].content


def test_all_mode_injects_every_skill_body_without_frontmatter(make_ws) -> None:
    llm = ScriptedLLM(["135"])
    trajectory = ReferenceAgent(make_ws({"skill_mode": "all"}), llm=llm).solve(UNITS_TASK)
    system = _system(llm)
    assert "## check-units\nConvert every quantity" in system and "## sort-lists" in system
    assert "TRIGGER when" not in system and "---" not in system
    assert _skills_step(trajectory)["injected"] == ["check-units", "percent-change", "sort-lists"]


def test_none_mode_injects_nothing(make_ws) -> None:
    llm = ScriptedLLM(["135"])
    trajectory = ReferenceAgent(make_ws({"skill_mode": "none"}), llm=llm).solve(UNITS_TASK)
    assert "# Skills" not in _system(llm) and _skills_step(trajectory)["injected"] == []


def test_match_mode_injects_overlapping_skills(make_ws) -> None:
    llm = ScriptedLLM(["135"])
    trajectory = ReferenceAgent(make_ws({"skill_mode": "match", "match_top_k": 2}), llm=llm).solve(UNITS_TASK)
    step = _skills_step(trajectory)
    assert step["injected"] == ["check-units"] and set(step["router"]["scores"]) == {"check-units"}
    assert "## check-units" in _system(llm) and "## sort-lists" not in _system(llm)


def test_routed_mode_follows_the_router(make_ws) -> None:
    llm = ScriptedLLM(["sort-lists", "answer"])
    trajectory = ReferenceAgent(make_ws({"skill_mode": "routed"}), llm=llm).solve(UNITS_TASK)
    assert len(llm.calls) == 2
    assert "Reply with only its name" in llm.calls[0].messages[-1].content
    system = _system(llm, 1)
    assert "## sort-lists" in system and "## check-units" not in system
    step = _skills_step(trajectory)
    assert step["mode"] == "routed" and step["injected"] == ["sort-lists"]
    assert step["router"]["skill"] == "sort-lists" and len(step["router"]["candidates"]) == 3


def test_routed_none_injects_nothing(make_ws) -> None:
    llm = ScriptedLLM(["NONE", "answer"])
    trajectory = ReferenceAgent(make_ws({"skill_mode": "routed"}), llm=llm).solve(UNITS_TASK)
    assert "# Skills" not in _system(llm, 1) and _skills_step(trajectory)["injected"] == []


def test_routed_with_no_skills_makes_no_router_call(make_ws) -> None:
    llm = ScriptedLLM(["answer"])
    trajectory = ReferenceAgent(make_ws({"skill_mode": "routed"}, skills={}), llm=llm).solve(UNITS_TASK)
    assert len(llm.calls) == 1 and trajectory.output == "answer"


def test_trajectory_records_skills_answer_and_conversation(make_ws) -> None:
    llm = ScriptedLLM(["135 minutes"])
    ws = make_ws({"skill_mode": "all"}, memories=[{"content": "carry the one"}], fragments={"style.md": "Be brief."})
    trajectory = ReferenceAgent(ws, llm=llm).solve(UNITS_TASK)
    assert trajectory.task_id == "t1" and trajectory.output == "135 minutes"
    assert [s["type"] for s in trajectory.steps] == ["skills", "answer"]
    assert trajectory.steps[1]["finish_reason"] == "stop" and trajectory.steps[1]["usage"]["calls"] == 1
    assert [m["role"] for m in trajectory.conversation] == ["system", "user", "assistant"]
    assert trajectory.conversation[1]["content"] == UNITS_TASK.input
    assert "Be brief." in trajectory.conversation[0]["content"]
    assert "# Memory\n- carry the one" in trajectory.conversation[0]["content"]


def test_max_tokens_and_temperature_come_from_settings(make_ws) -> None:
    llm = ScriptedLLM(["a", "b"])
    ReferenceAgent(make_ws({"max_tokens": 77, "temperature": 0.5}), llm=llm).solve(UNITS_TASK)
    assert (llm.calls[0].max_tokens, llm.calls[0].temperature) == (77, 0.5)
    ReferenceAgent(make_ws(), config=EvolveConfig(agent_max_tokens=333), llm=llm).solve(UNITS_TASK)
    assert llm.calls[1].max_tokens == 333


def test_prompt_cap_from_manifest(make_ws) -> None:
    big = {f"skill-{i}": ("tasks about topic", "others", "guidance " * 100) for i in range(5)}
    llm = ScriptedLLM(["x"])
    trajectory = ReferenceAgent(make_ws({"max_prompt_chars": 2000}, skills=big), llm=llm).solve(UNITS_TASK)
    assert len(_system(llm)) <= 2000
    step = _skills_step(trajectory)
    assert step["injected"] and step["dropped_by_cap"] and len(step["injected"]) + len(step["dropped_by_cap"]) == 5


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"skill_mod": "all"}, "agent.config.skill_mod"),
        ({"skill_mode": "some"}, "agent.config.skill_mode"),
        ({"use_tools": "yes"}, "agent.config.use_tools"),
        ({"max_memories": -1}, "agent.config.max_memories"),
        ({"max_tokens": True}, "agent.config.max_tokens"),
        ({"temperature": 5}, "agent.config.temperature"),
    ],
)
def test_bad_config_names_manifest_and_key(make_ws, config: dict, key: str) -> None:
    with pytest.raises(ManifestError) as info:
        ReferenceAgent(make_ws(config), llm=ScriptedLLM([]))
    assert "manifest.yaml" in str(info.value) and f"'{key}'" in str(info.value)


def test_every_setting_has_a_rule() -> None:
    assert set(reference._RULES) == set(AgentSettings.__dataclass_fields__)
    assert AgentSettings.from_config({}) == AgentSettings()


def test_client_is_created_lazily_from_config(make_ws, monkeypatch) -> None:
    made: list[tuple[str, str]] = []

    def fake_client(config: EvolveConfig, role: str) -> ScriptedLLM:
        made.append((config.agent_model, role))
        return ScriptedLLM(["lazy answer"])

    monkeypatch.setattr(reference, "client_from_config", fake_client)
    agent = ReferenceAgent(make_ws({"skill_mode": "none"}), config=EvolveConfig(agent_model="openai/gpt-x"))
    assert made == []
    assert agent.solve(UNITS_TASK).output == "lazy answer"
    assert made == [("openai/gpt-x", "agent")]


def test_reload_picks_up_edits(make_ws) -> None:
    ws = make_ws({"skill_mode": "all"})
    llm = ScriptedLLM(["a", "b"])
    agent = ReferenceAgent(ws, llm=llm)
    agent.solve(UNITS_TASK)
    agent.workspace.write_prompt("Evolved prompt.")
    agent.workspace.delete_skill("sort-lists")
    (ws / "manifest.yaml").write_text((ws / "manifest.yaml").read_text().replace("skill_mode: all", "skill_mode: none"))
    assert "You are a careful solver." in _system(llm, 0)
    agent.reload_from_fs()
    agent.solve(UNITS_TASK)
    assert _system(llm, 1) == "Evolved prompt.\n"
    assert agent.system_prompt == "Evolved prompt." and [s.name for s in agent.skills] == ["check-units", "percent-change"]


DRAFT_REPLY = (
    '{"lesson": true, "name": "Convert Units First", "trigger": "a problem mixes hours and minutes",'
    ' "avoid": "all quantities share one unit", "guidance": "Convert to minutes before adding."}'
)


def test_draft_proposal_is_written_after_export(make_ws) -> None:
    ws = make_ws({"skill_mode": "none", "propose_drafts": True})
    llm = ScriptedLLM(["135", DRAFT_REPLY])
    agent = ReferenceAgent(ws, llm=llm)
    trajectory = agent.solve(UNITS_TASK)
    assert trajectory.steps[-1] == {"type": "draft", "status": "proposed", "name": "convert-units-first"}
    assert "Your answer:\n135" in llm.calls[1].messages[-1].content
    assert agent.workspace.list_drafts() == []
    agent.export_to_fs()
    drafts = agent.workspace.list_drafts()
    assert [d["name"] for d in drafts] == ["convert-units-first"]
    skill = parse_skill(drafts[0]["content"])
    assert validate_skill(skill, dir_name="convert-units-first") == []
    assert skill.description == (
        "TRIGGER when: a problem mixes hours and minutes. DO NOT TRIGGER: all quantities share one unit."
    )
    assert skill.body == "Convert to minutes before adding.\n" and skill.metadata["task_id"] == "t1"


def test_no_lesson_and_invalid_drafts_are_dropped(make_ws) -> None:
    ws = make_ws({"skill_mode": "none", "propose_drafts": True})
    invalid = '{"lesson": true, "name": "!!!", "trigger": "x", "guidance": "y"}'
    agent = ReferenceAgent(ws, llm=ScriptedLLM(["a", '{"lesson": false}', "b", invalid, "c", "no json", "still no"]))
    statuses = [agent.solve(UNITS_TASK).steps[-1]["status"] for _ in range(3)]
    assert statuses == ["none", "invalid", "unparsed"]
    agent.export_to_fs()
    assert agent.workspace.list_drafts() == []


def test_draft_skill_requires_trigger_and_guidance() -> None:
    assert draft_skill({"lesson": True, "name": "a-b", "guidance": "g"}, "t")[2] == ["the reply has no trigger"]
    name, text, problems = draft_skill({"name": "A b", "trigger": "t.", "guidance": "g"}, "t")
    assert (name, problems) == ("a-b", []) and "DO NOT TRIGGER" not in text


class EchoLLM:
    """A thread-safe fake: answers with the task text after a short, random-order pause."""

    model = "fake/echo"

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0

    def complete(self, messages: list[Message], *, tools: list[ToolSpec] | None = None, max_tokens: int | None = None,
                 temperature: float = 0.0, stop: list[str] | None = None) -> Completion:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(0.02 * (hash(messages[-1].content) % 3))
        with self.lock:
            self.active -= 1
        return Completion(text=f"answer to {messages[-1].content}")


def test_eight_threads_get_their_own_answers(make_ws) -> None:
    llm = EchoLLM()
    agent = ReferenceAgent(make_ws({"skill_mode": "all"}), llm=llm)
    tasks = [Task(f"t{i}", f"task number {i}") for i in range(32)]
    results: dict[str, str] = {}
    barrier = threading.Barrier(9)

    def worker(chunk: list[Task]) -> None:
        barrier.wait()
        for task in chunk:
            trajectory = agent.solve(task)
            results[trajectory.task_id] = trajectory.output

    def reloader() -> None:
        barrier.wait()
        for _ in range(5):
            agent.reload_from_fs()

    threads = [threading.Thread(target=worker, args=(tasks[i::8],)) for i in range(8)]
    threads.append(threading.Thread(target=reloader))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {task.id: f"answer to {task.input}" for task in tasks}
    assert llm.peak > 1, "solves must overlap"


def test_loads_from_a_path_string(make_ws) -> None:
    ws: Path = make_ws()
    agent = ReferenceAgent(str(ws), llm=ScriptedLLM([]))
    assert agent.workspace.path == ws.resolve()


def test_sampling_makes_the_agent_non_deterministic(make_ws) -> None:
    assert ReferenceAgent(make_ws({"temperature": 0.0}), llm=ScriptedLLM(["a"])).deterministic
    assert not ReferenceAgent(make_ws({"temperature": 0.7}), llm=ScriptedLLM(["a"])).deterministic


def test_a_plain_reply_gets_the_stop_rule_of_the_tasks_answer_kind(make_ws) -> None:
    from agent_evolve.llm.stops import StopRule

    llm = ScriptedLLM(["Answer: 135", "135"])
    agent = ReferenceAgent(make_ws({"skill_mode": "none"}), llm=llm)
    agent.solve(Task(UNITS_TASK.id, UNITS_TASK.input, {"answer_kind": "number"}))
    agent.solve(UNITS_TASK)
    ruled, plain = llm.calls[0].stop, llm.calls[1].stop
    assert isinstance(ruled, StopRule) and ruled.kind == "number"
    assert plain is None
