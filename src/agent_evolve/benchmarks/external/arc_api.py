"""A client of the ARC-AGI-3 REST API (urllib, cookies kept for session affinity) and action parsing."""

from __future__ import annotations

import http.cookiejar
import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from agent_evolve.benchmarks.external.common import fenced_blocks
from agent_evolve.contract.safe_json import parse_json
from agent_evolve.errors import AgentEvolveError, MissingDependencyError

DEFAULT_BASE_URL = "https://three.arcprize.org"
API_KEY_ENV = "ARC_API_KEY"
BASE_URL_ENV = "ARC_BASE_URL"
ACTION_NAMES = ("RESET", "ACTION1", "ACTION2", "ACTION3", "ACTION4", "ACTION5", "ACTION6", "ACTION7")
_TOKEN = re.compile(r"\b(RESET|ACTION[1-7])\b(?:[ \t]*[(:]?[ \t]*(?:x[ \t]*=[ \t]*)?(\d+)[ \t]*[, \t][ \t]*"
                    r"(?:y[ \t]*=[ \t]*)?(\d+)[ \t]*\)?)?")


@dataclass(frozen=True)
class ArcAction:
    """One game command; ACTION6 carries x and y in 0-63."""

    name: str
    x: int | None = None
    y: int | None = None

    @property
    def valid(self) -> bool:
        """Known name, and coordinates in range exactly when the action is ACTION6."""
        if self.name not in ACTION_NAMES:
            return False
        if self.name == "ACTION6":
            return self.x is not None and self.y is not None and 0 <= self.x <= 63 and 0 <= self.y <= 63
        return True


def _from_json(item: Any) -> ArcAction | None:
    """An action from "ACTION1" or {"action": "ACTION6", "x": 3, "y": 4} or {"id": 6, ...}."""
    if isinstance(item, str):
        return ArcAction(item.strip().upper())
    if isinstance(item, dict):
        name = item.get("action", item.get("name"))
        if name is None and isinstance(item.get("id"), int) and 0 <= item["id"] < len(ACTION_NAMES):
            name = ACTION_NAMES[item["id"]]
        data = item.get("data", item)
        if isinstance(name, str):
            x, y = data.get("x"), data.get("y")
            return ArcAction(name.upper(), int(x) if x is not None else None, int(y) if y is not None else None)
    return None


def parse_actions(text: str) -> list[ArcAction]:
    """Valid actions from a JSON list (in a ``` block or alone) or from tokens like `ACTION6 12 40`."""
    for candidate in [block.body for block in fenced_blocks(text)] + [text]:
        try:
            value = parse_json(candidate, "model output")
        except AgentEvolveError:
            continue
        if isinstance(value, list):
            actions = [a for a in map(_from_json, value) if a is not None]
            return [a for a in actions if a.valid]
    actions = [ArcAction(m.group(1), int(m.group(2)) if m.group(2) else None, int(m.group(3)) if m.group(3) else None)
               for m in _TOKEN.finditer(text)]
    return [a for a in actions if a.valid]


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
        body: dict[str, Any] = {"game_id": game_id, "card_id": card_id}
        if guid:
            body["guid"] = guid
        return dict(self._request("POST", "/api/cmd/RESET", body))

    def act(self, action: ArcAction, game_id: str, guid: str) -> dict[str, Any]:
        """Send ACTION1-7 to a running game and return the next frame."""
        body: dict[str, Any] = {"game_id": game_id, "guid": guid}
        if action.name == "ACTION6":
            body.update(x=action.x, y=action.y)
        return dict(self._request("POST", f"/api/cmd/{action.name}", body))

    def play(self, game_id: str, actions: list[ArcAction], tags: list[str]) -> tuple[dict[str, Any], int]:
        """Replay actions from a fresh game on a new scorecard; the last frame and how many actions ran."""
        card_id = self.open_scorecard(tags)
        sent = 0
        try:
            frame = self.reset(game_id, card_id)
            for action in actions:
                state = frame_progress(frame)[2]
                if state == "WIN" or (state == "GAME_OVER" and action.name != "RESET"):
                    break
                guid = str(frame.get("guid", ""))
                if action.name == "RESET":
                    frame = self.reset(game_id, card_id, guid)
                else:
                    frame = self.act(action, game_id, guid)
                sent += 1
        finally:
            self.close_scorecard(card_id)
        return frame, sent
