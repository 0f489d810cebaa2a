"""Skills as engines handle them: build and validate, cap their size, find near-duplicates, merge two into one.

Similarity is tf-idf cosine with Ratchet's 0.85 duplicate threshold; sizes are capped at Ratchet's 1,500 characters.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import accumulate, combinations
from typing import Any

from agent_evolve.contract.skills import (MAX_DESCRIPTION_LENGTH, Skill, parse_skill, read_skill_file, render_skill,
    validate_skill)
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import SkillFormatError, WorkspaceError
from agent_evolve.text import ascii_words, cosine, tfidf_vectors

SKILL_CHAR_CAP = 1500
DUPLICATE_THRESHOLD = 0.85


def slugify(text: str, fallback: str = "learned-skill") -> str:
    """A valid skill name from any text: lowercase words joined by single hyphens, at most 48 characters."""
    name = "-".join(ascii_words(text))[:48].strip("-")
    return name or fallback


def normalize_description(text: str) -> str:
    """One line, in the 'TRIGGER when: ...' form the skill format asks for, within the length limit."""
    line = " ".join(text.split())
    if line and not line.upper().startswith("TRIGGER"):
        line = f"TRIGGER when: {line}"
    return line[:MAX_DESCRIPTION_LENGTH]


def cap_skill(skill: Skill, cap: int = SKILL_CHAR_CAP) -> Skill:
    """`skill` with its body cut at line ends so that the rendered file is at most `cap` characters."""
    if len(render_skill(skill)) <= cap:
        return skill
    overhead = len(render_skill(replace(skill, body="")))
    room = max(0, cap - overhead - 1)
    lines = skill.body.splitlines()
    ends = accumulate(len(line) + 1 for line in lines)  # where each line ends, its newline included
    kept = [line for line, end in zip(lines, ends) if end <= room]
    body = "\n".join(kept).rstrip() or skill.body[:room].rstrip()
    return replace(skill, body=body + "\n")


def make_skill(name: str, description: str, body: str, metadata: dict[str, Any] | None = None,
               cap: int = SKILL_CHAR_CAP) -> Skill:
    """A valid, size-capped skill; raises SkillFormatError listing the problems (nothing is written)."""
    skill = Skill(name=name.strip(), description=normalize_description(description),
                  body=body.strip() + "\n", metadata=dict(metadata or {}))
    if not body.strip():
        raise SkillFormatError(f"skill {name!r}: the body is empty")
    problems = validate_skill(skill, dir_name=skill.name)
    if problems:
        raise SkillFormatError(f"skill {name!r}: " + "; ".join(problems))
    return cap_skill(skill, cap)


def read_skills(workspace: AgentWorkspace) -> dict[str, Skill]:
    """Every current skill, parsed (from the contract's cache of unchanged files), by name."""
    return {m.name: read_skill_file(m.path) for m in workspace.list_skills()}


def draft_to_skill(name: str, content: str) -> Skill | None:
    """A draft as a valid skill: its own frontmatter if it has one, else its first line as the description."""
    try:
        parsed = parse_skill(content)
        return make_skill(slugify(parsed.name), parsed.description, parsed.body, parsed.metadata)
    except WorkspaceError:
        lines = [line.strip("# ").strip() for line in content.strip().splitlines() if line.strip()]
        if not lines:
            return None
        body = "\n".join(lines[1:]) or lines[0]
        try:
            return make_skill(slugify(name), lines[0], body)
        except SkillFormatError:
            return None


def skill_document(skill: Skill) -> str:
    """The text similarity is measured on: name, description and body."""
    return f"{skill.name.replace('-', ' ')} {skill.description} {skill.body}"


def near_duplicates(skills: dict[str, Skill], threshold: float = DUPLICATE_THRESHOLD) -> list[tuple[str, str, float]]:
    """Pairs (a, b, similarity) with similarity >= threshold, most similar first; a < b by name."""
    names = sorted(skills)
    vectors = tfidf_vectors([skill_document(skills[n]) for n in names])
    pairs = [(names[i], names[j], cosine(vectors[i], vectors[j])) for i, j in combinations(range(len(names)), 2)]
    return sorted([p for p in pairs if p[2] >= threshold], key=lambda p: (-p[2], p[0], p[1]))


def most_similar(candidate: Skill, skills: dict[str, Skill]) -> tuple[str, float] | None:
    """The existing skill closest to `candidate` (by name or text) and its similarity; None for an empty library."""
    if candidate.name in skills:
        return candidate.name, 1.0
    names = sorted(skills)
    if not names:
        return None
    vectors = tfidf_vectors([skill_document(candidate)] + [skill_document(skills[n]) for n in names])
    scores = [(cosine(vectors[0], vectors[i + 1]), name) for i, name in enumerate(names)]
    best_score, best_name = max(scores)
    return best_name, best_score


def merge_skills(a: Skill, b: Skill, name: str, description: str, body: str, cap: int = SKILL_CHAR_CAP) -> Skill:
    """One valid skill replacing `a` and `b` (both named in its `merged_from` metadata)."""
    metadata = {**b.metadata, **a.metadata, "merged_from": sorted({a.name, b.name})}
    return make_skill(name, description, body, metadata, cap)
