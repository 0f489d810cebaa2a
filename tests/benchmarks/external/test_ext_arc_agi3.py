"""ARC-AGI-3: grids in local mode; the observe-act game tool, its replay grading and the API client, against a
local fake game server."""

from __future__ import annotations

import json
import re
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from agent_evolve.agents.arc_game import GameActionError, arc_game_tools
from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.benchmarks.adapters.arc_agi3 import (
    ArcAgi3Benchmark,
    grade_grid_answer,
    load_local_tasks,
)
from agent_evolve.benchmarks.support.arc_api import (
    ArcAction,
    ArcApiClient,
    frame_progress,
    render_frame,
)
from agent_evolve.benchmarks.support.grids import (
    compare_grids,
    parse_grids,
    render_grid,
)
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.llm.base import Completion, Message, ToolCall
from agent_evolve.registry import seed_path
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task, Trajectory

KEY = "test-key"


@pytest.fixture
def local(fixtures: Path) -> str:
    return str(fixtures / "arc" / "local")


def test_grid_from_json_list() -> None:
    assert parse_grids("The answer is [[0, 6, 5], [7, 0, 0]].") == [[[0, 6, 5], [7, 0, 0]]]


def test_grid_from_digit_rows_plain_and_spaced() -> None:
    assert parse_grids("Output:\n065\n700\nDone.") == [[[0, 6, 5], [7, 0, 0]]]
    assert parse_grids("Output:\n0 6 5\n7 0 0\n") == [[[0, 6, 5], [7, 0, 0]]]
    assert parse_grids("```\n7 5 6\n```") == [[[7, 5, 6]]]


def test_last_grid_wins_and_junk_is_ignored() -> None:
    text = "Input was [[5,6,0],[0,0,7]]. Not a grid: [[1,2],[3]] or [[10]]. So:\n```json\n[[0,6,5],[7,0,0]]\n```"
    assert parse_grids(text) == [[[5, 6, 0], [0, 0, 7]], [[0, 6, 5], [7, 0, 0]]]
    assert parse_grids("The year 2024 was good.") == [] and parse_grids("no grid") == []


def test_render_and_compare() -> None:
    assert render_grid([[0, 1], [2, 3]]) == "01\n23"
    assert compare_grids([[1, 2]], [[1, 2]]) == "exact match"
    assert compare_grids([[1, 2]], [[1], [2]]) == "wrong shape: 1x2, expected 2x1"
    assert compare_grids([[1, 0]], [[1, 2]]) == "1 of 2 cells differ"


def test_grading_allows_two_attempts() -> None:
    expected = [[7, 5, 6]]
    assert grade_grid_answer("[[7,5,6]]", expected, 2).success
    two = grade_grid_answer("Attempt 1: [[1,1,1]]\nAttempt 2: [[7,5,6]]", expected, 2)
    assert two.success and two.detail == "attempt 1: 3 of 3 cells differ; attempt 2: exact match"
    assert not grade_grid_answer("Attempt 1: [[7,5,6]]\nAttempt 2: [[1,1,1]]", expected, 1).success
    assert not grade_grid_answer("[[7,5,6]] then [[1,1,1]] then [[2,2,2]]", expected, 2).success
    assert grade_grid_answer("nothing", expected, 2).detail.startswith("no grid found")


def test_local_tasks_one_per_test_pair(local: str) -> None:
    tasks = load_local_tasks(Path(local))
    assert sorted(tasks) == ["3b4c5d6e", "7f8e9d0c:0", "7f8e9d0c:1", "a0b1c2d3"]
    assert tasks["7f8e9d0c:1"]["output"] == [[5], [6]]


def test_local_mode_prompt_hides_the_answer_and_grades(local: str) -> None:
    bench = ArcAgi3Benchmark(data_path=local, test_fraction=0.5)
    tasks = {t.id: t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None)}
    assert bench.mode == "local" and len(tasks) == 4
    flip = tasks["3b4c5d6e"]
    assert "Example 1 input:\n100\n220\nExample 1 output:\n001\n022" in flip.input
    assert "Test input:\n560\n007" in flip.input and "065" not in flip.input
    good = bench.evaluate(flip, Trajectory(flip.id, "Mirror each row:\n[[0,6,5],[7,0,0]]"))
    bad = bench.evaluate(flip, Trajectory(flip.id, "[[5,6,0],[0,0,7]]"))
    assert good.success and good.score == 1.0 and not bad.success and bad.score == 0.0


