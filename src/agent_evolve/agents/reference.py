"""``ReferenceAgent``: the built-in agent that reads everything it does from its workspace.

Per task it selects skills (all, matched by description, routed by the model, or none), assembles a capped
system prompt from the system prompt, fragments, skills and memories, asks the model (through the workspace's
tools when ``use_tools`` is on), and optionally proposes a draft skill. Its settings are the manifest's
``agent.config`` mapping (the fields of ``AgentSettings``), laid over ``EvolveConfig.extra["agent"]`` (a
run-wide default) and under the config's explicit ``agent_max_tokens`` / ``agent_temperature`` (the command line).

With ``prompts/program.md`` in the workspace (and no tools, outside a task environment) that text replaces the
system prompt and the agent answers with a program (``agents.program``): the model writes Python, the agent runs
it confined and appends what it prints as the answer line (a task of a declared kind other than number, text or
choice is answered without one; a text or choice answer is what the program prints, and the prompt says so).
With ``prompts/check.yaml`` (plain answers only) a code reply that fails an example of its task's docstring, or a
numeric answer that breaks the file's answer form, is drawn again (``agents.redraw``); with its ``cross_check`` a
program answer to a number task is instead cross-checked by a text answer, sampled programs settling a
disagreement (``agents.cross_check``). The worked examples of experience memory nearest to the task follow the
text system prompt, never the program prompt (``agents.experience``).

In a task environment (``current_environment()``, a benchmark whose tasks are acted on) the agent works through
the tool loop of ``agents.acting`` instead (bash, view, edit, create, search, submit, and with ``use_tools`` the
workspace's tools run in the environment), for at most ``max_tool_turns`` turns.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import partial
from pathlib import Path
from typing import Any, Literal, get_args

from agent_evolve.agents.acting import ActingLimits, OutputMode, act
from agent_evolve.agents.cross_check import CROSS_CHECK_KINDS, cross_check
from agent_evolve.agents.experience import Experience, load_experience, with_demonstrations, without_experience
from agent_evolve.agents.program import (
    PROGRAM_STOP,
    answer_with_program,
    finish_program,
    kind_instruction,
    program_applies,
)
from agent_evolve.agents.prompting import (
    DEFAULT_PROMPT_CHARS,
    AssembledPrompt,
    SkillText,
    assemble_system_prompt,
    build_messages,
    select_memories,
)
from agent_evolve.agents.redraw import redraw_until_checked, reply_check
from agent_evolve.agents.routing.bank import BankRouter, workspace_router
from agent_evolve.agents.routing.router import BankShortlist, SkillRouter
from agent_evolve.agents.task_tools import task_tools
from agent_evolve.agents.tools import (
    DEFAULT_TIMEOUT_S,
    load_tool_entries,
    workspace_tools,
)
from agent_evolve.benchmarks.answer_kinds import declared_kind
from agent_evolve.config import DEFAULT_AGENT_MAX_TOKENS, EvolveConfig
from agent_evolve.contract.check_settings import CheckSettings
from agent_evolve.contract.manifest import MANIFEST_FILE
from agent_evolve.contract.settings_rules import check_settings, is_int, is_number
from agent_evolve.contract.skills import Skill, parse_skill, render_skill, validate_skill
from agent_evolve.contract.tool_entries import ToolEntry
from agent_evolve.errors import ConfigError, ManifestError, SkillFormatError
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.llm.errors import StructuredOutputError
from agent_evolve.llm.factory import client_from_config
from agent_evolve.llm.stops import stop_rule
from agent_evolve.llm.structured import complete_json
from agent_evolve.llm.tool_loop import Tool, run_tool_loop
from agent_evolve.protocol.acting import current_environment
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import SkillMeta, Task, Trajectory

log = logging.getLogger(__name__)

SkillMode = Literal["all", "match", "routed", "none"]
SKILL_MODES: tuple[str, ...] = get_args(SkillMode)
OUTPUT_MODES: tuple[str, ...] = get_args(OutputMode)
DRAFT_MAX_TOKENS = 300
DRAFT_CONTEXT_CHARS = 1500
DRAFT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "lesson": {"type": "boolean"},
        "name": {"type": "string"},
        "trigger": {"type": "string"},
        "avoid": {"type": "string"},
        "guidance": {"type": "string"},
    },
    "required": ["lesson"],
}
_DRAFT_SYSTEM = "You review your own attempt at a task and keep only lessons that generalise to similar tasks."
_DRAFT_ASK = (
    "Did this attempt teach a reusable lesson for similar tasks? If not, reply {\"lesson\": false}. If so, reply "
    "with lesson true, name (2-4 lowercase words joined by hyphens), trigger (when the lesson applies), avoid "
    "(when it does not apply) and guidance (at most 5 short imperative lines)."
)


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


_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
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
"""Per ``agent.config`` key: a validity check and what a valid value is, for the error message."""


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

    def __init__(
        self, workspace_dir: str | Path, config: EvolveConfig | None = None, llm: LLMClient | None = None
    ) -> None:
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
            settings=settings,
            system_prompt=ws.read_prompt(),
            fragments={name: ws.read_fragment(name) for name in ws.list_fragments()},
            skills=skills,
            bodies={s.name: self.get_skill_content(s.name) for s in skills},
            memories=without_experience(ws.read_all_memories(limit=self.memory_limit)),
            tools=workspace_tools(ws, timeout_s=settings.tool_timeout_s) if settings.use_tools else [],
            ratchet=workspace_router(ws.path, skills),
            tool_entries=load_tool_entries(ws) if settings.use_tools else [],
            shortlist=BankShortlist(skills),
            program_prompt=ws.read_program_prompt(),
            check=ws.read_check_settings(),
            experience=load_experience(ws.path),
        )
        with self._lock:
            self._system_prompt, self._skills, self._memories = snapshot.system_prompt, skills, snapshot.memories
            self._snapshot = snapshot

    def solve(self, task: Task) -> Trajectory:
        """Answer with the task's own tools (MCP servers, a game) available; they stop when the answer ends."""
        with task_tools(self.workspace.path, task, call_timeout_s=self.settings.tool_timeout_s) as extra:
            return self._solve(task, extra)

    def _solve(self, task: Task, extra_tools: list[Tool]) -> Trajectory:
        """Select skills, assemble the prompt, answer (with tools when enabled), optionally propose a draft."""
        with self._lock:
            state = self._snapshot
        state = replace(state, tools=[*state.tools, *extra_tools])
        settings, client = state.settings, self.llm
        selected, detail = self._select_skills(state, task, client)
        environment = current_environment()
        plain = environment is None and not state.tools  # a single reply, no tool loop
        kind = declared_kind(task)
        program = state.program_prompt if plain and program_applies(kind) else None
        if program:
            program = "\n".join(line for line in (program.rstrip(), kind_instruction(kind)) if line) + "\n"
        cross_checked = (program is not None and state.check is not None and state.check.cross_check > 0
                         and kind in (None, *CROSS_CHECK_KINDS))
        shows_examples = not program or cross_checked  # never in the program prompt: its replies must be code
        section, shown = state.experience.demonstrations(task.input, task.id) if shows_examples else ("", [])
        text_base = with_demonstrations(state.system_prompt, section)
        prompt = _assemble(state, program or text_base, selected)
        steps: list[dict[str, Any]] = [{
            "type": "skills",
            "mode": settings.skill_mode,
            "injected": prompt.skills,
            "router": detail,
            "dropped_by_cap": prompt.dropped_skills,
            "memories": prompt.memories,
            "experience": shown,
        }]
        messages = build_messages(prompt.text, task.input)
        max_tokens = settings.max_tokens or DEFAULT_AGENT_MAX_TOKENS
        if environment is not None:
            limits = ActingLimits(settings.max_tool_turns, settings.tool_timeout_s, settings.max_observation_chars,
                                  settings.max_context_chars, max_tokens, settings.temperature)
            acted = act(client, prompt.text, task.input, environment, limits, settings.acting_output,
                        state.tool_entries, extra_tools)
            output, conversation, usage, finish = acted.output, acted.conversation, acted.usage, acted.finish_reason
            steps += acted.steps
            extra = {"turns": acted.turns, "stop_reason": acted.stop_reason, "submitted": acted.submitted}
        elif state.tools:
            result = run_tool_loop(client, messages, state.tools, max_turns=settings.max_tool_turns,
                                   max_tokens=max_tokens, temperature=settings.temperature)
            output, conversation, usage = result.text, result.messages, result.usage
            steps += [{"type": "tool_call", "name": e.call.name, "arguments": e.call.arguments,
                       "output": e.output, "error": e.error} for e in result.executed]
            finish = result.last.finish_reason if result.last is not None else "stop"
            extra = {"turns": result.turns, "stop_reason": result.stop_reason}
        else:
            completion = client.complete(messages, max_tokens=max_tokens, temperature=settings.temperature,
                                         stop=list(PROGRAM_STOP) if program
                                         else stop_rule(kind))
            output, usage, finish, extra = completion.text, completion.usage, completion.finish_reason, {}
            conversation = [*messages, Message("assistant", completion.text)]
        steps.append({"type": "answer", "finish_reason": finish, "usage": usage.to_dict(), **extra})
        if program:
            output, run = answer_with_program(output, kind=kind)
            steps.append(run.to_step())
        if cross_checked:
            text_messages = build_messages(_assemble(state, text_base, selected).text, task.input)
            checked = cross_check(client, messages, text_messages, output, state.check, max_tokens=max_tokens,
                                  text_temperature=settings.temperature)
            output, conversation = checked.output, [*messages, Message("assistant", checked.output)]
            steps.append(checked.to_step())
        elif plain and state.check is not None and (check := reply_check(task, state.check)) is not None:
            redrawn = redraw_until_checked(client, messages, output, check, max_tokens=max_tokens,
                                           stop=list(PROGRAM_STOP) if program else None,
                                           finish=partial(finish_program, kind=kind) if program else str)
            if redrawn.kept is not None:
                output, conversation = redrawn.output, [*messages, Message("assistant", redrawn.output)]
            steps.append(redrawn.to_step())
        if settings.propose_drafts:
            steps.append(self._propose_draft(client, task, output))
        return Trajectory(task.id, output, steps, [m.to_dict() for m in conversation])

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

    def _propose_draft(self, client: LLMClient, task: Task, output: str) -> dict[str, Any]:
        """Ask once whether the attempt taught a reusable lesson; buffer a valid SKILL.md draft if so."""
        messages = [
            Message("system", _DRAFT_SYSTEM),
            Message("user", f"Task:\n{_clip(task.input)}\n\nYour answer:\n{_clip(output)}\n\n{_DRAFT_ASK}"),
        ]
        try:
            reply = complete_json(client, messages, DRAFT_SCHEMA, max_tokens=DRAFT_MAX_TOKENS)
        except StructuredOutputError as exc:
            log.info("task %s: no draft skill, the reply was not valid JSON: %s", task.id, exc)
            return {"type": "draft", "status": "unparsed"}
        if not reply.get("lesson"):
            return {"type": "draft", "status": "none"}
        name, text, problems = draft_skill(reply, task.id)
        if problems:
            log.info("task %s: draft skill %r dropped: %s", task.id, name, "; ".join(problems))
            return {"type": "draft", "status": "invalid", "name": name, "problems": problems}
        self.propose_skill(name, text)
        return {"type": "draft", "status": "proposed", "name": name}


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


