"""The shape each expectation value must have (scenarios/README.md's table), checked on the YAML
node tree so that a wrong value is reported where it is written.

`problem(key, node)` returns (node, message, hint) for the first thing wrong with one expectation's
value, or None. Checking every shape at load time is what lets `check_expectations` compare without
ever failing on a value it did not expect.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

CUDA_FIELDS = ("allocated", "max_allocated", "reserved", "max_reserved")
MEMORY_FIELDS = ("allocated_bytes", "peak_bytes")
ERROR_FIELDS = ("type", "contains", "message")
SAVED_FIELDS = ("by", "version")

Problem = tuple[yaml.Node, str, str]
_TAG = "tag:yaml.org,2002:"


def _kind(node: yaml.Node) -> str:
    """mapping, list, str, int, float, bool, null, or another YAML type's name."""
    if isinstance(node, yaml.MappingNode):
        return "mapping"
    if isinstance(node, yaml.SequenceNode):
        return "list"
    return node.tag.removeprefix(_TAG)


def _got(node: yaml.Node) -> str:
    """`got str`, `got a mapping`, `got a list holding float, str`."""
    kind = _kind(node)
    if kind == "list":
        inside = sorted({_kind(item) for item in node.value})
        return "got a list holding " + ", ".join(inside) if inside else "got an empty list"
    return "got a mapping" if kind == "mapping" else f"got {kind}"


def _is(*kinds: str) -> Callable[[yaml.Node], bool]:
    return lambda node: _kind(node) in kinds


_TEXT, _WHOLE, _FLAG = _is("str"), _is("int"), _is("bool")
_NUMBER = _is("int", "float")


def _numbers(node: yaml.Node) -> bool:
    """A number, true/false, or a (nested) list of them."""
    if isinstance(node, yaml.SequenceNode):
        return all(_numbers(item) for item in node.value)
    return _kind(node) in ("int", "float", "bool")


def _fields(node: yaml.MappingNode, allowed: tuple[str, ...]) -> Problem | None:
    for key, _ in node.value:
        if key.value not in allowed:
            return key, f"unknown field '{key.value}'", "allowed: " + ", ".join(allowed)
    return None


def _field_values(node: yaml.MappingNode, valid: Callable[[yaml.Node], bool], wanted: str) -> Problem | None:
    for key, value in node.value:
        if not valid(value):
            return value, f"'{key.value}' must be {wanted} ({_got(value)})", ""
    return None


def _per_name(node: yaml.Node, key: str, valid: Callable[[yaml.Node], bool], wanted: str,
              example: str) -> Problem | None:
    """`{name: value}` with every value valid."""
    if not isinstance(node, yaml.MappingNode):
        return node, "must be a mapping", f"e.g. {key}: {{x: {example}}}"
    for name, value in node.value:
        if _kind(name) != "str":
            return name, f"names must be text, not {_kind(name)} ({name.value})", f"e.g. {key}: {{x: {example}}}"
        if not valid(value):
            return value, f"{name.value} must be {wanted} ({_got(value)})", f"e.g. {key}: {{{name.value}: {example}}}"
    return None


def _error(node: yaml.Node) -> Problem | None:
    if _kind(node) in ("null", "str"):
        return None
    if not isinstance(node, yaml.MappingNode):
        return node, "must be an exception type, a mapping or null", "e.g. error: {type: RuntimeError, contains: ...}"
    return _fields(node, ERROR_FIELDS) or _field_values(node, _TEXT, "text")


def _output(node: yaml.Node) -> Problem | None:
    if _kind(node) in ("null", "str"):
        return None
    if not isinstance(node, yaml.MappingNode) or [k.value for k, _ in node.value] != ["contains"]:
        return node, "must be text or {contains: text}", "e.g. output: {contains: tensor}"
    return _field_values(node, _TEXT, "text")


def _names(node: yaml.Node) -> bool:
    return isinstance(node, yaml.SequenceNode) and all(_TEXT(item) for item in node.value)


def _shares_storage(node: yaml.Node) -> Problem | None:
    if not (isinstance(node, yaml.SequenceNode) and all(_names(group) for group in node.value)):
        return node, "must be a list of groups of names", "e.g. shares_storage: [[x, v], [y]]"
    return None


def _stale(node: yaml.Node) -> Problem | None:
    return None if _names(node) else (node, "must be a list of names", "e.g. stale: [out]")


def _saved(node: yaml.Node) -> Problem | None:
    def valid(spec: yaml.Node) -> bool:
        return _TEXT(spec) or isinstance(spec, yaml.MappingNode)

    found = _per_name(node, "saved", valid, "a node name or {by: NodeName, version: n}", "{by: MulBackward0, version: 0}")
    if found:
        return found
    for _, spec in node.value:
        if isinstance(spec, yaml.MappingNode):
            found = _fields(spec, SAVED_FIELDS)
            for key, value in spec.value:
                if found is None and key.value == "by" and not _TEXT(value):
                    found = value, f"'by' must be a node name ({_got(value)})", "e.g. by: MulBackward0"
                if found is None and key.value == "version" and not _WHOLE(value):
                    found = value, f"'version' must be a whole number ({_got(value)})", "e.g. version: 0"
            if found:
                return found
    return None


def _figures(allowed: tuple[str, ...]) -> Callable[[yaml.Node], Problem | None]:
    def check(node: yaml.Node) -> Problem | None:
        if not isinstance(node, yaml.MappingNode):
            return node, "must be a mapping", f"e.g. {{{allowed[0]}: 1024}}"
        return _fields(node, allowed) or _field_values(node, _NUMBER, "a number of bytes")

    return check


def _named(valid: Callable[[yaml.Node], bool], wanted: str, example: str) -> Callable[[str, yaml.Node], Problem | None]:
    return lambda key, node: _per_name(node, key, valid, wanted, example)


_SHAPES: dict[str, Callable[[str, yaml.Node], Problem | None]] = {
    "error": lambda _, node: _error(node),
    "output": lambda _, node: _output(node),
    "warns": lambda _, node: None if _TEXT(node) else (node, "must be text", "e.g. warns: deprecated"),
    "shares_storage": lambda _, node: _shares_storage(node),
    "stale": lambda _, node: _stale(node),
    "saved": lambda _, node: _saved(node),
    "memory": lambda _, node: _figures(MEMORY_FIELDS)(node),
    "cuda_memory": lambda _, node: _figures(CUDA_FIELDS)(node),
    "version": _named(_WHOLE, "a whole number", "1"),
    "is_leaf": _named(_FLAG, "true or false", "true"),
    "requires_grad": _named(_FLAG, "true or false", "true"),
    "is_view": _named(_FLAG, "true or false", "true"),
    "grad_fn": _named(_is("str", "null"), "a node name or null", "MulBackward0"),
    "values": _named(_numbers, "numbers (a number or nested lists of them)", "[1.0, 2.0]"),
    "grad": _named(lambda n: _kind(n) == "null" or _numbers(n), "numbers or null", "[1.0, 2.0]"),
    "shape": _named(lambda n: isinstance(n, yaml.SequenceNode) and all(map(_WHOLE, n.value)),
                    "a list of whole numbers", "[2, 3]"),
    "stride": _named(lambda n: isinstance(n, yaml.SequenceNode) and all(map(_WHOLE, n.value)),
                     "a list of whole numbers", "[3, 1]"),
    "dtype": _named(_TEXT, "a dtype name", "float32"),
}
KEYS = frozenset(_SHAPES)


def problem(key: str, node: yaml.Node) -> Problem | None:
    """What is wrong with one expectation's value (the node at fault, message, hint), or None."""
    return _SHAPES[key](key, node)
