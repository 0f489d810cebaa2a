"""plan.json, lift.json and the arm files read in one place and checked against JSON Schemas of the fields their
readers use, so a damaged file is a ConfigError naming the file and field, never a KeyError deep inside a reader."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import jsonschema

from agent_evolve.contract.regular_files import read_text_if_present
from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_json import parse_json

Schema = Mapping[str, Any]

_NAMES = {dict: "an object", list: "a list", str: "a string", bool: "true or false", int: "an integer",
          float: "a number", type(None): "null"}
_TYPE_NAMES = {"object": "an object", "array": "a list", "string": "a string", "boolean": "true or false",
               "integer": "an integer", "number": "a number", "null": "null"}


def _object(required: Iterable[str] = (), **properties: Schema) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": properties}


def _list(items: Schema) -> dict[str, Any]:
    return {"type": "array", "items": items}


def _optional(schema: Schema) -> dict[str, Any]:
    """`schema`, or null (a field that may also be absent is simply not required)."""
    return {**schema, "type": [schema["type"], "null"]}


STRING, INTEGER, NUMBER = {"type": "string"}, {"type": "integer"}, {"type": "number"}

PLAN_SCHEMA: Schema = _object(["plan", "config"], plan={"type": "object"}, config={"type": "object"},
                              id=_optional(STRING))
"""What every plan.json has, an unregistered folder's too."""

REGISTERED_SCHEMA: Schema = _object(
    ["registered", "plan", "test"], registered=STRING,
    plan={**_object(["benchmark"], benchmark=STRING, engine=_optional(STRING), engines=_list(STRING)),
          "anyOf": [{"required": ["engine"]}, {"required": ["engines"]}]},
    test=_object(["ids", "ids_hash"], ids=_list(STRING), ids_hash=STRING, split_hash=_optional(STRING)))
"""What a registered plan.json (one with an id) has besides: read by a resume, verify and the engine table."""

_ARM_ROWS = _optional(_list(_object(["seed"], seed=INTEGER)))
_HEADLINE_KEYS = {"mean_difference": NUMBER, "ci_low": NUMBER, "ci_high": NUMBER, "wins": INTEGER,
                  "losses": INTEGER, "n": INTEGER}
LIFT_SCHEMA: Schema = _object(
    plan=_optional(_object(seeds=_optional(_list(INTEGER)),
                           arms=_optional(_list({"type": "string", "enum": ["evolved", "control", "matched"]})))),
    runs=_ARM_ROWS, control=_ARM_ROWS, matched=_ARM_ROWS, mean_lift=_optional(NUMBER),
    arms=_optional(_object(evolved=_optional(_object(
        ["mean_lift", "pooled"], mean_lift=NUMBER, pooled=_object(["ci_low", "ci_high"], ci_low=NUMBER,
                                                                   ci_high=NUMBER))))),
    registration=_optional(_object(plan_id=_optional(STRING))),
    evidence=_optional(_object(headline=_optional(_object(list(_HEADLINE_KEYS), **_HEADLINE_KEYS)))),
)
"""What the results and engine tables read of a lift.json."""

_SCORES = {"type": "object", "additionalProperties": NUMBER}
ARM_SCHEMA: Schema = {**_object(
    ["arm", "seed", "workspace"], arm=STRING, seed=INTEGER, workspace=STRING, test_key=STRING, test_scores=_SCORES,
    draw_scores=_list(_SCORES), test_tokens=_list(NUMBER), baseline_holdout=NUMBER, final_holdout=NUMBER,
    accepted=INTEGER, rejected=INTEGER, cycles=INTEGER, score_curve=_list(NUMBER),
    cost={"type": "object", "additionalProperties": NUMBER}, finished={"type": "boolean"},
    edits={"type": "object", "additionalProperties": INTEGER}), "additionalProperties": False}
"""A finished arm's arm.json: every field of `ArmRun`, and nothing else (the record is rebuilt from it)."""

COST_SCHEMA: Schema = _object(solves=INTEGER, seconds=NUMBER)
"""An arm's cost.json: the grader's solves and their wall seconds so far."""


def _field(path: Iterable[str | int]) -> str:
    """`a.b[1].c` for the path ('a', 'b', 1, 'c')."""
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else f".{part}" if name else str(part)
    return name


def _problem(error: jsonschema.ValidationError) -> str:
    """What is wrong, in the words of a JSON user: the field missing, of another type, or naming no engine."""
    field = _field(error.absolute_path)
    if error.validator == "required":
        missing = next(key for key in error.validator_value if key not in error.instance)
        return f"the field {_field([*error.absolute_path, missing])!r} is missing"
    if error.validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        expected = " or ".join(_TYPE_NAMES[kind] for kind in wanted if kind != "null")
        found = _NAMES.get(type(error.instance), type(error.instance).__name__)
        return f"expected a JSON object, found {found}" if not field else \
            f"the field {field!r} is {found}, expected {expected}"
    if error.validator == "anyOf":
        return f"the field {field!r} names no engine ('engine' or 'engines')"
    if error.validator == "additionalProperties":
        return f"unexpected field(s) in {field or 'the object'}: {error.message}"
    if error.validator == "enum":
        return f"the field {field!r} is {error.instance!r}, expected one of {', '.join(error.validator_value)}"
    return f"the field {field!r}: {error.message}"


def check_shape(record: Any, where: str, schema: Schema) -> None:
    """Raise a ConfigError naming `where` and the first problem unless `record` fits `schema`."""
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(record),
                    key=lambda error: (len(error.absolute_path), [str(p) for p in error.absolute_path]))
    if errors:
        raise ConfigError(f"{where}: {_problem(errors[0])}")


def read_checked(path: Path, schema: Schema) -> dict[str, Any] | None:
    """The JSON object at `path` that fits `schema` (None when there is no file), else a ConfigError naming it."""
    text = read_text_if_present(path)
    if text is None:
        return None
    record = parse_json(text, str(path), ConfigError)
    check_shape(record, str(path), schema)
    return record


def read_plan(path: Path) -> dict[str, Any] | None:
    """A folder's plan.json (None when there is none); a registered one also names its engine, or its engines."""
    record = read_checked(path, PLAN_SCHEMA)
    if record is not None and "id" in record:
        check_shape(record, str(path), REGISTERED_SCHEMA)
    return record