def draft_skill(reply: Mapping[str, Any], task_id: str) -> tuple[str, str, list[str]]:
    """``(name, SKILL.md text, problems)`` for a draft reply; the text is checked with the contract's validator."""
    name = re.sub(r"[^a-z0-9]+", "-", str(reply.get("name", "")).lower()).strip("-")[:64].strip("-")
    trigger = " ".join(str(reply.get("trigger", "")).split()).rstrip(".")
    avoid = " ".join(str(reply.get("avoid", "")).split()).rstrip(".")
    guidance = str(reply.get("guidance", "")).strip()
    missing = [key for key, value in (("trigger", trigger), ("guidance", guidance)) if not value]
    if missing:
        return name, "", [f"the reply has no {key}" for key in missing]
    description = f"TRIGGER when: {trigger}." + (f" DO NOT TRIGGER: {avoid}." if avoid else "")
    text = render_skill(Skill(name, description, guidance + "\n", metadata={"source": "agent-draft",
                                                                            "task_id": str(task_id)}))
    try:
        problems = validate_skill(parse_skill(text), dir_name=name)
    except SkillFormatError as exc:
        problems = [str(exc)]
    return name, text, problems


def _clip(text: str) -> str:
    """Shorten a text for the draft prompt, which must fit a small model's context."""
    return text if len(text) <= DRAFT_CONTEXT_CHARS else text[:DRAFT_CONTEXT_CHARS] + " ..."
