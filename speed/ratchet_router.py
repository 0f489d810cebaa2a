"""Ratchet's router shortlist (before the model call) at 100, 1,000 and 10,000 synthetic skills.

Per bank size: the one-off build of both indexes (the shared tf-idf index and the embedding index, once per
bank version, which the reference agent does at each reload), then the median and p95 of
`BankRouter.shortlist`: the lexical top-10 united with the embedding top-10 (the default hashed character n-gram
embedder), indexes reused across tasks, and the recall of the two-stage embedding top-10 against an exact
scan. Target: median under 20 ms at 10,000 skills. The banks and queries are `router_latency.py`'s.

    PYTHONPATH=src python speed/ratchet_router.py [--queries 200] [--sizes 100,1000,10000]
"""

from __future__ import annotations

import argparse
import statistics
import time

from router_latency import bank, p95, sentence, synthetic_setting, timed

from agent_evolve.agents.routing.bank import BankRouter, RouterConfig
from agent_evolve.agents.routing.embeddings import HashingEmbedder

TARGET_MS = 20.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    rng, words, weights = synthetic_setting()
    embedder, config = HashingEmbedder(), RouterConfig()
    print(f"{'skills':>7} {'build s':>8} {'median ms':>10} {'p95 ms':>8} {'shown':>6} {'emb recall@10':>14} "
          f"{'target met':>11}")
    for size in [int(s) for s in args.sizes.split(",")]:
        skills = bank(size, rng, words, weights)
        queries = [sentence(rng, words, weights, rng.randint(40, 120)) for _ in range(args.queries)]
        router = BankRouter(skills, config, embedder)
        started = time.perf_counter()
        shown = len(router.shortlist(queries[0]))
        build = time.perf_counter() - started
        times = timed(router.shortlist, queries)
        median = statistics.median(times)
        recall = statistics.mean(
            len({s.name for s in router.embedded(q, 10)} & {s.name for s in router.embedded(q, 10, exact=True)}) / 10
            for q in queries[:20])
        met = "yes" if median < TARGET_MS or size <= config.full_bank_limit else "no"
        print(f"{size:>7} {build:>8.2f} {median:>10.2f} {p95(times):>8.2f} {shown:>6} {recall:>14.2f} {met:>11}")


if __name__ == "__main__":
    main()
