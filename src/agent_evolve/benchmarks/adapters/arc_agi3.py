"""ARC-AGI-3: games played frame by frame through the ARC-AGI-3 API, or ARC-AGI-1/2 grid tasks from a local folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.support.arc_api import (ACTION_TOOL, API_KEY_ENV, BASE_URL_ENV, DEFAULT_BASE_URL, GAME_KEY,
                                                      ArcAction, ArcApiClient, frame_progress)
from agent_evolve.benchmarks.support.common import IndexedBenchmark, resolve_path
from agent_evolve.benchmarks.support.grids import compare_grids, is_grid, parse_grids, render_grid
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.io.safe_json import parse_json
from agent_evolve.types import Feedback, Task, Trajectory

ENV_VAR = "AGENT_EVOLVE_ARC_DATA"
GAME_NOTE = (f"Play with the `{ACTION_TOOL}` tool, one action per call: call it with RESET first to see the "
             "frame, then choose each next action from the frame it returns, until you win every level or the "
             "action budget is spent. When you stop, say in one line how far you got.")


def load_local_tasks(path: Path) -> dict[str, dict[str, Any]]:
    """ARC-AGI-1/2 task files ({"train": [...], "test": [...]}); one entry per test pair with its answer."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    tasks: dict[str, dict[str, Any]] = {}
    for file in files:
        try:
            data = parse_json(file.read_text(encoding="utf-8"), str(file), ConfigError)
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{file}: not UTF-8 text (byte {exc.start})") from None
        train, tests = (data.get("train"), data.get("test")) if isinstance(data, dict) else (None, None)
        if not isinstance(train, list) or not isinstance(tests, list) or not tests:
            raise ConfigError(f"{file}: not an ARC task (needs `train` and `test` lists of input/output pairs)")
        for n, pair in enumerate(tests):
            if not isinstance(pair, dict) or not is_grid(pair.get("input")) or not is_grid(pair.get("output")):
                raise ConfigError(f"{file}: test pair {n} needs an `input` and an `output` grid")
            task_id = file.stem if len(tests) == 1 else f"{file.stem}:{n}"
            tasks[task_id] = {"train": train, "input": pair["input"], "output": pair["output"]}
    return tasks


def grid_prompt(train: list[dict[str, Any]], test_input: list[list[int]]) -> str:
    """The puzzle as text: the examples, then the test input and the answer format."""
    parts = ["Find the rule that turns each input grid into its output grid, then apply it to the test input. "
             "Cells are colours 0-9; each row is a line of digits."]
    parts += [f"Example {n} input:\n{render_grid(pair['input'])}\nExample {n} output:\n{render_grid(pair['output'])}"
              for n, pair in enumerate(train, 1)]
    parts += [f"Test input:\n{render_grid(test_input)}",
              "Answer with the test output grid as a JSON list of lists of integers, e.g. [[0,1],[1,0]]."]
    return "\n\n".join(parts)


def grade_grid_answer(output: str, expected: list[list[int]], attempts: int) -> Feedback:
    """Exact match of any of the last `attempts` grids in the output (ARC Prize allows two attempts)."""
    grids = parse_grids(output)
    if not grids:
        return Feedback(False, 0.0, "no grid found in the output (expected a JSON list of lists or digit rows)",
                        raw={"attempts": []})
    tried = grids[-attempts:]
    verdicts = [compare_grids(grid, expected) for grid in tried]
    success = "exact match" in verdicts
    return Feedback(success, 1.0 if success else 0.0, "; ".join(f"attempt {n}: {v}" for n, v in
                                                             enumerate(verdicts, 1)), raw={"attempts": tried})


