"""Code extraction from the ways models answer a HumanEval prompt."""

from __future__ import annotations

from agent_evolve.benchmarks.support.code_extraction import ExtractedCode, assemble_program, defines_function, extract_code

PROMPT = 'from typing import List\n\n\ndef add(xs: List[int]) -> int:\n    """Sum of xs."""\n'
FUNCTION = "def add(xs):\n    return sum(xs)\n"


def test_fenced_block_defining_the_function() -> None:
    output = f"Sure! Here it is:\n```python\n{FUNCTION}```\nIt sums the list."
    assert extract_code(output, "add") == ExtractedCode(FUNCTION, "function")


def test_the_last_defining_block_wins_over_usage_examples() -> None:
    fixed = "def add(xs):\n    return sum(xs) + 0\n"
    output = f"```python\n{FUNCTION}```\nBetter:\n```py\n{fixed}```\nUsage:\n```python\nprint(add([1]))\n```"
    assert extract_code(output, "add").code == fixed


def test_non_python_blocks_are_ignored() -> None:
    output = f"```bash\npython add.py\n```\n```python\n{FUNCTION}```"
    assert extract_code(output, "add").code == FUNCTION


def test_unterminated_fence_still_yields_code() -> None:
    assert extract_code(f"```python\n{FUNCTION}", "add").kind == "function"


def test_example_calls_and_main_blocks_are_dropped() -> None:
    output = (
        "```python\nimport math\n\n@staticmethod\ndef helper(x):\n    return x\n\nLIMIT = 3\n\n"
        f"{FUNCTION}\nprint(add([1, 2]))\nassert add([1]) == 99\n"
        "if __name__ == '__main__':\n    add(input())\n```"
    )
    code = extract_code(output, "add").code
    assert code == f"import math\n\n@staticmethod\ndef helper(x):\n    return x\n\nLIMIT = 3\n\n{FUNCTION}"


def test_bare_function_amid_prose() -> None:
    output = f"The function is:\n\nimport math\n{FUNCTION}\nThis works because sum adds things."
    extracted = extract_code(output, "add")
    assert extracted.kind == "function"
    assert extracted.code.startswith("import math") and "This works" not in extracted.code


def test_body_continuation_is_kept_as_is() -> None:
    body = "    total = 0\n    for x in xs:\n        total += x\n    return total\n"
    assert extract_code(body, "add") == ExtractedCode(body, "body")


def test_unindented_body_is_indented() -> None:
    assert extract_code("return sum(xs)", "add") == ExtractedCode("    return sum(xs)\n", "body")


def test_fenced_body_without_signature() -> None:
    assert extract_code("```python\n    return sum(xs)\n```", "add") == ExtractedCode("    return sum(xs)\n", "body")


def test_thinking_is_dropped_and_empty_output_has_no_code() -> None:
    output = f"<think>def add(xs): return 0</think>\n```python\n{FUNCTION}```"
    assert extract_code(output, "add").code == FUNCTION
    assert extract_code("   \n", "add").kind == "none"


def test_defines_function_needs_a_top_level_definition() -> None:
    assert defines_function(FUNCTION, "add")
    assert not defines_function("class A:\n    def add(self):\n        pass\n", "add")
    assert not defines_function("def add(:", "add")


def test_assembled_programs_compile_for_both_kinds() -> None:
    with_future = extract_code(f"```python\nfrom __future__ import annotations\n{FUNCTION}```", "add")
    whole = assemble_program(PROMPT, with_future)
    body = assemble_program(PROMPT, ExtractedCode("    return sum(xs)\n", "body"))
    for program in (whole, body):
        namespace: dict = {}
        exec(compile(program, "program.py", "exec"), namespace)  # the tiny trusted program defines add
        assert namespace["add"]([1, 2]) == 3 and "check" not in program