"""The one YAML reader (SKILL.md frontmatter, manifest, config, tool registry): safe, bounded, errors that name the key.
Hostile input is refused in milliseconds before anything is built: by size, nesting depth (libyaml's composer recurses
in C and would crash) and alias-expanded size ("billion laughs"). A value the safe constructors cannot build becomes the
caller's error naming the file, key path and line. Imports only the standard library, PyYAML and `errors`.
"""

from __future__ import annotations

from typing import Any

import yaml

from agent_evolve.errors import AgentEvolveError, WorkspaceError

MAX_YAML_CHARS = 2_000_000
MAX_YAML_DEPTH = 64
MAX_EXPANDED_NODES = 100_000
_LOADER_BASE: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_VALUE_ERRORS = (ValueError, KeyError, TypeError, AttributeError, OverflowError, IndexError, yaml.YAMLError)


class _Unbuildable(Exception):
    """A safe constructor failed on ``node``, as the message says; carries the node so the key path can be named."""

    def __init__(self, node: yaml.Node, cause: BaseException) -> None:
        known = isinstance(cause, (ValueError, yaml.YAMLError))
        super().__init__(_one_line(cause) if known else "it is not a valid value for its tag")
        self.node = node


class _Loader(_LOADER_BASE):  # type: ignore[misc, valid-type]
    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except _Unbuildable:
            raise
        except _VALUE_ERRORS as exc:
            raise _Unbuildable(node, exc) from None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        """A mapping whose keys are unique: PyYAML would keep the last of a repeated key and drop the first unseen."""
        seen: set[tuple[str, str]] = set()
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                if (key.tag, key.value) in seen:
                    raise _Unbuildable(key, ValueError(f"key {key.value!r} appears twice; keep one"))
                seen.add((key.tag, key.value))
        return super().construct_mapping(node, deep)


def load_yaml(text: str, where: str, error: type[AgentEvolveError] = WorkspaceError) -> Any:
    """The value of one YAML document (None for an empty one); any problem raises ``error`` naming ``where``."""
    if len(text) > MAX_YAML_CHARS:
        raise error(f"{where}: YAML text is {len(text)} characters long; the limit is {MAX_YAML_CHARS}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise error(f"{where}: not valid Unicode text (a lone surrogate at character {exc.start})") from None
    if _rough_depth_bound(text) > MAX_YAML_DEPTH:
        _check_event_depth(text, where, error)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if "*" in text:
            _check_expansion(node, where, error)
        return loader.construct_document(node)
    except _Unbuildable as exc:
        raise error(f"{where}: {_node_label(node, exc.node)}: cannot read the value: {exc}") from None
    except _VALUE_ERRORS as exc:  # yaml.YAMLError among them
        raise error(f"{where}: not valid YAML: {_one_line(exc)}") from None
    finally:
        loader.dispose()


def _rough_depth_bound(text: str) -> int:
    """An upper bound on nesting depth: every collection needs at least one indicator character of its own."""
    return sum(text.count(c) for c in "[{-?:")


def _check_event_depth(text: str, where: str, error: type[AgentEvolveError]) -> None:
    """Measure nesting from the parser's events (no recursion anywhere) and refuse anything deeper than the bound."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_LOADER_BASE):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    line = event.start_mark.line + 1 if event.start_mark else 0
                    raise error(f"{where}: line {line}: YAML nested deeper than {MAX_YAML_DEPTH} levels")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as exc:
        raise error(f"{where}: not valid YAML: {_one_line(exc)}") from None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_expansion(root: yaml.Node, where: str, error: type[AgentEvolveError]) -> None:
    """Refuse a node graph whose alias-expanded size or depth is over the bounds, or that refers to itself."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            if size[key] > MAX_EXPANDED_NODES:
                raise error(f"{where}: YAML aliases expand to more than {MAX_EXPANDED_NODES} values; refused")
            if depth[key] > MAX_YAML_DEPTH:
                raise error(f"{where}: YAML aliases nest deeper than {MAX_YAML_DEPTH} levels; refused")
            continue
        if key in size:
            continue
        if key in on_path:
            raise error(f"{where}: a YAML alias refers to itself; refused")
        on_path.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in _children(node) if id(k) not in size)


def _node_label(root: yaml.Node, target: yaml.Node) -> str:
    """``key 'a.b[2]' (line N)`` for ``target`` inside ``root``; the line alone when no path leads there."""
    line = f"line {target.start_mark.line + 1}" if target.start_mark else "somewhere"
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if node is target:
            return f"key '{path}' ({line})" if path else line
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                name = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else "?"
                stack.append((value_node, f"{path}.{name}" if path else name))
                stack.append((key_node, path))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(node.value))
    return line


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
