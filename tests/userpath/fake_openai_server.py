"""A deterministic OpenAI-compatible chat-completions model for a user's own task files, on the llm tests' loopback
server (`tests/llm/wire_servers.py`). It answers a task it knows from the files it was given: right when the task
is `easy` or the system prompt holds worked examples or rules an engine added, else a fixed wrong answer; asked for
a Python program, always with one that prints the right answer. An engine's request for JSON gets the smallest
value its schema accepts, a skill router `NONE`. As a script (`python fake_openai_server.py tasks.jsonl ...`) it
prints its base URL and serves until stopped, to point the command line at it by hand."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))
from wire_servers import Reply, Request, WireServer, openai_body  # noqa: E402 - the llm tests' loopback server

SCHEMA_NOTE = "JSON value matching this JSON Schema:\n"
LEARNED_MARKERS = ("example", "rule", "lesson", "note")  # words an engine's addition to the prompt brings


def schema_instance(schema: dict[str, Any]) -> Any:
    """The smallest value `schema` accepts (the first of an enum or a union, required keys only, minimum items)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return schema_instance(schema[union][0])
    kind = schema.get("type", "object")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: schema_instance(properties.get(key, {"type": "string"})) for key in schema.get("required", [])}
    if kind == "array":
        return [schema_instance(schema.get("items", {"type": "string"})) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    length = max(schema.get("minLength", 0), 12)
    return ("a-useful-lesson-" * 4)[:min(length, schema.get("maxLength", length))]


def load_tasks(paths: Iterable[Path]) -> dict[str, dict[str, Any]]:
    """Each task's input mapped to its line, from jsonl task files."""
    rows = [json.loads(line) for path in paths for line in path.read_text().splitlines() if line.strip()]
    return {row["input"]: row for row in rows if isinstance(row, dict) and isinstance(row.get("input"), str)}


def task_answer(row: dict[str, Any], system: str) -> str:
    """The task's reference answer when it is easy or the prompt learned something, else its `wrong` answer."""
    learned = any(marker in system.lower() for marker in LEARNED_MARKERS)
    right = str(row.get("answer", row.get("expected", "")))
    return right if row.get("metadata", {}).get("easy") or learned else str(row.get("metadata", {}).get("wrong", "?"))


def rule_model(tasks: dict[str, dict[str, Any]]) -> Callable[[Request], Reply]:
    """The model's replies to chat-completions requests, from the tasks it knows."""

    def reply(request: Request) -> Reply:
        messages = request.body["messages"]
        system = " ".join(str(m.get("content") or "") for m in messages if m["role"] == "system")
        last = str(messages[-1].get("content") or "")
        if SCHEMA_NOTE in last:
            schema = json.loads(last.split(SCHEMA_NOTE, 1)[1].strip().splitlines()[0])
            return Reply(body=openai_body(json.dumps(schema_instance(schema)), []))
        if "Reply with only its name, or NONE" in last:
            return Reply(body=openai_body("NONE", []))
        row = tasks.get(last.strip()) or next((r for text, r in tasks.items() if text in last), None)
        if row is not None and "Python program" in system:  # a program computes the answer exactly
            right = str(row.get("answer", row.get("expected", "")))
            return Reply(body=openai_body(f"```python\nprint({right!r})\n```", []))
        if row is not None:
            return Reply(body=openai_body(task_answer(row, system), []))
        return Reply(body=openai_body("I have nothing to add.", []))

    return reply


def serve(paths: Iterable[Path]) -> WireServer:
    """A started server answering from the task files at `paths`; its base URL is `server.url + '/v1'`."""
    return WireServer(rule_model(load_tasks(paths))).start()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tasks", nargs="+", type=Path)
    args = parser.parse_args()
    print(f"{serve(args.tasks).url}/v1", flush=True)
    threading.Event().wait()
