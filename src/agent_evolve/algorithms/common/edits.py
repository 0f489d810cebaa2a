"""Edits to a workspace: staged and checked one by one (`EditBatch.add`), then written together (`apply`).

A write that fails fails the step, and the loop undoes a failed step with the workspace's git (back to pre-evo-N).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_evolve.algorithms.common.skill_ops import SKILL_CHAR_CAP
from agent_evolve.contract.paths import check_category
from agent_evolve.contract.skills import Skill, render_skill, validate_skill
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import AgentEvolveError, WorkspaceError
from agent_evolve.text import text_similarity

EditKind = Literal["add_rule", "write_prompt", "write_skill", "delete_skill", "add_memory", "rewrite_memory",
                   "clear_drafts"]
LAYER_OF: dict[str, str] = {
    "add_rule": "prompts", "write_prompt": "prompts", "write_skill": "skills", "delete_skill": "skills",
    "clear_drafts": "skills", "add_memory": "memory", "rewrite_memory": "memory",
}
PROPOSABLE: tuple[EditKind, ...] = ("add_rule", "write_prompt", "write_skill", "add_memory")  # one model action each
RULES_HEADING = "## Learned rules"
RULE_MIN, RULE_MAX = 8, 300
MEMORY_MAX = 500
DUPLICATE_RULE = 0.85
UNCOUNTED = ("clear_drafts", "rewrite_memory")  # housekeeping edits that `max_edits` does not count


def proposable_kinds(layers: Collection[str]) -> list[str]:
    """The edit kinds a model may propose (as an action or a tool call) whose layer is in `layers`."""
    return [kind for kind in PROPOSABLE if LAYER_OF[kind] in layers]


class EditError(AgentEvolveError):
    """A proposed edit that cannot be applied (invalid, not allowed, too large); nothing was written."""


class DuplicateEditError(EditError):
    """A proposed edit that would add what the workspace already has."""


@dataclass
class Edit:
    """One change to the workspace: a prompt rule or text, a skill written or deleted, a memory entry."""

    kind: EditKind
    text: str = ""
    skill: Skill | None = None
    name: str = ""
    category: str = "episodic"
    entry: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def layer(self) -> str:
        return LAYER_OF[self.kind]

    def describe(self) -> str:
        """A short line for the step summary."""
        if self.kind == "add_rule":
            return f"rule: {self.text[:80]}"
        if self.kind == "write_skill" and self.skill is not None:
            return f"skill {self.skill.name}"
        if self.kind == "delete_skill":
            return f"deleted skill {self.name}"
        if self.kind == "add_memory":
            return f"memory ({self.category}): {str(self.entry.get('content', ''))[:60]}"
        if self.kind == "rewrite_memory":
            return f"memory {self.category} rewritten ({len(self.entries)} entries)"
        return self.kind.replace("_", " ")


def learned_rules(prompt: str) -> list[str]:
    """The bullet lines under the prompt's learned-rules heading."""
    _, found, section = prompt.partition(RULES_HEADING)
    return [line[2:].strip() for line in section.splitlines() if line.startswith("- ")] if found else []


def cap_prompt(prompt: str, cap: int) -> str:
    """`prompt` within `cap` characters: the oldest learned rules go first, then paragraphs from the end."""
    if len(prompt) <= cap:
        return prompt
    head, found, _ = prompt.partition(RULES_HEADING)
    rules = learned_rules(prompt)
    while found and rules:
        rules.pop(0)
        text = head.rstrip() + (f"\n\n{RULES_HEADING}\n" + "".join(f"- {r}\n" for r in rules) if rules else "\n")
        if len(text) <= cap:
            return text
    paragraphs = head.rstrip().split("\n\n")
    while len(paragraphs) > 1 and len("\n\n".join(paragraphs)) + 1 > cap:
        paragraphs.pop()
    return ("\n\n".join(paragraphs)[: cap - 1]).rstrip() + "\n"


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