class ArcAgi3Benchmark(IndexedBenchmark[dict[str, Any]]):
    """With data_path (or AGENT_EVOLVE_ARC_DATA): local ARC grid tasks. Without: ARC-AGI-3 games over the API."""

    name = "arc-agi-3"

    def __init__(self, data_path: str | None = None, seed: int = 0, test_fraction: float = 0.3, *,
                 api_key: str | None = None, base_url: str | None = None, games: list[str] | None = None,
                 max_actions: int = 400, attempts: int = 2, timeout: float = 30.0) -> None:
        super().__init__(seed, test_fraction)
        self.data_path = resolve_path(data_path, ENV_VAR)
        self.api_key = api_key
        self.base_url = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        self.games = games
        self.max_actions = max_actions
        self.attempts = attempts
        self.timeout = timeout

    @property
    def mode(self) -> str:
        """'local' with a data path, else 'api'."""
        return "local" if self.data_path else "api"

    def client(self) -> ArcApiClient:
        """An API client; MissingDependencyError naming ARC_API_KEY and the base URL when there is no key."""
        key = self.api_key or os.environ.get(API_KEY_ENV)
        if not key:
            raise MissingDependencyError(
                f"{self.name} plays games through the ARC-AGI-3 API at {self.base_url}, which needs network "
                f"access and an API key: set {API_KEY_ENV} (or pass api_key=; register at {DEFAULT_BASE_URL}). "
                f"Change the address with base_url= or {BASE_URL_ENV}. To grade offline instead, pass "
                f"data_path= (or set {ENV_VAR}) to a folder of ARC-AGI JSON tasks.")
        return ArcApiClient(key, self.base_url, self.timeout)

    def _load(self) -> dict[str, dict[str, Any]]:
        """Local tasks from disk, or the game list from the API (or from `games`)."""
        if self.data_path:
            path = Path(self.data_path)
            if not path.exists():
                raise MissingDependencyError(
                    f"No data for {self.name}: {self.data_path!r} does not exist. Pass data_path= or set {ENV_VAR} "
                    "to a folder of ARC-AGI task files, e.g. `git clone https://github.com/arcprize/ARC-AGI-2` "
                    "and its data/evaluation folder.")
            return load_local_tasks(path)
        if self.games is not None:
            return {game: {"game_id": game, "title": game} for game in self.games}
        return {str(g["game_id"]): {"game_id": str(g["game_id"]), "title": str(g.get("title", g["game_id"]))}
                for g in self.client().list_games()}

    def to_task(self, task_id: str, record: dict[str, Any]) -> Task:
        """A grid puzzle (answer kept private) or a game to play."""
        if self.mode == "local":
            return Task(id=task_id, input=grid_prompt(record["train"], record["input"]),
                        metadata={"mode": "local", "train": record["train"], "test_input": record["input"]})
        game = {"game_id": task_id, "base_url": self.base_url, "max_actions": self.max_actions}
        return Task(id=task_id, input=f"Play the ARC-AGI-3 game {record['title']} (game_id {task_id}) to win "
                                      f"every level, in at most {self.max_actions} actions.\n\n{GAME_NOTE}",
                    metadata={"mode": "api", "title": record["title"], GAME_KEY: game})

    def check_ready(self) -> None:
        """The local tasks load, or (API mode) ARC_API_KEY is set."""
        if self.mode == "api":
            self.client()
        self._index.value()

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Local: exact grid match. API: replay the agent's successful `arc_action` calls on a fresh game of its own
        scorecard, so the score comes from the game server (the games are deterministic)."""
        record = self._index.get(task.id, self.name)
        if self.mode == "local":
            return grade_grid_answer(trajectory.output, record["output"], self.attempts)
        actions = played_actions(trajectory)[: self.max_actions]
        if not actions:
            return Feedback(False, 0.0, f"no game actions in the trajectory (the agent plays through the "
                                        f"`{ACTION_TOOL}` tool)", raw={"actions": 0})
        frame, sent = self.client().play(task.id, actions, tags=["agent-evolve", "grading"])
        levels, total, state = frame_progress(frame)
        score = levels / total if total else float(state == "WIN")
        return Feedback(state == "WIN", round(score, 4), f"{state}: {levels}/{total} levels after {sent} actions",
                        raw={"state": state, "levels_completed": levels, "win_levels": total, "actions": sent})


def played_actions(trajectory: Trajectory) -> list[ArcAction]:
    """The actions of the trajectory's successful game-tool calls, in the order they were played."""
    return [ArcAction.from_arguments(step["arguments"]) for step in trajectory.steps
            if step.get("type") == "tool_call" and step.get("name") == ACTION_TOOL and not step.get("error")
            and isinstance(step.get("arguments"), dict)]
