"""How the reference agent answers: one small protocol, one short module per strategy, chained by the agent."""

from __future__ import annotations

from agent_evolve.agents.answering.acting import Acting
from agent_evolve.agents.answering.base import Answer, AnsweringStrategy, Question, answer_step
from agent_evolve.agents.answering.checks import CHECK_KINDS, ReplyCheck, reply_check
from agent_evolve.agents.answering.cross_check import CROSS_CHECK_KINDS, CrossCheck
from agent_evolve.agents.answering.plain import Plain
from agent_evolve.agents.answering.program import PROGRAM_KINDS, ProgramAnswer
from agent_evolve.agents.answering.redraw import Redraw
from agent_evolve.agents.answering.tool_loop import ToolLoop

__all__ = ["CHECK_KINDS", "CROSS_CHECK_KINDS", "PROGRAM_KINDS", "Acting", "Answer", "AnsweringStrategy", "CrossCheck",
           "Plain", "ProgramAnswer", "Question", "Redraw", "ReplyCheck", "ToolLoop", "answer_step", "reply_check"]
