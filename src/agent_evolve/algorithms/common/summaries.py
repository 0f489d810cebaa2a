"""Bounded text for prompts: the batch digest, a few failure summaries and the workspace at a glance.

Every function takes a character limit (a small model's context); with hidden feedback no score or grader text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_evolve.algorithms.common.evidence import KIND_TEXT, Evidence, Finding
from agent_evolve.algorithms.common.prompts import advice
from agent_evolve.contract.skills import parse_skill
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import WorkspaceError


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, keeping its head and tail."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = max(0, limit * 2 // 3 - 2)
    return text[:head] + " ... " + text[len(text) - (limit - head - 5):]


def tail(text: str, limit: int) -> str:
    """The last `limit` characters of `text` (where answers usually are)."""
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-(limit - 3):]


def batch_digest(evidence: Evidence) -> str:
    """A few lines: batch size and result, failure kinds, format problems, skills used."""
    result = " (scores hidden)" if evidence.hidden else f", {evidence.solved_count} solved"
    lines = [f"Batch: {len(evidence.findings)} tasks{result}."]
    if evidence.clusters:
        lines.append("Problems: " + "; ".join(c.describe() for c in evidence.clusters[:4]) + ".")
    if evidence.format_count:
        problems = sorted({p for f in evidence.findings for p in f.format_problems})
        lines.append(f"Answer format: {evidence.format_count} output(s) with: " + ", ".join(problems[:4]) + ".")
    if evidence.answer_marker:
        lines.append(f"Tasks ask for a final line starting with '{evidence.answer_marker}'.")
    fixes = [advice(c.kind, None) for c in evidence.clusters[:2]]
    if fixes:
        lines.append("Suggested fixes: " + " ".join(dict.fromkeys(fixes)))
    for stats in sorted(evidence.skill_stats.values(), key=lambda s: -s.uses)[:4]:
        result = "" if evidence.hidden else f", {stats.solved} solved"
        lines.append(f"Skill {stats.name}: used in {stats.uses} task(s){result}.")
    return "\n".join(lines)


def finding_summary(finding: Finding, limit: int = 600) -> str:
    """One observation: task, end of the output, and (when visible) the result and the grader's words."""
    budget = max(120, limit - 80)
    lines = [f"Task {finding.task_id}: {clip(finding.task_input, budget // 2)}",
             f"Output (end): {tail(finding.output, budget // 2) or '(empty)'}"]
    if finding.solved is not None:
        verdict = "solved" if finding.solved else f"failed: {clip(finding.detail, 120) or 'no detail'}"
        lines.append(f"Result: {verdict}")
    if finding.kind:
        lines.append(f"Problem: {KIND_TEXT.get(finding.kind, finding.kind)}")
    if finding.format_problems:
        lines.append("Format: " + ", ".join(finding.format_problems))
    if finding.skills:
        lines.append("Skills used: " + ", ".join(finding.skills))
    return "\n".join(lines)


def pick_failures(evidence: Evidence, count: int) -> list[Finding]:
    """Up to `count` failures, one per kind first (largest clusters first), then the rest; with hidden feedback
    and no visible problem, any observations (nothing tells which ones failed)."""
    pool = evidence.failures or (evidence.findings if evidence.hidden else [])
    by_id = {f.task_id: f for f in pool}
    firsts = [by_id[c.task_ids[0]] for c in evidence.clusters if c.task_ids[0] in by_id]
    rest = [f for f in pool if f not in firsts]
    return (firsts + rest)[:count]


def failure_summaries(evidence: Evidence, count: int = 3, limit: int = 1800) -> str:
    """At most `count` failure summaries within `limit` characters in all."""
    chosen = pick_failures(evidence, count)
    if not chosen:
        return ""
    each = limit // len(chosen)
    return "\n\n".join(f"[{i + 1}] {finding_summary(f, each)}" for i, f in enumerate(chosen))


def skill_index(workspace: AgentWorkspace, limit: int = 600) -> str:
    """One line per current skill: name and description, within `limit` characters."""
    try:
        metas = workspace.list_skills()
    except WorkspaceError as exc:
        return f"(skills unreadable: {exc})"
    lines = [f"- {m.name}: {clip(m.description, 120)}" for m in metas]
    return clip("\n".join(lines), limit) if lines else "(no skills yet)"


def draft_index(workspace: AgentWorkspace, limit: int = 400) -> str:
    """One line per pending draft in skills/_drafts/."""
    lines = []
    for draft in workspace.list_drafts():
        try:
            description = parse_skill(draft["content"]).description
        except WorkspaceError:
            description = draft["content"].strip().splitlines()[0] if draft["content"].strip() else ""
        lines.append(f"- {draft['name']}: {clip(description, 100)}")
    return clip("\n".join(lines), limit)


def workspace_digest(workspace: AgentWorkspace, layers: set[str], limit: int = 1200) -> str:
    """The editable layers at a glance: the system prompt (clipped), skills, drafts and memory size."""
    parts = []
    if "prompts" in layers:
        parts.append("System prompt (prompts/system.md):\n" + (clip(workspace.read_prompt(), limit // 2) or "(empty)"))
    if "skills" in layers:
        parts.append("Skills:\n" + skill_index(workspace, limit // 3))
        drafts = draft_index(workspace, limit // 6)
        if drafts:
            parts.append("Drafts proposed by the agent:\n" + drafts)
    if "memory" in layers:
        counts = [f"{c} ({len(workspace.read_memories(c, limit=None))})" for c in workspace.list_memory_categories()]
        parts.append("Memory: " + (", ".join(counts) or "empty"))
    return "\n\n".join(parts)


REJECTED_SHOWN = 5  # rejected changes listed in the engine's request, newest last
REJECTED_HEADING = ("Changes the gate rejected since the last accepted version (no gain on held-out tasks); "
                    "do not repeat:")


def rejected_attempts(records: Sequence[Mapping[str, Any]], limit: int = REJECTED_SHOWN) -> str:
    """One line per cycle whose change the gate rejected since the last accepted one (the cycle records' step
    summaries, newest last), so a model is told what not to propose again; empty when there is none."""
    since: list[str] = []
    for record in records:
        outcome = (record.get("metadata") or {}).get("outcome")
        if outcome == "accepted":
            since = []
        elif outcome == "rejected":
            since.append(f"- cycle {record.get('cycle')}: {clip(str(record.get('summary', '')), 200)}")
    return "\n".join(since[-limit:])


def evidence_prompt(evidence: Evidence, workspace: AgentWorkspace, layers: set[str], failures: int = 3,
                    limit: int = 3000, rejected: str = "") -> str:
    """The user message most engines send: digest, a few failures, the changes already rejected, the workspace;
    at most `limit` chars."""
    digest = batch_digest(evidence)
    state = workspace_digest(workspace, layers, limit // 3)
    tried = f"{REJECTED_HEADING}\n{rejected}" if rejected else ""
    room = max(300, limit - len(digest) - len(state) - len(tried) - 40)
    examples = failure_summaries(evidence, failures, room)
    sections = [digest, "Examples:\n" + examples if examples else "", tried, "Workspace:\n" + state]
    return "\n\n".join(s for s in sections if s)
