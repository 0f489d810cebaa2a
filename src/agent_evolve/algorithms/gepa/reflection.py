"""GEPA's reflective proposal prompt and answer parser, after `InstructionProposalSignature` (gepa 0.1.4, MIT);
tests check both agree."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_evolve.text.fences import FENCE_OPENING

PROPOSAL_TEMPLATE = """I provided an assistant with the following instructions to perform a task for me:
```
<curr_param>
```

The following are examples of different task inputs provided to the assistant along with the assistant's response for each of them, and some feedback on how the assistant's response could be better:
```
<side_info>
```

Your task is to write a new instruction for the assistant.

Read the inputs carefully and identify the input format and infer detailed task description about the task I wish to solve with the assistant.

Read all the assistant responses and the corresponding feedback. Identify all niche and domain specific factual information about the task and include it in the instruction, as a lot of it may not be available to the assistant in the future. The assistant may have utilized a generalizable strategy to solve the task, if so, include that in the instruction as well.

Provide the new instructions within ``` blocks."""


def _render(value: Any, level: int) -> str:
    if isinstance(value, Mapping | list | tuple):
        items = value.items() if isinstance(value, Mapping) else ((f"Item {i + 1}", v) for i, v in enumerate(value))
        return "".join(f"{'#' * level} {k}\n" + _render(v, min(level + 1, 6)) for k, v in items) or "\n"
    return f"{str(value).strip()}\n\n"


def render_examples(examples: Sequence[Mapping[str, Any]]) -> str:
    """The examples as GEPA's markdown: `# Example N`, then `## key` and the value for each field."""
    return "\n\n".join(
        f"# Example {n}\n" + "".join(f"## {key}\n" + _render(value, 3) for key, value in example.items())
        for n, example in enumerate(examples, start=1)
    )


def proposal_prompt(current: str, examples: Sequence[Mapping[str, Any]]) -> str:
    """The reflection request for one component's text."""
    return PROPOSAL_TEMPLATE.replace("<curr_param>", current).replace("<side_info>", render_examples(examples))


def extract_proposal(reply: str) -> str:
    """The text inside the reply's outermost ``` fences (GEPA's rule, incomplete fences included)."""
    start, end = reply.find("```") + 3, reply.rfind("```")
    if start >= end:
        stripped = reply.strip()
        if stripped.startswith("```"):
            match = FENCE_OPENING.match(reply)
            if match:
                return reply[match.end():].strip()
        elif stripped.endswith("```"):
            return stripped[:-3].strip()
        return stripped
    content = reply[start:end]
    match = re.match(r"^\S*\n", content)
    return (content[match.end():] if match else content).strip()
