"""HEAD moves only through the named transitions of `engine.transitions`, which the loop drives."""

from __future__ import annotations

import re
from pathlib import Path

import agent_evolve

PACKAGE = Path(agent_evolve.__file__).parent
MOVE = re.compile(r"(\bvc|VersionControl\([^)]*\))\.(reset_to|commit|commit_if_changed|tag|tag_many|restore_paths)\(")


def test_only_the_transitions_module_moves_head() -> None:
    movers = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if MOVE.search(path.read_text(encoding="utf-8"))
    }
    assert movers == {"engine/transitions.py"}
