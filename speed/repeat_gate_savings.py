"""How many gate solves the committed runs spent on a second look: a candidate with the same files as one the gate
had already rejected against the same accepted version, which the gate now rejects again unscored.

Usage: python speed/repeat_gate_savings.py [experiments/lift-... ...]   (default: every experiment folder)

Unpacks each evolved arm's checkpoint (its workspace's git history and sealed gate records), compares each
candidate's tree (`cand-N`) with the rejected candidates since the version accepted at the time, and counts the
holdout solves the repeated gates made (candidate and, where re-measured, incumbent).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path


def tree(workspace: Path, tag: str) -> str | None:
    """The tree id of `tag` in the unpacked workspace, or None when the tag is missing."""
    done = subprocess.run(["git", "-C", str(workspace), "rev-parse", "--verify", "--quiet", f"{tag}^{{tree}}"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or None


def solves(record: dict) -> int:
    """Holdout solves one gate record shows: every score of every side it measured."""
    return sum(len(scores) for side in ("candidate", "incumbent")
               for scores in (record.get(side) or {}).get("scores", {}).values())


def repeats(checkpoint: Path) -> tuple[int, int, int, int]:
    """(gates, repeated gates, gate solves, solves of the repeated gates) of one evolved arm."""
    with tempfile.TemporaryDirectory() as folder, tarfile.open(checkpoint) as tar:
        tar.extractall(folder, filter="data")
        workspace, sealed = Path(folder) / "workspace", Path(folder) / "workspace.sealed" / "gate"
        records = sorted(sealed.glob("cycle_*.json"), key=lambda p: int(p.stem.split("_")[1]))
        gates = repeated = spent = wasted = 0
        accepted_cycle, rejected = 0, {}
        for path in records:
            record, cycle = json.loads(path.read_text()), int(path.stem.split("_")[1])
            if "decision" not in record:
                continue
            gates, spent = gates + 1, spent + solves(record)
            candidate = tree(workspace, f"cand-{cycle}")
            if any(m > accepted_cycle and t == candidate for m, t in rejected.items()):
                repeated, wasted = repeated + 1, wasted + solves(record)
            if record["decision"]["action"] == "accept":
                accepted_cycle, rejected = cycle, {}
            else:
                rejected[cycle] = candidate
        return gates, repeated, spent, wasted


def main(folders: list[str]) -> None:
    paths = [Path(f) for f in folders] or sorted(p for p in Path("experiments").iterdir() if p.is_dir())
    print("| experiment | gates | repeated gates | gate solves | solves of repeated gates |")
    print("|---|---:|---:|---:|---:|")
    total = [0, 0, 0, 0]
    for folder in paths:
        rows = [repeats(c) for c in sorted(folder.glob("evolved/seed-*/checkpoint.tar.gz"))]
        if not rows:
            continue
        sums = [sum(column) for column in zip(*rows)]
        total = [a + b for a, b in zip(total, sums)]
        print(f"| `{folder.name}` | {sums[0]} | {sums[1]} | {sums[2]:,} | {sums[3]:,} |")
    print(f"| all | {total[0]} | {total[1]} | {total[2]:,} | {total[3]:,} ({total[3] / max(1, total[2]):.0%}) |")


if __name__ == "__main__":
    main(sys.argv[1:])
