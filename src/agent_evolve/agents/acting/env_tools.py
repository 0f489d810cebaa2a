"""The built-in tools of an agent that acts (bash, view, edit, create, search, submit) over a task environment;
outputs are clipped to head and tail; a tool that cannot act raises ActionError saying what to do instead."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from agent_evolve.environments.task_env import TaskEnvironment, checked_relative
from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import ToolSpec
from agent_evolve.llm.tool_loop import Tool

VIEW_MAX_LINES = 200  # lines `view` shows at once when no range is given
SEARCH_MAX_MATCHES = 100  # matching lines `search` returns at most
EDIT_CONTEXT_LINES = 3  # lines shown around an edit, so the model sees the result without another view


class ActionError(AgentEvolveError):
    """A tool call that could not be carried out (no match, several matches, not a file); the model sees why."""


@dataclass
class Submission:
    """Set by the `submit` tool: the loop stops after the turn in which it was called."""

    submitted: bool = False
    summary: str = ""


def clip(text: str, limit: int) -> str:
    """`text` within `limit` characters: its head and tail, with a note of how much was cut between them."""
    if len(text) <= limit:
        return text
    head = limit // 3
    tail = limit - head
    return f"{text[:head]}\n[... {len(text) - limit} characters cut ...]\n{text[-tail:]}"


def numbered(lines: list[str], first: int) -> str:
    """Lines prefixed with their 1-based numbers, as `view` shows them."""
    return "\n".join(f"{first + i:>6}\t{line}" for i, line in enumerate(lines))


def _string(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


def _integer(description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "description": description}


def _spec(name: str, description: str, properties: dict[str, Any], required: list[str]) -> ToolSpec:
    return ToolSpec(name, description, {"type": "object", "properties": properties, "required": required})


@dataclass
class EnvironmentTools:
    """The built-in tools bound to one environment, one submission and the observation limits."""

    environment: TaskEnvironment
    submission: Submission
    timeout_s: float
    max_observation_chars: int

    def tools(self) -> list[Tool]:
        """The six tools, in the order the model sees them."""
        where = f"Paths are relative to the work tree ({self.environment.workdir})."
        return [
            Tool(_spec("bash", f"Run a bash command in the work tree ({self.environment.workdir}) and see its output "
                               "and exit code. Use it to explore, run scripts and run the tests.",
                       {"command": _string("the command line")}, ["command"]), self.bash),
            Tool(_spec("view", f"Show a file with line numbers (optionally a range), or list a folder. {where}",
                       {"path": _string("file or folder"), "start_line": _integer("first line to show"),
                        "end_line": _integer("last line to show")}, ["path"]), self.view),
            Tool(_spec("edit", "Replace one exact, unique occurrence of old_text in a file with new_text. Copy "
                               f"old_text exactly from view, indentation included. {where}",
                       {"path": _string("the file"), "old_text": _string("text to replace, exactly as in the file"),
                        "new_text": _string("the replacement")}, ["path", "old_text", "new_text"]), self.edit),
            Tool(_spec("create", f"Create a file (or replace its whole content). {where}",
                       {"path": _string("the new file"), "content": _string("its full text")},
                       ["path", "content"]), self.create),
            Tool(_spec("search", f"Find lines containing a text in the work tree's files (like grep -rn). {where}",
                       {"text": _string("the text to find"), "path": _string("folder or file to search (default .)")},
                       ["text"]), self.search),
            Tool(_spec("submit", "Finish the task: call this once your change is made and checked.",
                       {"summary": _string("one or two sentences on what you changed")}, []), self.submit),
        ]

    def bash(self, arguments: dict[str, Any]) -> str:
        result = self.environment.exec(arguments["command"], timeout_s=self.timeout_s)
        return clip(result.render(), self.max_observation_chars)

    def view(self, arguments: dict[str, Any]) -> str:
        path = arguments["path"]
        try:
            text = self.environment.read_file(path)
        except (FileNotFoundError, IsADirectoryError):
            listing = self.environment.list_files(path)
            return clip("\n".join(listing) or "(empty folder)", self.max_observation_chars)
        lines = text.splitlines()
        start = arguments.get("start_line", 1)
        end = arguments.get("end_line", start + VIEW_MAX_LINES - 1)
        if start > max(len(lines), 1):
            raise ActionError(f"{path} has {len(lines)} lines; start_line {start} is past its end")
        shown = numbered(lines[start - 1:end], start)
        more = f"\n[lines {end + 1}-{len(lines)} not shown; ask for a range]" if end < len(lines) else ""
        return clip(shown + more, self.max_observation_chars)

    def edit(self, arguments: dict[str, Any]) -> str:
        path, old, new = arguments["path"], arguments["old_text"], arguments["new_text"]
        if not old:
            raise ActionError("old_text is empty; copy the exact lines to replace from view")
        text = self.environment.read_file(path)
        count = text.count(old)
        if count == 0:
            hint = (" (it matches once its leading and trailing whitespace is stripped: copy the indentation "
                    "exactly)" if old.strip() and old.strip() in text else "")
            raise ActionError(f"old_text was not found in {path}{hint}; view the file and copy the lines exactly")
        if count > 1:
            raise ActionError(f"old_text occurs {count} times in {path}; include more surrounding lines so that "
                              "it is unique")
        offset = text.index(old)
        updated = text[:offset] + new + text[offset + len(old):]
        self.environment.write_file(path, updated)
        first = text[:offset].count("\n") + 1
        lines = updated.splitlines()
        low = max(1, first - EDIT_CONTEXT_LINES)
        high = min(len(lines), first + new.count("\n") + EDIT_CONTEXT_LINES)
        return clip(f"Edited {path}. Lines {low}-{high} now:\n{numbered(lines[low - 1:high], low)}",
                    self.max_observation_chars)

    def create(self, arguments: dict[str, Any]) -> str:
        path, content = arguments["path"], arguments["content"]
        self.environment.write_file(path, content)
        return f"Wrote {path} ({len(content.splitlines())} lines)."

    def search(self, arguments: dict[str, Any]) -> str:
        text, path = arguments["text"], arguments.get("path", ".")
        checked_relative(path)
        command = (f"grep -rnIF --exclude-dir=.git -e {shlex.quote(text)} -- {shlex.quote(path)} "
                   f"| head -n {SEARCH_MAX_MATCHES}")
        result = self.environment.exec(command, timeout_s=self.timeout_s)
        found = result.output.strip()
        if found:
            return clip(found, self.max_observation_chars)
        return f"No line contains {text!r} (searched {path}); try a shorter text, such as one name."

    def submit(self, arguments: dict[str, Any]) -> str:
        self.submission.submitted = True
        self.submission.summary = str(arguments.get("summary", ""))
        return "Submitted."
