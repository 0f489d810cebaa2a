"""`ReferenceAgent`, the built-in agent that reads everything from its workspace: per task it selects skills,
assembles a capped prompt, answers through a chain of strategies (`_chain`), may propose a draft skill."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, get_args

from agent_evolve.agents.acting import ActingLimits, OutputMode
from agent_evolve.agents.answering import (CROSS_CHECK_KINDS, Acting, Answer, AnsweringStrategy, CrossCheck, Plain,
    ProgramAnswer, Question, Redraw, ToolLoop, reply_check)
from agent_evolve.agents.answering.program import PROGRAM_CLOSING, PROGRAM_STOP, program_prompt
from agent_evolve.agents.arc_game import arc_game_tools
from agent_evolve.agents.drafts import propose_draft
from agent_evolve.agents.experience import Experience, load_experience, with_demonstrations, without_experience
from agent_evolve.agents.mcp_tools import task_mcp_tools
from agent_evolve.agents.prompting import (DEFAULT_PROMPT_CHARS, AssembledPrompt, SkillText, assemble_system_prompt,
    select_memories)
from agent_evolve.agents.routing.bank import BankRouter, workspace_router
from agent_evolve.agents.routing.router import BankShortlist, SkillRouter
from agent_evolve.agents.tools import DEFAULT_TIMEOUT_S, load_tool_entries, workspace_tools
from agent_evolve.benchmarks.answer_kinds import declared_kind
from agent_evolve.config import DEFAULT_AGENT_MAX_TOKENS, EvolveConfig
from agent_evolve.contract.check_settings import CheckSettings
from agent_evolve.contract.manifest import MANIFEST_FILE
from agent_evolve.contract.settings_rules import Rules, check_settings, is_int, is_number
from agent_evolve.contract.tool_entries import ToolEntry
from agent_evolve.environments import TaskEnvironment
from agent_evolve.errors import ConfigError, ManifestError
from agent_evolve.llm.base import LLMClient
from agent_evolve.llm.factory import client_from_config
from agent_evolve.llm.stops import stop_rule
from agent_evolve.llm.tool_loop import Tool
from agent_evolve.protocol.acting import current_environment
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import SkillMeta, Task, Trajectory

SkillMode = Literal["all", "match", "routed", "none"]
SKILL_MODES: tuple[str, ...] = get_args(SkillMode)
OUTPUT_MODES: tuple[str, ...] = get_args(OutputMode)


@dataclass(frozen=True)
class AgentSettings:
    """The manifest's ``agent.config`` keys and their defaults."""

    skill_mode: SkillMode = "routed"  # all | match | routed | none
    use_tools: bool = False  # run the tool loop over tools/registry.yaml
    propose_drafts: bool = False  # after answering, propose a lesson as skills/_drafts/<name>.md
    max_tokens: int | None = None  # answer length; None: 1024
    max_memories: int = 10  # memory lines in the prompt
    max_tool_turns: int = 6  # model turns of the tool loop
    max_prompt_chars: int = DEFAULT_PROMPT_CHARS  # cap of the assembled system prompt
    match_top_k: int = 3  # skills injected by skill_mode match
    temperature: float = 0.0
    tool_timeout_s: float = DEFAULT_TIMEOUT_S  # time limit of one tool call
    acting_output: OutputMode = "answer"  # in a task environment: answer (the summary or last reply) | diff
    max_observation_chars: int = 3000  # in a task environment: one tool result's length
    max_context_chars: int = 9000  # in a task environment: the conversation sent (older results cut first)

    @classmethod
    def from_config(cls, data: Mapping[str, Any], source: str | Path = MANIFEST_FILE) -> AgentSettings:
        """Validated settings; ManifestError naming ``source`` and the key for an unknown key or a bad value."""
        check_settings(data, _RULES, str(source), ManifestError, key_prefix="agent.config.")
        return cls(**data)


_RULES: Rules = {
    "skill_mode": (lambda v: v in SKILL_MODES, f"one of {', '.join(SKILL_MODES)}"),
    "use_tools": (lambda v: isinstance(v, bool), "true or false"),
    "propose_drafts": (lambda v: isinstance(v, bool), "true or false"),
    "max_tokens": (lambda v: v is None or (is_int(v) and v >= 1), "a positive integer or null"),
    "max_memories": (lambda v: is_int(v) and v >= 0, "a non-negative integer"),
    "max_tool_turns": (lambda v: is_int(v) and v >= 1, "a positive integer"),
    "max_prompt_chars": (lambda v: is_int(v) and v >= 500, "an integer of at least 500"),
    "match_top_k": (lambda v: is_int(v) and v >= 1, "a positive integer"),
    "temperature": (lambda v: is_number(v) and 0.0 <= v <= 2.0, "a number between 0 and 2"),
    "tool_timeout_s": (lambda v: is_number(v) and v > 0, "a positive number"),
    "acting_output": (lambda v: v in OUTPUT_MODES, f"one of {', '.join(OUTPUT_MODES)}"),
    "max_observation_chars": (lambda v: is_int(v) and v >= 200, "an integer of at least 200"),
    "max_context_chars": (lambda v: is_int(v) and v >= 1000, "an integer of at least 1000"),
}


