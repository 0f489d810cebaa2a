"""Calibrate Ratchet's cosine thresholds for an embedder on committed pairs of failure descriptions.

Reads `pairs.json`: failure descriptions naming one pattern or two (what canonicalisation and the cover guard
compare) and skill texts written for one failure or two (what dedup compares). For each set it scores every
pair's cosine with the embedder and picks the threshold that best separates them: the balanced accuracy (mean
of the share of paraphrases merged and the share of different pairs kept apart) is largest on an interval of
cosines, and the threshold is the middle of the highest such interval, rounded to two decimals (a margin either
side for wordings not in the set). Writes `calibration-<embedder>.json` next to this file.

    PYTHONPATH=src python experiments/ratchet-calibration/calibrate.py [--embedder hashing]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from agent_evolve.agents.routing.embeddings import cosine, make_embedder

HERE = Path(__file__).parent


def scores(embedder_name: str, pairs: list[list[str]]) -> list[float]:
    embedder = make_embedder(embedder_name)
    vectors = embedder.embed([text for pair in pairs for text in pair])
    return [round(cosine(vectors[2 * i], vectors[2 * i + 1]), 4) for i in range(len(pairs))]


def best_threshold(same: list[float], different: list[float]) -> tuple[float, float]:
    """The threshold (a cosine at which a pair merges) with the best balanced accuracy, and that accuracy."""
    ordered = sorted(set(same + different))
    edge, best = 0.0, -1.0
    for candidate in ordered:
        accuracy = (sum(s >= candidate for s in same) / len(same)
                    + sum(d < candidate for d in different) / len(different)) / 2
        if accuracy >= best:
            edge, best = candidate, accuracy
    below = max((score for score in ordered if score < edge), default=0.0)
    return round((below + edge) / 2, 2), best


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"min": ordered[0], "p10": ordered[len(ordered) // 10], "median": statistics.median(ordered),
            "p90": ordered[(9 * len(ordered)) // 10], "max": ordered[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="hashing")
    args = parser.parse_args()
    pairs = json.loads((HERE / "pairs.json").read_text())
    report = {"embedder": args.embedder,
              "failure_patterns": calibrate(args.embedder, pairs["paraphrase"], pairs["different"]),
              "skills": calibrate(args.embedder, pairs["skill_paraphrase"], pairs["skill_different"])}
    (HERE / f"calibration-{args.embedder}.json").write_text(json.dumps(report, indent=1) + "\n")
    for part in ("failure_patterns", "skills"):
        print(part, json.dumps({k: v for k, v in report[part].items() if k != "scores"}))


def calibrate(embedder: str, paraphrase: list[list[str]], different: list[list[str]]) -> dict[str, object]:
    """Score distributions of both kinds of pair, the best threshold, and what it and 0.85 merge."""
    same, other = scores(embedder, paraphrase), scores(embedder, different)
    threshold, accuracy = best_threshold(same, other)
    return {
        "pairs": {"paraphrase": len(same), "different": len(other)},
        "paraphrase": summary(same), "different": summary(other),
        "threshold": threshold, "balanced_accuracy": round(accuracy, 4),
        "merged_paraphrases": sum(s >= threshold for s in same), "merged_different": sum(d >= threshold for d in other),
        "at_0.85": {"merged_paraphrases": sum(s >= 0.85 for s in same),
                    "merged_different": sum(d >= 0.85 for d in other)},
        "scores": {"paraphrase": same, "different": other},
    }


if __name__ == "__main__":
    main()
