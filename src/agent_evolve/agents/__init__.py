"""Agents that read their behaviour from a workspace: the reference agent and its skill router."""

from agent_evolve.agents.prompting import AssembledPrompt, SkillText, assemble_system_prompt, select_memories
from agent_evolve.agents.reference import AgentSettings, ReferenceAgent
from agent_evolve.agents.routing.router import RouteDecision, SkillRouter, match_skills
from agent_evolve.agents.tools import ToolRunError, workspace_tools

__all__ = ["AgentSettings", "AssembledPrompt", "ReferenceAgent", "RouteDecision", "SkillRouter", "SkillText",
           "ToolRunError", "assemble_system_prompt", "match_skills", "select_memories", "workspace_tools"]