@dataclass(frozen=True)
class _Snapshot:
    """Everything ``solve`` reads from the workspace, swapped as one object by ``reload_from_fs``."""

    settings: AgentSettings
    system_prompt: str
    fragments: dict[str, str]
    skills: list[SkillMeta]
    bodies: dict[str, str]
    memories: list[dict[str, Any]]
    tools: list[Tool] = field(default_factory=list)
    ratchet: BankRouter | None = None  # Ratchet governs the workspace (its router marker)
    tool_entries: list[ToolEntry] = field(default_factory=list)
    shortlist: BankShortlist = field(default_factory=lambda: BankShortlist([]))  # this version's skill index
    program_prompt: str | None = None  # prompts/program.md: answer with a program (plain answers only)
    check: CheckSettings | None = None  # prompts/check.yaml: draw again when a reply fails its check
    experience: Experience = field(default_factory=Experience)  # memory/experience.jsonl, its index per version


def _assemble(state: _Snapshot, base: str, selected: list[SkillMeta]) -> AssembledPrompt:
    """The system prompt from ``base``, the fragments, the selected skills' bodies and the memories."""
    return assemble_system_prompt(base, state.fragments, [SkillText(s.name, state.bodies[s.name]) for s in selected],
                                  select_memories(state.memories, state.settings.max_memories),
                                  state.settings.max_prompt_chars)


class ReferenceAgent(BaseAgent):
    """The built-in agent: workspace prompt, fragments, selected skills and memories in; one model answer out."""

    _snapshot: _Snapshot

    def __init__(self, workspace_dir: str | Path, config: EvolveConfig | None = None,
                 llm: LLMClient | None = None) -> None:
        self.config = config or EvolveConfig()
        self._llm = llm
        self._llm_lock = threading.Lock()
        super().__init__(workspace_dir)

    @property
    def llm(self) -> LLMClient:
        """The model client, created on first use from ``config.agent_model`` unless one was given."""
        with self._llm_lock:
            if self._llm is None:
                self._llm = client_from_config(self.config, "agent")
            return self._llm

    @property
    def deterministic(self) -> bool:
        """Sampling (temperature > 0) makes two solves of one task differ."""
        return self.settings.temperature == 0.0

    @property
    def settings(self) -> AgentSettings:
        """The ``agent.config`` settings as of the last :meth:`reload_from_fs`."""
        with self._lock:
            return self._snapshot.settings

    def reload_from_fs(self) -> None:
        """Read manifest settings, prompt, fragments, skills, memories and tools, then swap them in at once."""
        ws = self.workspace
        settings = AgentSettings.from_config(agent_config(self.config, ws.manifest().agent_config),
                                             ws.path / MANIFEST_FILE)
        skills = ws.list_skills()
        snapshot = _Snapshot(
            settings=settings, system_prompt=ws.read_prompt(),
            fragments={name: ws.read_fragment(name) for name in ws.list_fragments()}, skills=skills,
            bodies={s.name: self.get_skill_content(s.name) for s in skills},
            memories=without_experience(ws.read_all_memories(limit=self.memory_limit)),
            tools=workspace_tools(ws, timeout_s=settings.tool_timeout_s) if settings.use_tools else [],
            ratchet=workspace_router(ws.path, skills),
            tool_entries=load_tool_entries(ws) if settings.use_tools else [], shortlist=BankShortlist(skills),
            program_prompt=ws.read_program_prompt(), check=ws.read_check_settings(),
            experience=load_experience(ws.path))
        with self._lock:
            self._system_prompt, self._skills, self._memories = snapshot.system_prompt, skills, snapshot.memories
            self._snapshot = snapshot

    def solve(self, task: Task) -> Trajectory:
        """Answer with the task's own tools available (its MCP servers' tools, then an ARC-AGI-3 game's action
        tool); everything they start (servers, a game's scorecard) stops when the answer ends, also on an error."""
        timeout_s = self.settings.tool_timeout_s
        with task_mcp_tools(self.workspace.path, task, call_timeout_s=timeout_s) as mcp, arc_game_tools(task) as game:
            return self._solve(task, mcp + game)

    def _solve(self, task: Task, extra_tools: list[Tool]) -> Trajectory:
        """Select skills, assemble the prompt, answer through the chain of strategies, optionally propose a draft."""
        with self._lock:
            state = self._snapshot
        state = replace(state, tools=[*state.tools, *extra_tools])
        settings, client = state.settings, self.llm
        selected, detail = self._select_skills(state, task, client)
        environment, kind = current_environment(), declared_kind(task)
        program = program_prompt(state.program_prompt, kind) if environment is None and not state.tools else None
        cross_checked = (program is not None and state.check is not None and state.check.cross_check > 0
                         and kind in (None, *CROSS_CHECK_KINDS))
        shows_examples = not program or cross_checked  # never in the program prompt: its replies must be code
        section, shown = state.experience.demonstrations(task.question, task.id) if shows_examples else ("", [])
        text_base = with_demonstrations(state.system_prompt, section)
        prompt = _assemble(state, program or text_base, selected)
        question = Question(task, client, prompt.text, settings.max_tokens or DEFAULT_AGENT_MAX_TOKENS,
                            settings.temperature, PROGRAM_CLOSING if program else "")
        answer = Answer(steps=[{"type": "skills", "mode": settings.skill_mode, "injected": prompt.skills,
                                "router": detail, "dropped_by_cap": prompt.dropped_skills,
                                "memories": prompt.memories, "experience": shown}])
        cross_text = _assemble(state, text_base, selected).text if cross_checked else None
        for strategy in _chain(state, question, environment, extra_tools, program is not None, cross_text):
            answer = strategy.answer(question, answer)
        if settings.propose_drafts:
            answer = answer.then(propose_draft(client, task, answer.output, self.propose_skill))
        return Trajectory(task.id, answer.output, answer.steps, [m.to_dict() for m in answer.conversation])

    @staticmethod
    def _select_skills(state: _Snapshot, task: Task, client: LLMClient) -> tuple[list[SkillMeta], dict[str, Any]]:
        """The skills to inject under the snapshot's mode, and what decided them (for the trajectory)."""
        mode = state.settings.skill_mode
        if state.ratchet is not None:  # a workspace governed by Ratchet routes 0 or 1 skill through its router
            decision = state.ratchet.route(client, task.input)
            return [s for s in state.skills if s.name == decision.skill], decision.to_dict()
        if mode == "all":
            return list(state.skills), {}
        if mode == "none":
            return [], {}
        if mode == "match":
            matched = state.shortlist.top(task.input, state.settings.match_top_k)
            return [s for s, _ in matched], {"scores": {s.name: score for s, score in matched}}
        decision = SkillRouter(client).route(task.input, state.skills, state.shortlist)
        return [s for s in state.skills if s.name == decision.skill], decision.to_dict()


