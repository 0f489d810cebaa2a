"""A model-free agent and engine for command-line tests."""

from __future__ import annotations

import time

import agent_evolve as ae
from agent_evolve.types import StepResult, Task, Trajectory


class LastWordAgent(ae.BaseAgent):
    """Answers with the task's last word, upper-cased when the prompt says SHOUT."""

    def solve(self, task: Task) -> Trajectory:
        word = task.input.split()[-1]
        return Trajectory(task_id=task.id, output=word.upper() if "SHOUT" in self.system_prompt else word)


class ShoutEngine(ae.EvolutionEngine):
    """Tells the agent to shout; the gate decides whether that helps."""

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        workspace.write_prompt("SHOUT")
        return StepResult(mutated=True, summary="shout")


class NoopEngine(ae.EvolutionEngine):
    """Changes nothing."""

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        return StepResult(mutated=False, summary="nothing to do")


class SlowLastWordAgent(LastWordAgent):
    """LastWordAgent taking two seconds a task: phases with long silences between progress events."""

    def solve(self, task: Task) -> Trajectory:
        time.sleep(2.0)
        return super().solve(task)
