"""The texts the engines send and write: short requests for small models, advice and seed skills per kind."""

from __future__ import annotations

SYSTEM = "You improve an AI agent from evidence of its mistakes. Be concrete and brief. Reply only with what is asked."

RULE_REQUEST = """{evidence}

Main problem: {focus}.
Suggested fix: {advice}
Write ONE rule the agent must follow to avoid this problem: one imperative sentence addressed to the agent
("Always ..." or "Never ..."), specific to these tasks, not already in its prompt."""

SKILL_REQUEST = """{evidence}

Write ONE skill for the agent about: {focus}.
Suggested fix: {advice}
name: lowercase words joined by hyphens, e.g. {name_hint}
description: one sentence naming the questions it helps with, e.g. "{description_hint}"
body: 3 to 6 short imperative lines addressed to the agent, under 800 characters."""

REFINE_REQUEST = """Skill {name} was used in {uses} task(s) and {outcome}:
{body}

{evidence}

Rewrite this skill so it prevents these failures. Keep the name {name}. Body: 3 to 6 short imperative lines,
under 800 characters."""

CURATE_REQUEST = """Proposed skill:
{candidate}

Most similar existing skill:
{existing}

Decide: ACCEPT (add the proposed skill), MERGE (combine it with the existing skill into one) or SKIP
(redundant, vague or wrong)."""

MERGE_REQUEST = """Combine these two skills into one skill that keeps what is useful in both.

Skill A:
{a}

Skill B:
{b}

name: lowercase words joined by hyphens. description: "TRIGGER when: ... DO NOT TRIGGER: ...".
body: short imperative lines, under 1000 characters."""

EDITS_REQUEST = """{evidence}

Propose at most {max_edits} edit(s) that fix the problems above. Allowed actions: {actions}.
- add_rule: {{"action": "add_rule", "rule": "<one sentence for the system prompt>"}}
- write_skill: {{"action": "write_skill", "name": "<kebab-case>", "description": "TRIGGER when: ...", "body": "..."}}
- add_memory: {{"action": "add_memory", "content": "<one lesson>"}}
- write_prompt: {{"action": "write_prompt", "prompt": "<the whole new system prompt>"}}
Reply {{"edits": [...]}}; an empty list when nothing should change."""

FORGE_SYSTEM = """You improve an AI agent by editing its workspace, the current directory: prompts/system.md is its
system prompt, skills/<name>/SKILL.md its skills, memory/<category>.jsonl its memory.{switches}
Tools: {tools}.
Call the tools, one at a time, to make at most {max_edits} edit(s) that fix the problems shown. When you have
finished, reply with one line saying what you changed."""

PROGRAM_SWITCH = """
With bash you may also write prompts/program.md: while it exists, the agent answers each task whose answer is a value
or short text (not code) with one Python program that prints it (the file is the instruction for writing it). It
helps where answers are computed (arithmetic, counting, dates, sorting, string work); remove it to answer in text."""

TOOL_LINES: dict[str, str] = {
    "bash": "bash (run a shell command in the workspace, e.g. cat prompts/system.md)",
    "add_rule": "add_rule (append one rule to the system prompt)",
    "write_prompt": "write_prompt (replace the whole system prompt)",
    "write_skill": "write_skill (create or replace a skill)",
    "add_memory": "add_memory (store one lesson)",
}

# one line of advice per failure kind: memory lessons, seed skills and rules are built from it
ADVICE: dict[str, str] = {
    "empty_output": "Always write the full solution and end with the final answer.",
    "answer_format": "End with exactly one final line in the requested answer format.",
    "no_answer": "End with exactly one final line in the requested answer format, holding only the answer.",
    "timeout": "Keep the solution simple and fast; avoid unbounded loops.",
    "syntax_error": "Check that the code parses: balanced brackets, correct indentation, complete statements.",
    "test_failure": "Trace the examples and edge cases (empty input, zero, negatives) before answering.",
    "runtime_error": "Guard against errors: check types, indexes, empty inputs and missing keys.",
    "reported_intermediate": "Re-read the question and report the quantity it asks for, not an intermediate result.",
    "unit_scale": "Convert each quantity to the unit the question asks for (percent, minutes, cents) first.",
    "rounding": "Keep exact values while computing; round only if the question says so.",
    "wrong_answer": "Recompute each step and check the result against the question before answering.",
    "tool_error": "Check a tool's arguments against its description before calling it.",
    "other": "Re-read the task and check the answer against every requirement.",
}


