"""skillforge: a model with a confined bash tool and validating write tools edits the workspace.

Each step shows the model a bounded digest of the batch; it inspects files with bash and stages edits with the
write tools, each checked when called. Bash changes outside the enabled layers, or that break the workspace, are
undone with the workspace's git; if no valid edit came of it (small models often call tools badly) one
schema-checked proposal is asked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from agent_evolve.algorithms.common import prompts
from agent_evolve.algorithms.common.base import ModelEngine, StepInput
from agent_evolve.algorithms.common.edits import DuplicateEditError, Edit, EditBatch, EditError, proposable_kinds
from agent_evolve.algorithms.common.generation import edit_from_action, plan_targets, propose, propose_edits
from agent_evolve.algorithms.common.memory_ops import lessons
from agent_evolve.algorithms.common.skill_ops import read_skills
from agent_evolve.algorithms.common.summaries import evidence_prompt
from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.llm.base import Message, ToolSpec
from agent_evolve.llm.errors import ContextLengthError, StructuredOutputError
from agent_evolve.llm.tool_loop import Tool, run_tool_loop
from agent_evolve.types import StepResult, StepStatus

if TYPE_CHECKING:
    from agent_evolve.contract.workspace import AgentWorkspace

log = logging.getLogger(__name__)
NO_GIT = "no bash: git could not undo its edits (the workspace is not a repository at a clean commit)"


def _texts(*names: str) -> dict[str, Any]:
    """The parameters schema of a tool whose arguments are all required strings."""
    return {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": list(names)}


TOOL_SPECS: dict[str, ToolSpec] = {
    "bash": ToolSpec("bash", "Run a shell command in the workspace folder (relative paths only).", _texts("command")),
    "add_rule": ToolSpec("add_rule", "Append one rule (one sentence) to the agent's system prompt.", _texts("rule")),
    "write_prompt": ToolSpec("write_prompt", "Replace the agent's whole system prompt.", _texts("prompt")),
    "write_skill": ToolSpec("write_skill", "Create or replace a skill (name: kebab-case; description: "
                                           "'TRIGGER when: ...'; body: short instructions).",
                            _texts("name", "description", "body")),
    "add_memory": ToolSpec("add_memory", "Store one lesson in the agent's episodic memory.", _texts("content")),
}


class AEvolveEngine(ModelEngine):
    """The default engine: bash-and-tools editing by the engine model, with a schema-checked fallback."""

    name = "skillforge"
    editable: ClassVar[frozenset[str]] = frozenset({"prompts", "skills", "memory"})
    defaults: ClassVar[dict[str, Any]] = {
        "max_turns": 6,            # model turns in the tool conversation
        "max_edits": 2,            # structured edits per step
        "free_form": False,        # offer write_prompt and ask for several edits at once (strong models)
        "bash": True,              # offer the confined bash tool
        "bash_timeout_s": 10.0,
        "output_limit": 1500,      # characters of bash output shown to the model
        "allow_network": False,
        "failures_shown": 3,
        "prompt_chars": 2400,      # size of the evidence message
        "prompt_cap": 8000,        # the system prompt may not grow past this
        "fallback": True,          # one schema-checked proposal when the tools produced no edit
    }

    def _step(self, step: StepInput) -> StepResult:
        """Analyse, converse with tools, repair, fall back, write."""
        workspace, layers, evidence = step.workspace, step.layers, step.evidence
        if not layers:
            return StepResult(False, "skillforge: no editable layer is enabled")
        if not (evidence.failures or evidence.format_count or evidence.hidden):  # a failure or a format problem
            return StepResult(False, "skillforge: nothing to fix in this batch")
        request = evidence_prompt(evidence, workspace, layers, self.params["failures_shown"],
                                  self.params["prompt_chars"], step.rejected)
        batch = EditBatch(workspace, layers, prompt_cap=self.params["prompt_cap"], max_edits=self.params["max_edits"])
        git = self._undo(workspace)
        problems_before = set(validate_workspace(workspace.path))
        bash = ConfinedBash(workspace.path, self.params["bash_timeout_s"], self.params["output_limit"],
                            self.params["allow_network"], layers=sorted(layers)) if git else None
        try:
            turns = self._converse(request, batch, layers, bash)
        except BaseException:
            if git:
                git.discard(git.changed_paths("HEAD"))  # a crashed conversation leaves no bash edit behind
            raise
        kept = self._settle_bash(workspace, git, layers, problems_before) if git else []
        fallback = not batch.edits and not kept and self.params["fallback"]
        if fallback:
            try:
                self._fallback(batch, step, request)
            except (StructuredOutputError, EditError) as exc:
                if isinstance(exc, StructuredOutputError):
                    batch.count_unparsed()
                status: StepStatus = "done" if isinstance(exc, DuplicateEditError) else "failed"
                return StepResult(False, f"skillforge: no edit ({type(exc).__name__}: {exc})",
                                  {"edits": batch.tally()}, status=status)
        isolation = bash.isolation if bash else NO_GIT if self.params["bash"] else "no bash"
        metadata = {"kinds": dict(evidence.kind_counts), "turns": turns, "fallback": fallback, "isolation": isolation}
        return self.written(batch, metadata, kept)

    def _undo(self, workspace: AgentWorkspace) -> VersionControl | None:
        """The workspace's git, which undoes bash edits; None (no bash tool) when bash is off or the tree is not
        committed (an engine run outside the loop: the loop starts every step at a commit)."""
        if not self.params["bash"]:
            return None
        git = VersionControl(workspace.path)
        if git.is_committed():
            return git
        log.warning("skillforge: %s (%s)", NO_GIT, workspace.path)
        return None

    def _tools(self, batch: EditBatch, layers: set[str], bash: ConfinedBash | None) -> list[Tool]:
        names = [n for n in proposable_kinds(layers) if n != "write_prompt" or self.params["free_form"]]

        def stage(action: str) -> Callable[[dict[str, Any]], str]:
            def call(arguments: dict[str, Any]) -> str:
                proposed = None
                try:
                    proposed = edit_from_action({"action": action, **arguments}, self.source)
                    batch.add(proposed)
                except EditError as exc:
                    if proposed is None:  # arguments that do not make an edit
                        batch.count_unparsed()
                    return f"Error: {exc}"
                return f"OK: staged {batch.edits[-1].describe()}"
            return call

        tools = [Tool(TOOL_SPECS[n], stage(n)) for n in names]
        if bash is not None:
            tools.insert(0, Tool(TOOL_SPECS["bash"], lambda arguments: bash.run(str(arguments["command"]))))
        return tools

    def _converse(self, request: str, batch: EditBatch, layers: set[str], bash: ConfinedBash | None) -> int:
        """The tool conversation; returns the number of turns (0 when the context was too small)."""
        tools = self._tools(batch, layers, bash)
        system = prompts.FORGE_SYSTEM.format(tools="; ".join(prompts.TOOL_LINES[t.name] for t in tools),
                                             max_edits=self.params["max_edits"],
                                             switches=prompts.PROGRAM_SWITCH if bash is not None else "")
        messages = [Message("system", system), Message("user", request)]
        try:
            result = run_tool_loop(self.llm, messages, tools, max_turns=self.params["max_turns"],
                                   max_tokens=self.max_tokens)
        except ContextLengthError:
            return 0
        for execution in result.executed:  # edit calls the loop refused before they reached a tool
            if execution.call.name != "bash" and not execution.ran:
                batch.count_unparsed()
        return result.turns

    def _settle_bash(self, workspace: AgentWorkspace, git: VersionControl, layers: set[str],
                     problems_before: set[str]) -> list[str]:
        """Undo changes since HEAD (bash's) outside the enabled layers, and all of them if they broke the workspace."""
        changed = git.changed_paths("HEAD")
        outside = [p for p in changed if "/" not in p or p.split("/", 1)[0] not in layers]
        git.discard(outside)
        kept = [p for p in changed if p not in outside]
        if kept and set(validate_workspace(workspace.path)) - problems_before:
            git.discard(kept)
            return []
        return kept

    def _fallback(self, batch: EditBatch, step: StepInput, request: str) -> None:
        """One schema-checked proposal: several edits for a free-form model, else the single top target."""
        evidence, layers, source = step.evidence, step.layers, self.source
        if self.params["free_form"]:
            actions = proposable_kinds(layers)
            for edit in propose_edits(self.llm, request, actions, self.params["max_edits"], self.max_tokens, source):
                batch.add(edit)
            return
        skills = read_skills(step.workspace) if "skills" in layers else {}
        targets = plan_targets(evidence, layers, skills, limit=1)
        for target in targets:
            batch.add(propose(target, self.llm, evidence, request, skills, self.max_tokens, source))
        if not targets and "memory" in layers:
            for entry in lessons(evidence, source, limit=1):
                batch.add(Edit("add_memory", entry=entry))
