"""Markdown code fences: every pattern the package reads them with, in one place; readers differ on purpose (which tags
count, whether an open block counts, whether a fence stands on its own line), and each pattern names its rule.
"""

from __future__ import annotations

import re

# A line that starts a fence (opening or closing)
FENCE_LINE = re.compile(r"^[ \t]*```", re.MULTILINE)
# The opening fence at the very start of a text, with its tag and line end
FENCE_OPENING = re.compile(r"^```\S*\n?")
# An opening fence line of a Python block (or an untagged one)
PYTHON_OPENING_LINE = re.compile(r"^[ \t]*```[ \t]*(?:python3?|py)?[ \t]*$", re.IGNORECASE)
# The body of a Python (or untagged) block; a block left open runs to the end of the text
PYTHON_BLOCK = re.compile(r"```(?:python3?|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
# The body of a closed Python (or untagged) block
CLOSED_PYTHON_BLOCK = re.compile(r"```(?:python3?|py)?[ \t]*\n(.*?)```", re.DOTALL)
# The body of a closed bash/sh/shell block
SHELL_BLOCK = re.compile(r"```(?:bash|sh|shell)[ \t]*\n(.*?)```", re.DOTALL)
# (tag, body) of any block; a block left open runs to the end of the text
TAGGED_BLOCK = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
# (tag, body) of a block whose opening and closing fences each stand on a line of their own
LINE_TAGGED_BLOCK = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)
# The body of a closed JSON (or untagged) block, the opening fence's line end optional
JSON_BLOCK = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
# A text that is nothing but one JSON (or untagged) block: its body
WHOLE_JSON_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
# A JSON object alone in a closed JSON (or untagged) block
JSON_OBJECT_BLOCK = re.compile(r"```(?:json)?[ \t]*\n(\{.*?\})\s*```", re.DOTALL)
