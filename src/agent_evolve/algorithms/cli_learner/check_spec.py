"""`check_spec`: the workspace and skill validation the loop applies, as a command a learner CLI can run."""

from __future__ import annotations

import sys
from pathlib import Path

from agent_evolve.contract.validate import validate_workspace


def main(argv: list[str] | None = None) -> int:
    """Print the workspace's problems (exit 1) or that it is valid (exit 0)."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else ".")
    problems = validate_workspace(root, require_manifest=False)
    for problem in problems:
        print(f"problem: {problem}")
    print("check_spec: OK, the workspace is valid" if not problems else f"check_spec: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