def agent_config(config: EvolveConfig, manifest_config: Mapping[str, Any]) -> dict[str, Any]:
    """The effective ``agent.config``: ``extra["agent"]`` < the manifest < the config's explicit agent keys."""
    extra = config.extra.get("agent", {})
    known = [f.name for f in fields(AgentSettings)]
    if not isinstance(extra, Mapping):
        raise ConfigError(f"key 'extra.agent' must be a mapping of agent.config keys, got {extra!r}")
    unknown = sorted(set(extra) - set(known))
    if unknown:
        raise ConfigError(f"key 'extra.agent' has unknown keys {unknown}; known keys: {', '.join(known)}")
    explicit = {"max_tokens": config.agent_max_tokens, "temperature": config.agent_temperature}
    return {**extra, **manifest_config, **{k: v for k, v in explicit.items() if v is not None}}


def _chain(state: _Snapshot, question: Question, environment: TaskEnvironment | None, extra_tools: list[Tool],
           program: bool, cross_text: str | None) -> list[AnsweringStrategy]:
    """Acting in a task environment; the tool loop with tools; else one reply (a program with the program prompt),
    then the cross-check (against a text answer to ``cross_text``) or the redraw that ``prompts/check.yaml`` asks."""
    settings, check, kind = state.settings, state.check, declared_kind(question.task)
    if environment is not None:
        limits = ActingLimits(settings.max_tool_turns, settings.tool_timeout_s, settings.max_observation_chars,
                              settings.max_context_chars, question.max_tokens, settings.temperature)
        return [Acting(environment, limits, settings.acting_output, state.tool_entries, extra_tools)]
    if state.tools:
        return [ToolLoop(state.tools, settings.max_tool_turns)]
    first = ProgramAnswer(kind) if program else Plain(stop_rule(kind))
    if check is not None and cross_text is not None:
        return [first, CrossCheck(cross_text, check)]
    own = reply_check(question.task, check) if check is not None else None
    if check is None or own is None:
        return [first]
    return [first, Redraw(own, check, list(PROGRAM_STOP), first.finish) if isinstance(first, ProgramAnswer)
            else Redraw(own, check)]