def test_local_split_is_deterministic(local: str) -> None:
    first = [t.id for t in ArcAgi3Benchmark(data_path=local, seed=5).get_tasks("train")]
    assert first == [t.id for t in ArcAgi3Benchmark(data_path=local, seed=5).get_tasks("train")]


@pytest.mark.parametrize("content, problem", [
    (json.dumps({"train": [], "test": [{"input": [[1]]}]}).encode(), "test pair 0 needs an `input` and an `output`"),
    (json.dumps({"train": [], "test": [[1]]}).encode(), "test pair 0 needs an `input` and an `output`"),
    (b"[1, 2]", "not an ARC task"), (b"\xff\xfe", "not UTF-8")])
def test_a_bad_local_file_is_a_config_error_naming_it(tmp_path: Path, content: bytes, problem: str) -> None:
    """A list or bytes that are not UTF-8 were a traceback, not an error the command line reports."""
    (tmp_path / "x.json").write_bytes(content)
    with pytest.raises(ConfigError, match=f"x.json: {re.escape(problem)}"):
        load_local_tasks(tmp_path)


def test_missing_local_path_says_where_to_get_tasks(tmp_path: Path) -> None:
    with pytest.raises(MissingDependencyError, match=r"AGENT_EVOLVE_ARC_DATA.*ARC-AGI-2"):
        ArcAgi3Benchmark(data_path=str(tmp_path / "none")).get_tasks()


def test_actions_from_tool_arguments_and_their_validity() -> None:
    assert ArcAction.from_arguments({"action": "action6", "x": 12, "y": 40}) == ArcAction("ACTION6", 12, 40)
    assert ArcAction.from_arguments({"action": "RESET"}).valid
    assert not ArcAction("ACTION6", 3, 70).valid and not ArcAction("ACTION9").valid and not ArcAction("ACTION6").valid


def test_frame_progress_reads_both_api_versions() -> None:
    assert frame_progress({"levels_completed": 1, "win_levels": 3, "state": "NOT_FINISHED"}) == (1, 3, "NOT_FINISHED")
    assert frame_progress({"score": 2, "win_score": 2, "state": "WIN"}) == (2, 2, "WIN")


def test_api_mode_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARC_API_KEY", raising=False)
    monkeypatch.delenv("AGENT_EVOLVE_ARC_DATA", raising=False)
    bench = ArcAgi3Benchmark()
    assert bench.mode == "api"
    with pytest.raises(MissingDependencyError) as err:
        bench.get_tasks()
    message = str(err.value)
    assert "ARC_API_KEY" in message and "base_url=" in message and "https://three.arcprize.org" in message


def test_unreachable_api_names_the_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_ARC_DATA", raising=False)
    bench = ArcAgi3Benchmark(api_key=KEY, base_url="http://127.0.0.1:9", timeout=2)
    with pytest.raises(MissingDependencyError, match=r"not reachable at http://127\.0\.0\.1:9.*base_url="):
        bench.get_tasks()


