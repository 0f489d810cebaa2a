"""The built-in evolution engines, all built on the shared machinery in `agent_evolve.algorithms.common`.

| name | class | what it does |
|---|---|---|
| skillforge | `skillforge.engine.AEvolveEngine` | the default: a model with a confined bash tool and write tools |
| guided_synth | `guided_synth.GuidedSynthesisEngine` | episodic memory first, then skill curation |
| adaptive | `adaptive.AdaptiveEvolutionEngine` | failure patterns, seeded skills, trend-adapted edits, sanity fixes |
| adaptive_skill | `adaptive_skill.AdaptiveSkillEngine` | the adaptive engine, skills only |
"""

from agent_evolve.algorithms.adaptive import AdaptiveEvolutionEngine
from agent_evolve.algorithms.adaptive_skill import AdaptiveSkillEngine
from agent_evolve.algorithms.guided_synth import GuidedSynthesisEngine
from agent_evolve.algorithms.skillforge.engine import AEvolveEngine

__all__ = ["AEvolveEngine", "AdaptiveEvolutionEngine", "AdaptiveSkillEngine", "GuidedSynthesisEngine"]
