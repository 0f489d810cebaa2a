"""Meta-skills: the synthesizer's authoring prior, one active per suite (code and math defaults ship here); a
refresh, off by default as in the paper, rewrites it from how the bank's skills fared."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files

from agent_evolve.algorithms.ratchet.curator import CreditWeighting
from agent_evolve.algorithms.ratchet.records import MetaSkill
from agent_evolve.llm.base import LLMClient, Message

SUITES: tuple[str, ...] = ("code", "math")
META_CHARS = 1500
_CODE_SIGNS = ("def ", "```python", "return ", "function", "import ")
SYSTEM = "You improve the advice given to an author of short skills for a model that solves tasks."


def suite_for(task_texts: Sequence[str]) -> str:
    """ours: "code" when most tasks look like code tasks, else "math"."""
    code = sum(any(sign in text for sign in _CODE_SIGNS) for text in task_texts)
    return "code" if task_texts and code * 2 >= len(task_texts) else "math"


def default_meta(suite: str) -> MetaSkill:
    """The shipped default meta-skill of a suite (code's for any suite without its own)."""
    name = suite if suite in SUITES else "code"
    body = files("agent_evolve.algorithms.ratchet").joinpath(f"meta_skills/default_{name}.md").read_text("utf-8")
    return MetaSkill(suite, f"default-{name}", body, True, 0)


def refresh_due(round_: int, every: int, every_tasks: int = 0, tasks_since: int = 0) -> bool:
    """True on the rounds a refresh runs: every `every` rounds, or once `every_tasks` train tasks were attempted
    since the suite's active meta-skill was written (each cadence off at 0)."""
    by_rounds = every > 0 and round_ > 0 and round_ % every == 0
    return by_rounds or (every_tasks > 0 and tasks_since >= every_tasks)


CONTRIBUTION = {"outcome": "(successes - failures) / routed trials", "critic": "(helped - hurt) / routed trials"}
"""How each credit weighting computes the contribution the meta-skill prompt reports."""


def refresh(client: LLMClient, current: MetaSkill, outcomes: Sequence[str], round_: int,
            max_tokens: int, weighting: CreditWeighting = "outcome") -> MetaSkill | None:
    """A new active meta-skill for the suite, asked with the current advice and one line per skill's contribution
    (computed by `weighting`, named in the prompt as it is); None when the reply is empty."""
    lines = "\n".join(f"- {line}" for line in outcomes) or "- (no skill has been routed yet)"
    user = (f"Current advice:\n{current.body}\n\nHow the skills written with it fared (contribution = "
            f"{CONTRIBUTION[weighting]}):\n{lines}\n\nRewrite the advice so future skills help more. "
            f"Reply with only the new advice, at most {META_CHARS} characters.")
    messages = [Message("system", SYSTEM), Message("user", user)]
    text = client.complete(messages, max_tokens=max_tokens).text.strip()
    if not text:
        return None
    return MetaSkill(current.suite, f"{current.suite}-r{round_}", text[:META_CHARS], True, round_)
