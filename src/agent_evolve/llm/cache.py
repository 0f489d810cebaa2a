"""An on-disk response cache keyed by model, messages, tools and parameters, for reproducible re-runs.

A reply read back carries the usage of the call that made it, so budgets and cost tables count what a run used
whether its replies were fresh or replayed (an arm that shares another's replies gets no larger budget).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.llm.base import Completion, Message, ToolCall, ToolSpec
from agent_evolve.types import Usage


def cache_key(model: str, messages: list[Message], tools: list[ToolSpec] | None, params: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of everything that determines a reply."""
    payload = {
        "model": model,
        "messages": [m.to_dict() for m in messages],
        "tools": [asdict(t) for t in tools or []],
        "params": params,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _to_dict(completion: Completion) -> dict[str, Any]:
    return {
        "text": completion.text,
        "tool_calls": [asdict(c) for c in completion.tool_calls],
        "finish_reason": completion.finish_reason,
        "model": completion.model,
        "usage": completion.usage.to_dict(),
    }


def _from_dict(data: dict[str, Any]) -> Completion:
    return Completion(
        text=data["text"],
        tool_calls=[ToolCall(**c) for c in data["tool_calls"]],
        finish_reason=data["finish_reason"],
        model=data["model"],
        usage=Usage(**data.get("usage", {})),
    )


class ResponseCache:
    """Completions stored as JSON files under a directory, each with the usage of the call that made it."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        """The cached completion for key, or None (also for an unreadable entry)."""
        try:
            return _from_dict(json.loads(read_regular_text(self._path(key))))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, completion: Completion) -> None:
        """Store completion under key, atomically."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(_to_dict(completion), ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
