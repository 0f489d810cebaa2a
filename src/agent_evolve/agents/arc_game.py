"""The ARC-AGI-3 observe-act loop as a tool: each `arc_action` call plays one action and returns the next frame; the
scorecard opens and closes with the attempt, and actions past the budget or the game's end are refused."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agent_evolve.benchmarks.support.arc_api import (ACTION_NAMES, ACTION_TOOL, API_KEY_ENV, GAME_KEY, ArcAction,
                                                     ArcApiClient, GameSession, frame_progress, render_frame)
from agent_evolve.errors import AgentEvolveError, MissingDependencyError
from agent_evolve.llm.base import ToolSpec
from agent_evolve.llm.tool_loop import Tool
from agent_evolve.types import Task

ACTION_SPEC = ToolSpec(
    ACTION_TOOL,
    "Play one action in the ARC-AGI-3 game and see the frame it leads to. Start with RESET to see the first "
    "frame (RESET also restarts the current level). ACTION1-ACTION5 and ACTION7 are simple actions (1-4 usually "
    "move up, down, left, right); ACTION6 is a click at x, y (0-63).",
    {"type": "object", "properties": {"action": {"type": "string", "enum": list(ACTION_NAMES)},
                                      "x": {"type": "integer", "minimum": 0, "maximum": 63},
                                      "y": {"type": "integer", "minimum": 0, "maximum": 63}},
     "required": ["action"]},
)


class GameActionError(AgentEvolveError):
    """An action the game did not take (invalid, over budget, or after the game ended); shown to the model."""


@contextmanager
def arc_game_tools(task: Task) -> Iterator[list[Tool]]:
    """The `arc_action` tool over a fresh game for a task that names one (no tools otherwise)."""
    game = task.metadata.get(GAME_KEY)
    if not game:
        yield []
        return
    key = os.environ.get(API_KEY_ENV)
    if not key:
        raise MissingDependencyError(f"task {task.id} plays the ARC-AGI-3 game {game['game_id']}: set {API_KEY_ENV}")
    session = GameSession(ArcApiClient(key, game["base_url"]), game["game_id"], tags=["agent-evolve"])
    budget = int(game["max_actions"])
    try:
        session.start()

        def act(arguments: dict[str, Any]) -> str:
            action = ArcAction.from_arguments(arguments)
            if not action.valid:
                raise GameActionError(f"{action.name} is not a valid action (ACTION6 needs x and y in 0-63)")
            if session.sent >= budget:
                raise GameActionError(f"the action budget ({budget}) is spent; give your final answer")
            if not session.accepts(action):
                raise GameActionError(f"the game is over ({frame_progress(session.frame)[2]}): only RESET is "
                                      "taken after GAME_OVER, nothing after WIN")
            return render_frame(session.act(action), session.sent)

        yield [Tool(ACTION_SPEC, act)]
    finally:
        session.close()
