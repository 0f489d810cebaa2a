"""A strict Agent Skills check, as strict hosts apply the specification: the contract's skill rules plus the one the
workspace does not enforce, that `metadata` maps strings to strings."""

from __future__ import annotations

from agent_evolve.contract.skills import parse_skill, validate_skill
from agent_evolve.errors import SkillFormatError

SKILL_FILE = "SKILL.md"


def skill_file_problems(text: str, folder: str) -> list[str]:
    """Violations of one `SKILL.md` text in a folder named `folder` (unreadable frontmatter is one problem)."""
    try:
        skill = parse_skill(text, f"{folder}/{SKILL_FILE}")
    except SkillFormatError as exc:
        return [str(exc)]
    return validate_skill(skill, folder) + [
        f"metadata {key!r} must map a string to a string" for key, value in skill.metadata.items()
        if not isinstance(value, str)
    ]
