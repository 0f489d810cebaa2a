"""agent-evolve: evolve an LLM agent's workspace (prompts, skills, memory, tools) from graded evidence."""

from __future__ import annotations

from agent_evolve.api import AGENT_REGISTRY, BENCHMARK_REGISTRY, ENGINE_REGISTRY, Evolver
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.benchmarks.adapters.task_list import TaskList
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EngineContext, EvolutionEngine
from agent_evolve.engine.loop import EvolutionLoop
from agent_evolve.engine.observer import EvolutionHistory, Observer
from agent_evolve.engine.trial import TrialReport, TrialRunner
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.quick import EvolvedAgent, EvolvedRun, evolve, load_agent
from agent_evolve.types import (CycleRecord, EvolutionResult, Feedback, Observation, SkillMeta, StepResult, Task,
                                Trajectory, Usage)

__version__ = "0.1.0"

__all__ = [
    "AGENT_REGISTRY", "BENCHMARK_REGISTRY", "ENGINE_REGISTRY", "AgentWorkspace", "BaseAgent", "BenchmarkAdapter",
    "CycleRecord", "EngineContext", "EvolutionEngine", "EvolutionHistory", "EvolutionLoop", "EvolutionResult",
    "EvolvedAgent", "EvolvedRun", "EvolveConfig", "Evolver", "Feedback", "Observation", "Observer", "SkillMeta",
    "StepResult", "TaskList", "Task", "TrialReport", "TrialRunner", "Trajectory", "Usage", "VersionControl",
    "evolve", "load_agent",
]
