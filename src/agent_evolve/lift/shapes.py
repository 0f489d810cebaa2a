"""plan.json and lift.json read in one place and checked for the fields their readers use (opening, registration,
verify, the results and engine tables), so that a damaged file or one of the wrong shape is a ConfigError naming the
file and what is wrong, never a KeyError or TypeError deep inside a reader."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from agent_evolve.contract.regular_files import read_text_if_present
from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_json import parse_json

Fields = Mapping[str, type | tuple[type, ...]]
"""Field paths and the types each may hold: `a.b` is key b of object a, `a[].b` key b of every item of list a; a
path ending in `?` may be absent or null, and nothing below an absent or null field is looked for."""

NUMBER = (int, float)
_ABSENT = object()
_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "true or false", int: "an integer",
          float: "a number", type(None): "null"}

PLAN_FIELDS: Fields = {"plan": dict, "config": dict, "id?": str}
"""What every plan.json has, an unregistered folder's too."""

REGISTERED_FIELDS: Fields = {
    "registered": str, "plan.benchmark": str, "plan.engine?": str, "plan.engines?": list, "plan.engines[]": str,
    "test": dict, "test.ids": list, "test.ids[]": str, "test.ids_hash": str, "test.split_hash?": str,
}
"""What a registered plan.json (one with an id) has besides: read by a resume, verify and the engine table."""

LIFT_FIELDS: Fields = {
    "plan?": dict, "plan.seeds?": list, "plan.seeds[]": int, "plan.arms?": list, "plan.arms[]": str,
    **{f"{rows}?": list for rows in ("runs", "control", "matched")},
    **{f"{rows}[].seed": int for rows in ("runs", "control", "matched")},
    "mean_lift?": NUMBER, "arms?": dict, "arms.evolved?": dict, "arms.evolved.mean_lift": NUMBER,
    "arms.evolved.pooled": dict, "arms.evolved.pooled.ci_low": NUMBER, "arms.evolved.pooled.ci_high": NUMBER,
    "registration?": dict, "registration.plan_id?": str, "evidence?": dict, "evidence.headline?": dict,
    **{f"evidence.headline.{key}": NUMBER for key in ("mean_difference", "ci_low", "ci_high")},
    **{f"evidence.headline.{key}": int for key in ("wins", "losses", "n")},
}
"""What the results and engine tables read of a lift.json."""


def _kind(value: Any) -> str:
    return _NAMES.get(type(value), type(value).__name__)


def _leaves(value: Any, parts: list[str], name: str) -> Iterator[tuple[str, Any]]:
    """Each value at the path `parts` below `value`, named in full (_ABSENT where the last key is missing); none
    below a missing or null key, or below a value of another type (its own field reports that)."""
    if not parts:
        yield name, value
        return
    head, rest = parts[0], parts[1:]
    if head == "[]":
        for index, item in enumerate(value if isinstance(value, list) else []):
            yield from _leaves(item, rest, f"{name}[{index}]")
        return
    if not isinstance(value, dict):
        return
    child = value.get(head, _ABSENT)
    if not rest or (child is not None and child is not _ABSENT):
        yield from _leaves(child, rest, f"{name}.{head}" if name else head)


def check_fields(record: Any, where: str, fields: Fields) -> None:
    """Raise a ConfigError naming `where` unless `record` is a JSON object holding `fields`, each of its type."""
    if not isinstance(record, dict):
        raise ConfigError(f"{where}: expected a JSON object, found {_kind(record)}")
    for path, kinds in fields.items():
        optional, path = path.endswith("?"), path.rstrip("?")
        for name, value in _leaves(record, path.replace("[]", ".[]").split("."), ""):
            if value is _ABSENT and not optional:
                raise ConfigError(f"{where}: the field {name!r} is missing")
            if value is _ABSENT or (value is None and optional):
                continue
            wanted = kinds if isinstance(kinds, tuple) else (kinds,)
            if not isinstance(value, wanted) or (isinstance(value, bool) and bool not in wanted):
                expected = "a number" if wanted == NUMBER else " or ".join(_NAMES[kind] for kind in wanted)
                raise ConfigError(f"{where}: the field {name!r} is {_kind(value)}, expected {expected}")


def read_checked(path: Path, fields: Fields) -> dict[str, Any] | None:
    """The JSON object at `path` holding `fields` (None when there is no file), else a ConfigError naming it."""
    text = read_text_if_present(path)
    if text is None:
        return None
    record = parse_json(text, str(path), ConfigError)
    check_fields(record, str(path), fields)
    return record


def read_plan(path: Path) -> dict[str, Any] | None:
    """A folder's plan.json (None when there is none); a registered one also names its engine, or its engines."""
    record = read_checked(path, PLAN_FIELDS)
    if record is not None and "id" in record:
        check_fields(record, str(path), REGISTERED_FIELDS)
        if not {"engine", "engines"} & set(record["plan"]):
            raise ConfigError(f"{path}: the field 'plan' names no engine ('engine' or 'engines')")
    return record


def read_lift(path: Path) -> dict[str, Any] | None:
    """A folder's lift.json (None when there is none)."""
    return read_checked(path, LIFT_FIELDS)
