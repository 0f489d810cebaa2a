"""The workspace contract: an agent's behaviour lives in a folder (manifest, prompts, skills, memory, tools)."""

from agent_evolve.contract.manifest import LAYER_PATHS, Manifest, load_manifest
from agent_evolve.contract.paths import atomic_write, check_name, safe_join
from agent_evolve.contract.skills import Skill, parse_skill, render_skill, strip_frontmatter, validate_skill
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.contract.workspace import AgentWorkspace

__all__ = [
    "LAYER_PATHS", "AgentWorkspace", "Manifest", "Skill", "atomic_write", "check_name", "load_manifest",
    "parse_skill", "render_skill", "safe_join", "strip_frontmatter", "validate_skill", "validate_workspace",
]
