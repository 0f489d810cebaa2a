"""Bundled candidates: several kinds proposed as one edit, so the trial and the gate score them as a whole.

A `candidates` entry such as ``cross-check+experience`` names a bundle: the first candidate of each named kind,
their files written together (a cross-check and the experience memory learned from this batch's verified
solves). A bundle is proposed only when every part has a candidate and no two parts write the same file; list
a single kind after it (``cross-check+experience,cross-check``) to fall back when it is not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agent_evolve.algorithms.common.candidate_search import CandidateEdit

JOIN = "+"


def bundle_parts(entry: str) -> tuple[str, ...]:
    """The kinds a `candidates` entry names: one for a plain kind, several for a bundle."""
    return tuple(part.strip() for part in entry.split(JOIN))


def bundled(entry: str, found: Sequence[CandidateEdit], kind_of: Callable[[CandidateEdit], str]) -> CandidateEdit | None:
    """The bundle `entry` made of the first candidate of each of its kinds in `found`; None when a part has no
    candidate or two parts write the same file."""
    parts = [next((c for c in found if kind_of(c) == kind), None) for kind in bundle_parts(entry)]
    chosen = [c for c in parts if c is not None]
    paths = [path for c in chosen for path in c.files]
    if len(chosen) < len(parts) or len(paths) != len(set(paths)):
        return None
    files = {path: text for c in chosen for path, text in c.files.items()}
    return CandidateEdit(entry, files, "; ".join(c.summary for c in chosen))
