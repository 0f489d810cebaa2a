"""Shortlist latency of the skill router at 100, 1,000 and 10,000 synthetic skills.

Prints, per bank size, the one-off index build time, the median and p95 of `SkillRouter.candidates` (the
tf-idf top-10 a large bank shows the model) with the index reused across tasks, and the same shortlist with
the index rebuilt for every task (what the router did before), measured in the same run.

    PYTHONPATH=src python speed/router_latency.py [--queries 200] [--sizes 100,1000,10000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from agent_evolve.agents.routing.router import BankShortlist, SkillRouter, skill_document
from agent_evolve.testing import ScriptedLLM
from agent_evolve.text import TfIdfIndex
from agent_evolve.types import SkillMeta

VOCABULARY = 4000
SYLLABLES = ["ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "ve", "zu", "an", "or", "el", "ix"]


def vocabulary(rng: random.Random) -> list[str]:
    """Distinct pseudo-words; drawn later with Zipf-like weights, as words in real skill text are."""
    found: set[str] = set()
    while len(found) < VOCABULARY:
        found.add("".join(rng.choices(SYLLABLES, k=rng.randint(2, 4))))
    return sorted(found)


def sentence(rng: random.Random, words: list[str], weights: list[float], n: int) -> str:
    return " ".join(rng.choices(words, weights=weights, k=n))


def bank(size: int, rng: random.Random, words: list[str], weights: list[float]) -> list[SkillMeta]:
    """Skills with a three-word name, a 12-30 word trigger and a DO NOT TRIGGER clause, like Ratchet's."""
    return [
        SkillMeta(
            f"{'-'.join(rng.sample(words[:800], 3))}-{i}",
            f"TRIGGER when: {sentence(rng, words, weights, rng.randint(12, 30))}. "
            f"DO NOT TRIGGER: {sentence(rng, words, weights, 6)}.",
            f"/skills/s{i}/SKILL.md",
        )
        for i in range(size)
    ]


def timed(call: object, queries: list[str]) -> list[float]:
    """Milliseconds per query for ``call(query)``."""
    out = []
    for query in queries:
        started = time.perf_counter()
        call(query)  # type: ignore[operator]
        out.append((time.perf_counter() - started) * 1000)
    return out


def synthetic_setting(seed: int = 0) -> tuple[random.Random, list[str], list[float]]:
    """The seeded generator, the pseudo-word vocabulary and its Zipf-like weights every bank and query uses."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    return rng, words, [1.0 / (rank + 1) for rank in range(len(words))]


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    rng, words, weights = synthetic_setting()
    router = SkillRouter(ScriptedLLM([]))
    print(f"{'skills':>7} {'build ms':>9} {'median ms':>10} {'p95 ms':>8} {'rebuilt median ms':>18} {'speed-up':>9}")
    for size in [int(s) for s in args.sizes.split(",")]:
        skills = bank(size, rng, words, weights)
        queries = [sentence(rng, words, weights, rng.randint(40, 120)) for _ in range(args.queries)]
        shortlist = BankShortlist(skills)  # what an agent keeps per bank version
        started = time.perf_counter()
        shortlist.index()
        build = (time.perf_counter() - started) * 1000
        cached = timed(lambda q: router.candidates(q, skills, shortlist), queries)
        rebuild_queries = queries[: max(5, args.queries // 20)]
        rebuilt = timed(lambda q: TfIdfIndex([skill_document(s) for s in skills]).top(q, 10), rebuild_queries)
        median, old = statistics.median(cached), statistics.median(rebuilt)
        print(f"{size:>7} {build:>9.1f} {median:>10.2f} {p95(cached):>8.2f} {old:>18.1f} {old / median:>8.0f}x")


if __name__ == "__main__":
    main()