def advice(kind: str, marker: str | None) -> str:
    """The advice line for a failure kind, naming the requested answer form when there is one."""
    text = ADVICE.get(kind, ADVICE["other"])
    if marker and kind in ("no_answer", "answer_format", "empty_output"):
        text += f" The requested form is '{marker} <answer>'."
    return text


# failure kind -> (skill name, when it applies, body lines); {marker} is the answer prefix the tasks ask for
SEED_SKILLS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "no_answer": ("final-answer-line", "the task asks for the final answer in a fixed form", (
        "Work through the problem step by step.",
        "Finish with one last line: `{marker} <answer>` with only the answer after the prefix.",
        "Write nothing after that line; no units or words after the answer.",
    )),
    "answer_format": ("final-answer-line", "the task asks for the final answer in a fixed form", (
        "Finish with one last line: `{marker} <answer>` with only the answer after the prefix.",
        "Write nothing after that line.",
    )),
    "empty_output": ("always-answer", "any task", (
        "Never reply with an empty message.",
        "Write the solution, then the final answer in the requested form.",
    )),
    "reported_intermediate": ("answer-the-question-asked", "a word problem needs several steps", (
        "Before answering, re-read the last sentence of the question: what exactly is asked?",
        "List the intermediate results, then compute the requested quantity from them.",
        "Report that quantity, not an intermediate value.",
    )),
    "unit_scale": ("convert-units-first", "quantities use different units, percents or rates", (
        "Write each quantity with its unit.",
        "Convert to the unit the question asks for before combining numbers.",
        "A percent p means p/100 of the whole.",
    )),
    "rounding": ("exact-arithmetic", "the computation involves division, fractions or decimals", (
        "Keep fractions exact while computing.",
        "Round only at the end and only if the question asks for it.",
    )),
    "wrong_answer": ("check-each-step", "a problem needs several arithmetic steps", (
        "Write one calculation per line with its result.",
        "Recompute every line once before the final answer.",
        "Check that the final number answers the question.",
    )),
    "test_failure": ("test-edge-cases", "the task asks for code that must pass tests", (
        "Trace the given examples through your code before answering.",
        "Handle empty input, zero, negative numbers and duplicates.",
    )),
    "syntax_error": ("code-must-parse", "the answer is code", (
        "Return complete code in one block with correct indentation.",
        "Close every bracket and string.",
    )),
    "runtime_error": ("guard-runtime-errors", "the answer is code", (
        "Check indexes, types and empty inputs before using them.",
        "Do not call names you did not define or import.",
    )),
    "timeout": ("keep-it-fast", "the answer is code that runs on large inputs", (
        "Prefer an O(n) or O(n log n) approach.",
        "Make sure every loop ends.",
    )),
}
ARITHMETIC_SEEDS = frozenset({"wrong_answer", "reported_intermediate", "unit_scale", "rounding"})
"""Failure kinds whose seed skill is about arithmetic: it fits failures of number tasks only."""


def seed_skill(kind: str, numbers: bool) -> tuple[str, str, tuple[str, ...]] | None:
    """The seed skill for failures of `kind` (name, when it applies, body lines); None when there is none, or when
    it is about arithmetic and the failed tasks are not mostly number tasks (`numbers`)."""
    return None if kind in ARITHMETIC_SEEDS and not numbers else SEED_SKILLS.get(kind)
