"""Python code in a model's reply: a fenced block, a bare function amid prose, or a function-body continuation."""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from typing import Literal

from agent_evolve.text.fences import TAGGED_BLOCK

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_CODE_START = re.compile(r"^(?:async\s+def |def |class |import |from \S+ import |@)")
_PYTHON_TAGS = ("", "python", "python3", "py")

_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
                ast.AnnAssign)

ExtractionKind = Literal["function", "body", "none"]


@dataclass(frozen=True)
class ExtractedCode:
    """Code found in a reply: a module defining the function, or a body that continues the prompt."""

    code: str
    kind: ExtractionKind


def _parsed(code: str) -> ast.Module | None:
    """`code` parsed, None when it is not valid Python on its own."""
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def defines_function(code: str, name: str) -> bool:
    """Whether `code` parses and defines `name` at module level."""
    tree = _parsed(code)
    return tree is not None and any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
                                    for node in tree.body)


def keep_definitions(code: str) -> str:
    """Only the imports, functions, classes and assignments of `code` (no example calls, prints, tests or __future__
    imports, which are legal only at the top of a file and the prompt comes first)."""
    tree = ast.parse(code)
    lines = code.split("\n")
    kept = []
    for node in tree.body:
        if isinstance(node, _DEFINITIONS) and not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            decorators = getattr(node, "decorator_list", [])
            start = min([node.lineno, *(decorator.lineno for decorator in decorators)]) - 1
            kept.append("\n".join(lines[start : node.end_lineno]))
    return "\n\n".join(kept) + "\n"


def _longest_parsable(lines: list[str]) -> str | None:
    """The longest prefix of `lines` (at least one line) that parses, dropping trailing prose."""
    for end in range(len(lines), 0, -1):
        code = "\n".join(lines[:end]).rstrip()
        if code and _parsed(code) is not None:
            return code + "\n"
    return None


def _bare_function(text: str, entry_point: str) -> str | None:
    """Code starting at the first import/def line of unfenced text, when it defines `entry_point`."""
    lines = text.split("\n")
    for start, line in enumerate(lines):
        if _CODE_START.match(line):
            code = _longest_parsable(lines[start:])
            if code is not None and defines_function(code, entry_point):
                return code
    return None


def _as_body(text: str) -> str:
    """A function body from `text`: kept as is when indented, indented four spaces when flush left."""
    body = text.strip("\n")
    first = next((line for line in body.split("\n") if line.strip()), "")
    if first and not first[0].isspace():
        body = textwrap.indent(textwrap.dedent(body), "    ")
    return body + "\n"


def extract_code(output: str, entry_point: str) -> ExtractedCode:
    """The code in `output` for function `entry_point`; prefers a block that defines the function, last one first."""
    text = _THINK.sub("", output)
    if not text.strip():
        return ExtractedCode("", "none")
    blocks = [body for tag, body in TAGGED_BLOCK.findall(text) if tag.lower() in _PYTHON_TAGS]
    for block in reversed(blocks):
        if defines_function(block, entry_point):
            return ExtractedCode(keep_definitions(block), "function")
    if blocks:
        return ExtractedCode(_as_body(blocks[0]), "body")
    bare = _bare_function(text, entry_point)
    if bare is not None:
        return ExtractedCode(keep_definitions(bare), "function")
    return ExtractedCode(_as_body(text), "body")


def assemble_program(prompt: str, extracted: ExtractedCode) -> str:
    """The prompt (for its imports and helpers), then the completion: a full function replaces the prompt's stub,
    a body continues it."""
    head = prompt if prompt.endswith("\n") else prompt + "\n"
    joiner = "\n" if extracted.kind == "function" else ""
    return f"{head}{joiner}{extracted.code}"