class EditBatch:
    """Edits staged against one workspace, checked as they are added, written together by `apply`."""

    def __init__(self, workspace: AgentWorkspace, layers: set[str], prompt_cap: int | None = None,
                 skill_cap: int = SKILL_CHAR_CAP, max_edits: int | None = None) -> None:
        self.workspace = workspace
        self.layers = set(layers)
        self.prompt_cap = prompt_cap
        self.skill_cap = skill_cap
        self.max_edits = max_edits
        self.edits: list[Edit] = []
        self.proposed = 0
        self._prompt: str | None = None
        self._memory: dict[str, list[dict[str, Any]]] = {}
        self._rewritten: set[str] = set()

    @property
    def prompt(self) -> str:
        """The prompt as it will be after the staged edits."""
        return self._prompt if self._prompt is not None else self.workspace.read_prompt()

    def memories(self, category: str) -> list[dict[str, Any]]:
        """A category's entries as they will be after the staged edits."""
        if category not in self._memory:
            self._memory[category] = self.workspace.read_memories(category, limit=None)
        return self._memory[category]

    def add(self, edit: Edit) -> None:
        """Check `edit` and stage it; raises EditError (DuplicateEditError for repeats) and stages nothing."""
        self.proposed += 1
        if edit.layer not in self.layers:
            raise EditError(f"{edit.kind}: the {edit.layer} layer may not be edited in this run")
        counted = sum(e.kind not in UNCOUNTED for e in self.edits)
        if edit.kind not in UNCOUNTED and self.max_edits is not None and counted >= self.max_edits:
            raise EditError(f"at most {self.max_edits} edit(s) per step")
        getattr(self, f"_check_{edit.kind}")(edit)
        self.edits.append(edit)

    def count_unparsed(self) -> None:
        """Count a proposal that never became an edit (a model reply that did not parse)."""
        self.proposed += 1

    def tally(self) -> dict[str, int]:
        """Edits proposed to this batch (parsed or not) and those that passed their checks and were staged."""
        return {"proposed": self.proposed, "valid": len(self.edits)}

    def try_add(self, edit: Edit) -> bool:
        """`add`, except that an edit the workspace already has is skipped (False) rather than raised."""
        try:
            self.add(edit)
        except DuplicateEditError:
            return False
        return True

    def _check_add_rule(self, edit: Edit) -> None:
        rule = " ".join(edit.text.split()).lstrip("-* ").strip()
        if not RULE_MIN <= len(rule) <= RULE_MAX:
            raise EditError(f"a rule must be one line of {RULE_MIN}-{RULE_MAX} characters, got {len(rule)}")
        prompt = self.prompt
        existing = learned_rules(prompt)
        if _norm(rule) in _norm(prompt) or any(text_similarity(rule, r) >= DUPLICATE_RULE for r in existing):
            raise DuplicateEditError(f"the prompt already has this rule: {rule[:80]}")
        edit.text = rule
        heading = "" if RULES_HEADING in prompt else f"\n\n{RULES_HEADING}"  # the heading goes at the end, once
        self._set_prompt(f"{prompt.rstrip()}{heading}\n- {rule}\n")

    def _check_write_prompt(self, edit: Edit) -> None:
        if not edit.text.strip():
            raise EditError("write_prompt: the new prompt is empty")
        if _norm(edit.text) == _norm(self.prompt):
            raise DuplicateEditError("write_prompt: the prompt is unchanged")
        self._set_prompt(edit.text if edit.text.endswith("\n") else edit.text + "\n")

    def _set_prompt(self, text: str) -> None:
        if self.prompt_cap is not None and len(text) > self.prompt_cap:
            raise EditError(f"the prompt would be {len(text)} characters; the cap is {self.prompt_cap}")
        self._prompt = text

    def _check_write_skill(self, edit: Edit) -> None:
        skill = edit.skill
        if skill is None:
            raise EditError("write_skill: no skill given")
        problems = validate_skill(skill, dir_name=skill.name)
        if problems:
            raise EditError(f"write_skill {skill.name!r}: " + "; ".join(problems))
        text = render_skill(skill)
        if len(text) > self.skill_cap:
            raise EditError(f"skill {skill.name!r} is {len(text)} characters; the cap is {self.skill_cap}")
        try:
            current = self.workspace.read_skill(skill.name)
        except WorkspaceError:
            current = None
        if current is not None and _norm(current) == _norm(text):
            raise DuplicateEditError(f"skill {skill.name!r} is unchanged")

    def _check_delete_skill(self, edit: Edit) -> None:
        try:
            self.workspace.read_skill(edit.name)
        except WorkspaceError as exc:
            raise EditError(f"delete_skill: {exc}") from None

    def _check_clear_drafts(self, edit: Edit) -> None:
        """Clearing drafts is always possible."""

    def _check_add_memory(self, edit: Edit) -> None:
        category = self._category(edit)
        content = edit.entry.get("content")
        if not isinstance(content, str) or not content.strip() or len(content) > MEMORY_MAX:
            raise EditError(f"a memory entry needs a 'content' text of 1-{MEMORY_MAX} characters")
        entries = self.memories(category)
        if any(_norm(str(e.get("content", ""))) == _norm(content) for e in entries):
            raise DuplicateEditError(f"memory {category} already holds: {content[:60]}")
        entries.append(dict(edit.entry))

    def _check_rewrite_memory(self, edit: Edit) -> None:
        category = self._category(edit)
        if not all(isinstance(e, dict) for e in edit.entries):
            raise EditError(f"rewrite_memory {category}: every entry must be a mapping")
        self._memory[category] = [dict(e) for e in edit.entries]
        self._rewritten.add(category)

    def _category(self, edit: Edit) -> str:
        try:
            return check_category(edit.category)
        except WorkspaceError as exc:
            raise EditError(str(exc)) from None

    def apply(self) -> list[str]:
        """Write every staged edit; returns their descriptions. A failed write raises (the loop undoes the step)."""
        if self._prompt is not None:
            self.workspace.write_prompt(self._prompt)
        for edit in self.edits:
            if edit.kind == "delete_skill":
                self.workspace.delete_skill(edit.name)
            elif edit.kind == "write_skill" and edit.skill is not None:
                self.workspace.write_skill(edit.skill.name, render_skill(edit.skill))
            elif edit.kind == "clear_drafts":
                self.workspace.clear_drafts()
            elif edit.kind == "add_memory" and edit.category not in self._rewritten:  # else written whole below
                self.workspace.add_memory(dict(edit.entry), edit.category)
        for category in sorted(self._rewritten):
            self.workspace.rewrite_memories(category, self._memory[category])
        return [e.describe() for e in self.edits]