class _Game(BaseHTTPRequestHandler):
    """A two-level game: ACTION1 completes a level, ACTION2 loses, RESET restarts."""

    log: ClassVar[list[tuple[str, dict[str, Any]]]] = []
    levels: ClassVar[int] = 0

    def log_message(self, *args: Any) -> None:
        """Quiet."""

    def _send(self, code: int, body: Any, cookie: bool = False) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if cookie:
            self.send_header("Set-Cookie", "AWSALB=node-7; Path=/")
        self.end_headers()
        self.wfile.write(data)

    def _frame(self, state: str) -> dict[str, Any]:
        return {"game_id": "ls20-016295f7601e", "guid": "g-1", "frame": [[[_Game.levels] * 4] * 4], "state": state,
                "levels_completed": _Game.levels, "win_levels": 2, "available_actions": [1, 2, 6]}

    def do_GET(self) -> None:
        if self.headers.get("X-API-Key") != KEY:
            return self._send(401, {"error": "AUTHENTICATION_FAILED"})
        self._send(200, [{"game_id": "ls20-016295f7601e", "title": "LS20"},
                         {"game_id": "ft09-9ab2447a", "title": "FT09"}])

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Game.log.append((self.path, body))
        if self.headers.get("X-API-Key") != KEY:
            return self._send(401, {"error": "AUTHENTICATION_FAILED"})
        if self.path == "/api/scorecard/open":
            return self._send(200, {"card_id": "card-1"}, cookie=True)
        if "AWSALB=node-7" not in (self.headers.get("Cookie") or ""):
            return self._send(400, {"error": "no session affinity"})
        if self.path == "/api/scorecard/close":
            return self._send(200, {"card_id": body["card_id"], "won": int(_Game.levels == 2)})
        if self.path == "/api/cmd/RESET":
            _Game.levels = 0
            return self._send(200, self._frame("NOT_FINISHED"))
        if self.path == "/api/cmd/ACTION1":
            _Game.levels += 1
            return self._send(200, self._frame("WIN" if _Game.levels == 2 else "NOT_FINISHED"))
        if self.path == "/api/cmd/ACTION2":
            return self._send(200, self._frame("GAME_OVER"))
        return self._send(200, self._frame("NOT_FINISHED"))


