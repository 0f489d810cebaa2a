"""Acting: in a task environment the model works through ``agents.acting``'s tools until it submits or stops."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_evolve.agents.acting import ActingLimits, OutputMode, act
from agent_evolve.agents.answering.base import Answer, Question, answer_step
from agent_evolve.contract.tool_entries import ToolEntry
from agent_evolve.environments import TaskEnvironment
from agent_evolve.llm.tool_loop import Tool


@dataclass(frozen=True)
class Acting:
    """Act in ``environment`` within ``limits``, with the workspace's tool entries and the task's own tools."""

    environment: TaskEnvironment
    limits: ActingLimits
    output: OutputMode
    tool_entries: list[ToolEntry] = field(default_factory=list)
    task_tools: list[Tool] = field(default_factory=list)

    def answer(self, question: Question, so_far: Answer) -> Answer:
        acted = act(question.client, question.system, question.task.input, self.environment, self.limits,
                    self.output, self.tool_entries, self.task_tools)
        return so_far.then(*acted.steps, answer_step(acted.finish_reason, acted.usage, turns=acted.turns,
                                                     stop_reason=acted.stop_reason, submitted=acted.submitted),
                           output=acted.output, conversation=acted.conversation)
