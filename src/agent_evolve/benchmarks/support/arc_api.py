"""A client of the ARC-AGI-3 REST API (urllib, cookies kept for session affinity), game sessions and frames."""

from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from agent_evolve.errors import AgentEvolveError, MissingDependencyError

DEFAULT_BASE_URL = "https://three.arcprize.org"
API_KEY_ENV = "ARC_API_KEY"
BASE_URL_ENV = "ARC_BASE_URL"
ACTION_TOOL = "arc_action"
"""The tool an agent plays with; the grader replays the actions of its successful calls."""
GAME_KEY = "arc_game"
"""Task metadata key of a game to play: {game_id, base_url, max_actions}."""
ACTION_NAMES = ("RESET", "ACTION1", "ACTION2", "ACTION3", "ACTION4", "ACTION5", "ACTION6", "ACTION7")


@dataclass(frozen=True)
class ArcAction:
    """One game command; ACTION6 carries x and y in 0-63."""

    name: str
    x: int | None = None
    y: int | None = None

    @classmethod
    def from_arguments(cls, arguments: dict[str, Any]) -> ArcAction:
        """The action an `arc_action` tool call asks for: {"action": "ACTION6", "x": 3, "y": 4}."""
        return cls(str(arguments.get("action", "")).upper(), arguments.get("x"), arguments.get("y"))

    @property
    def valid(self) -> bool:
        """Known name, and coordinates in range exactly when the action is ACTION6."""
        if self.name != "ACTION6":
            return self.name in ACTION_NAMES
        return self.x is not None and self.y is not None and 0 <= self.x <= 63 and 0 <= self.y <= 63


def frame_progress(frame: dict[str, Any]) -> tuple[int, int, str]:
    """Levels completed, levels to win and state (older API versions call them score and win_score)."""
    levels = int(frame.get("levels_completed", frame.get("score", 0)) or 0)
    total = int(frame.get("win_levels", frame.get("win_score", 0)) or 0)
    return levels, total, str(frame.get("state", "NOT_PLAYED"))


class ArcApiClient:
    """The ARC-AGI-3 API: list games, open and close scorecards, RESET and ACTION commands."""

    def __init__(self, api_key: str, base_url: str = DEFAULT_BASE_URL, timeout: float = 30.0) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One JSON request; missing key or network become MissingDependencyError naming the fix."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers={
            "X-API-Key": self.api_key, "Accept": "application/json", "Content-Type": "application/json"})
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8") or "null")
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")[:300]
            if exc.code in (401, 403):
                raise MissingDependencyError(
                    f"The ARC-AGI-3 API at {self.base_url} rejected the API key (HTTP {exc.code}): set "
                    f"{API_KEY_ENV} (or api_key=) to a valid key from {DEFAULT_BASE_URL}.") from exc
            raise AgentEvolveError(f"ARC-AGI-3 API {method} {path}: HTTP {exc.code}: {text}") from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise MissingDependencyError(
                f"The ARC-AGI-3 API is not reachable at {self.base_url} ({reason}): it needs network access. "
                f"Change the address with base_url= or {BASE_URL_ENV}, or grade offline in local mode "
                f"with data_path= (ARC-AGI JSON tasks).") from exc

    def list_games(self) -> list[dict[str, Any]]:
        """Available games as {game_id, title}."""
        return list(self._request("GET", "/api/games"))

    def open_scorecard(self, tags: list[str]) -> str:
        """A new scorecard's card_id."""
        return str(self._request("POST", "/api/scorecard/open", {"tags": tags})["card_id"])

    def close_scorecard(self, card_id: str) -> dict[str, Any]:
        """Close a scorecard and return its summary."""
        return dict(self._request("POST", "/api/scorecard/close", {"card_id": card_id}) or {})

    def reset(self, game_id: str, card_id: str, guid: str | None = None) -> dict[str, Any]:
        """Start a game (no guid) or reset the current level of a running one."""
        body = {"game_id": game_id, "card_id": card_id, **({"guid": guid} if guid else {})}
        return dict(self._request("POST", "/api/cmd/RESET", body))

    def act(self, action: ArcAction, game_id: str, guid: str) -> dict[str, Any]:
        """Send ACTION1-7 to a running game and return the next frame."""
        coordinates = {"x": action.x, "y": action.y} if action.name == "ACTION6" else {}
        body = {"game_id": game_id, "guid": guid, **coordinates}
        return dict(self._request("POST", f"/api/cmd/{action.name}", body))

    def play(self, game_id: str, actions: list[ArcAction], tags: list[str]) -> tuple[dict[str, Any], int]:
        """Replay actions from a fresh game on a new scorecard; the last frame and how many actions ran."""
        session = GameSession(self, game_id, tags)
        try:
            session.start()
            for action in actions:
                if not session.accepts(action):
                    break
                session.act(action)
        finally:
            session.close()
        return session.frame, session.sent


class GameSession:
    """One game on its own scorecard: `start` resets it, `act` returns the next frame (after WIN nothing more is
    accepted; after GAME_OVER only RESET)."""

    def __init__(self, client: ArcApiClient, game_id: str, tags: list[str]) -> None:
        self.client = client
        self.game_id = game_id
        self.tags = tags
        self.card_id: str | None = None
        self.frame: dict[str, Any] = {}
        self.sent = 0

    def start(self) -> None:
        """Open a scorecard and start the game at its first frame."""
        self.card_id = self.client.open_scorecard(self.tags)
        self.frame = self.client.reset(self.game_id, self.card_id)

    def accepts(self, action: ArcAction) -> bool:
        """Whether the game takes `action` in its current state."""
        state = frame_progress(self.frame)[2]
        return state != "WIN" and (state != "GAME_OVER" or action.name == "RESET")

    def act(self, action: ArcAction) -> dict[str, Any]:
        """Send one action (RESET restarts the level) and return the next frame."""
        if self.card_id is None:
            raise AgentEvolveError(f"ARC-AGI-3 game {self.game_id}: start the session before acting")
        guid = str(self.frame.get("guid", ""))
        if action.name == "RESET":
            self.frame = self.client.reset(self.game_id, self.card_id, guid)
        else:
            self.frame = self.client.act(action, self.game_id, guid)
        self.sent += 1
        return self.frame

    def close(self) -> None:
        """Close the scorecard (once; nothing to do when the session never started)."""
        card_id, self.card_id = self.card_id, None
        if card_id is not None:
            self.client.close_scorecard(card_id)


def render_frame(frame: dict[str, Any], sent: int) -> str:
    """What the player sees: state, levels, available actions, and the last grid as rows of hex colours."""
    levels, total, state = frame_progress(frame)
    available = ", ".join(ACTION_NAMES[a] if isinstance(a, int) and 0 <= a < len(ACTION_NAMES) else str(a)
                          for a in frame.get("available_actions", []))
    grids = frame.get("frame") or []
    grid = grids[-1] if grids and isinstance(grids[-1], list) else []
    rows = "\n".join("".join(format(int(cell), "x") for cell in row) for row in grid)
    size = f"{len(grid)}x{len(grid[0]) if grid else 0}"
    return (f"state {state}; levels {levels}/{total}; actions sent {sent}; available: {available or 'any'}\n"
            f"frame ({size}, colours 0-15 as hex digits, row 0 at the top):\n{rows}")