@pytest.fixture
def server() -> Iterator[str]:
    _Game.log, _Game.levels = [], 0
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Game)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_api_games_become_tasks(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_ARC_DATA", raising=False)
    bench = ArcAgi3Benchmark(api_key=KEY, base_url=server, test_fraction=0.5)
    tasks = bench.get_tasks("train") + bench.get_tasks("test")
    assert sorted(t.id for t in tasks) == ["ft09-9ab2447a", "ls20-016295f7601e"]
    ls20 = next(t for t in tasks if t.id == "ls20-016295f7601e")
    assert "LS20" in ls20.input and "`arc_action` tool" in ls20.input and "at most 400 actions" in ls20.input
    assert ls20.metadata["arc_game"] == {"game_id": "ls20-016295f7601e", "base_url": server, "max_actions": 400}


def _played(*actions: dict[str, Any], error: bool = False) -> list[dict[str, Any]]:
    return [{"type": "tool_call", "name": "arc_action", "arguments": a, "output": "", "error": error}
            for a in actions]


def test_api_grading_replays_the_played_actions(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_ARC_DATA", raising=False)
    bench = ArcAgi3Benchmark(api_key=KEY, base_url=server, games=["ls20-016295f7601e"])
    assert bench.get_tasks("test") == []
    task = bench.get_tasks("train")[0]
    steps = (_played({"action": "ACTION6", "x": 10, "y": 20}) + _played({"action": "ACTION2"}, error=True)
             + _played({"action": "ACTION1"}, {"action": "ACTION1"}, {"action": "ACTION1"}))
    feedback = bench.evaluate(task, Trajectory(task.id, "done", steps))
    assert feedback.success and feedback.score == 1.0 and feedback.raw["actions"] == 3
    paths = [path for path, _ in _Game.log]
    assert paths == ["/api/scorecard/open", "/api/cmd/RESET", "/api/cmd/ACTION6", "/api/cmd/ACTION1",
                     "/api/cmd/ACTION1", "/api/scorecard/close"]
    assert _Game.log[2][1] == {"game_id": "ls20-016295f7601e", "guid": "g-1", "x": 10, "y": 20}
    assert _Game.log[1][1] == {"game_id": "ls20-016295f7601e", "card_id": "card-1"}


def test_api_replay_stops_at_game_over(server: str) -> None:
    client = ArcApiClient(KEY, server)
    frame, sent = client.play("ls20-016295f7601e", [ArcAction("ACTION1"), ArcAction("ACTION2"), ArcAction("ACTION1")],
                              tags=["t"])
    assert frame_progress(frame) == (1, 2, "GAME_OVER") and sent == 2


def test_api_rejected_key_is_named(server: str) -> None:
    with pytest.raises(MissingDependencyError, match=r"rejected the API key.*ARC_API_KEY"):
        ArcApiClient("wrong", server).list_games()


def test_a_trajectory_without_game_actions_scores_zero_without_playing(server: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_ARC_DATA", raising=False)
    bench = ArcAgi3Benchmark(api_key=KEY, base_url=server, games=["ft09-9ab2447a"])
    feedback = bench.evaluate(Task(id="ft09-9ab2447a", input=""), Trajectory("ft09-9ab2447a", "ACTION1\nACTION1"))
    assert not feedback.success and "no game actions" in feedback.detail and _Game.log == []


def test_a_frame_is_rendered_with_state_levels_and_hex_colours() -> None:
    frame = {"state": "NOT_FINISHED", "levels_completed": 1, "win_levels": 3, "available_actions": [1, 6],
             "frame": [[[0, 0]], [[10, 3], [15, 0]]]}
    assert render_frame(frame, 4) == ("state NOT_FINISHED; levels 1/3; actions sent 4; available: ACTION1, ACTION6\n"
                                      "frame (2x2, colours 0-15 as hex digits, row 0 at the top):\na3\nf0")


def _frame_in(messages: list[Message]) -> str:
    return messages[-1].content if messages[-1].role == "tool" else ""


def test_the_reference_agent_plays_frame_by_frame_and_the_replay_grades_it(
        server: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The model sees each frame before it chooses the next action; actions and frames land in the trajectory."""
    monkeypatch.delenv("AGENT_EVOLVE_ARC_DATA", raising=False)
    monkeypatch.setenv("ARC_API_KEY", KEY)
    bench = ArcAgi3Benchmark(api_key=KEY, base_url=server, games=["ls20-016295f7601e"], max_actions=10)
    task = bench.get_tasks("train")[0]

    def act(action: str) -> Completion:
        return Completion("", [ToolCall(f"c{len(_Game.log)}", "arc_action", {"action": action})],
                          finish_reason="tool_calls")

    def player(messages: list[Message]) -> Completion | str:
        frame = _frame_in(messages)
        if "state WIN" in frame:
            return "Won both levels."
        return act("ACTION1") if "levels" in frame else act("RESET")

    workspace = tmp_path / "arc"
    shutil.copytree(seed_path("arc"), workspace)
    model = ScriptedLLM([player] * 4)
    trajectory = ReferenceAgent(workspace, llm=model).solve(task)
    calls = [step for step in trajectory.steps if step["type"] == "tool_call"]
    assert [c["arguments"]["action"] for c in calls] == ["RESET", "ACTION1", "ACTION1"]
    assert "levels 0/2" in calls[0]["output"] and "\n0000\n" in calls[0]["output"]
    assert "state WIN; levels 2/2" in calls[2]["output"] and "2222" in calls[2]["output"]
    assert trajectory.output == "Won both levels."
    played = [path for path, _ in _Game.log]
    assert played == ["/api/scorecard/open", "/api/cmd/RESET", "/api/cmd/RESET", "/api/cmd/ACTION1",
                      "/api/cmd/ACTION1", "/api/scorecard/close"]
    _Game.log.clear()
    feedback = bench.evaluate(task, trajectory)
    assert feedback.success and feedback.raw == {"state": "WIN", "levels_completed": 2, "win_levels": 2,
                                                 "actions": 3}


def test_the_game_tool_refuses_actions_after_a_win_and_the_scorecard_closes_on_errors(
        server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARC_API_KEY", KEY)
    task = Task("ls20-016295f7601e", "play", {"arc_game": {"game_id": "ls20-016295f7601e", "base_url": server,
                                                           "max_actions": 3}})
    with pytest.raises(RuntimeError, match="stop"), arc_game_tools(task) as [tool]:
        tool.fn({"action": "ACTION1"})
        assert "state WIN" in tool.fn({"action": "ACTION1"})
        with pytest.raises(GameActionError, match=r"the game is over \(WIN\)"):
            tool.fn({"action": "ACTION1"})
        with pytest.raises(GameActionError, match="not a valid action"):
            tool.fn({"action": "ACTION6", "x": 99, "y": 0})
        raise RuntimeError("stop")
    assert _Game.log[-1][0] == "/api/scorecard/close"
    monkeypatch.delenv("ARC_API_KEY")
    with pytest.raises(MissingDependencyError, match="ARC_API_KEY"), arc_game_tools(task):
        pass
