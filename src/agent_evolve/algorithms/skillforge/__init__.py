"""skillforge: the default engine, a model editing the workspace through a confined bash tool and write tools."""

from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash
from agent_evolve.algorithms.skillforge.engine import AEvolveEngine

__all__ = ["AEvolveEngine", "ConfinedBash"]
