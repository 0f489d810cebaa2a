"""Tool loop: the model answers through the workspace's and the task's tools, for a bounded number of turns."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.agents.acting.loop import call_steps
from agent_evolve.agents.answering.base import Answer, Question, answer_step
from agent_evolve.llm.tool_loop import Tool, run_tool_loop


@dataclass(frozen=True)
class ToolLoop:
    """Run the tool loop over ``tools``; every call is a step, the last reply the answer."""

    tools: list[Tool]
    max_turns: int

    def answer(self, question: Question, so_far: Answer) -> Answer:
        result = run_tool_loop(question.client, question.messages, self.tools, max_turns=self.max_turns,
                               max_tokens=question.max_tokens, temperature=question.temperature)
        finish = result.last.finish_reason if result.last is not None else "stop"
        return so_far.then(*call_steps(result),
                           answer_step(finish, result.usage, turns=result.turns, stop_reason=result.stop_reason),
                           output=result.text, conversation=result.messages)
