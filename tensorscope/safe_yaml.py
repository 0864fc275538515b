"""YAML for untrusted files: PyYAML's safe loader with limits, and every problem located.

A scenario file may come from anyone, so reading one must neither run code nor exhaust memory or
the stack, and must say where the problem is (`file:line:column: message`):

- a file over MAX_FILE_BYTES is refused before it is parsed;
- aliases (`*name`) are refused: scenarios have no use for them, and they are how "billion laughs"
  files grow a few lines into gigabytes once walked;
- nesting deeper than MAX_DEPTH is refused as it is met (PyYAML's composer recurses);
- a key repeated in one mapping is refused (PyYAML would keep the last one silently);
- keys must be plain scalars;
- integers may have at most MAX_DIGITS digits, numbers must be finite (no `.inf`, `.nan`).

`load_text` returns the composed node tree (for positions) and the plain data built from it.
Where PyYAML has libyaml, a text is first composed by its C parser, after a scan of its events
for aliases and depth; a text that scan or that parser refuses is read again by the Python one,
so problems are worded and located the same with or without libyaml.
"""

from __future__ import annotations

import math
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_DIGITS = 30


class YamlProblem(Exception):
    """A problem with a YAML text, at a 1-based line and column."""

    def __init__(self, line: int, column: int, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.line, self.column, self.message, self.hint = line, column, message, hint


class _LimitedLoader(yaml.SafeLoader):
    """SafeLoader that refuses aliases and deep nesting while composing, and odd numbers while
    constructing."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            raise ComposerError(None, None, "aliases (*name) are not supported in scenarios", event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        digits = sum(c.isdigit() for c in node.value)
        if digits > MAX_DIGITS:
            raise ConstructorError(None, None, f"a number with {digits:,} digits (at most {MAX_DIGITS})", node.start_mark)
        return yaml.constructor.SafeConstructor.construct_yaml_int(self, node)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        if len(node.value) > MAX_DIGITS + 10:
            raise ConstructorError(None, None, f"a number written with {len(node.value):,} characters "
                                               f"(at most {MAX_DIGITS + 10})", node.start_mark)
        value = yaml.constructor.SafeConstructor.construct_yaml_float(self, node)
        if not math.isfinite(value):
            raise ConstructorError(None, None, f"numbers must be finite, not {node.value}", node.start_mark)
        return value


_LimitedLoader.add_constructor("tag:yaml.org,2002:int", _LimitedLoader.construct_yaml_int)
_LimitedLoader.add_constructor("tag:yaml.org,2002:float", _LimitedLoader.construct_yaml_float)

_C_LOADER = getattr(yaml, "CSafeLoader", None)


if _C_LOADER is not None:
    class _FastLoader(_C_LOADER):  # type: ignore[misc, valid-type]
        """libyaml's parser and composer with the same constructors as _LimitedLoader."""

    _FastLoader.add_constructor("tag:yaml.org,2002:int", _LimitedLoader.construct_yaml_int)
    _FastLoader.add_constructor("tag:yaml.org,2002:float", _LimitedLoader.construct_yaml_float)


def fast_load(text: str) -> tuple[yaml.Node | None, Any] | None:
    """The node tree and data by libyaml, or None where the careful Python reading is needed (no
    libyaml, characters PyYAML refuses, an alias, deep nesting, or any error)."""
    if _C_LOADER is None or yaml.reader.Reader.NON_PRINTABLE.search(text):
        return None
    loader = None
    try:
        depth = 0
        for event in yaml.parse(text, Loader=_C_LOADER):
            if isinstance(event, AliasEvent):
                return None
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth >= MAX_DEPTH:
                    return None
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        loader = _FastLoader(text)
        root = loader.get_single_node()
        if root is not None:
            _check_keys(root)
        return root, (None if root is None else loader.construct_document(root))
    except (yaml.YAMLError, YamlProblem, RecursionError):
        return None
    finally:
        if loader is not None:
            loader.dispose()


def where(node: yaml.Node) -> tuple[int, int]:
    """A node's 1-based line and column."""
    return node.start_mark.line + 1, node.start_mark.column + 1


def load_text(text: str) -> tuple[yaml.Node | None, Any]:
    """(root node, data) of one YAML document, or YamlProblem."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise YamlProblem(1, 1, f"the file is {size:,} bytes; a scenario may have at most {MAX_FILE_BYTES:,}")
    fast = fast_load(text)
    return fast if fast is not None else careful_load(text)


def careful_load(text: str) -> tuple[yaml.Node | None, Any]:
    """load_text by PyYAML's Python parser alone: every problem located and worded."""
    loader = None
    try:
        loader = _LimitedLoader(text)
        root = loader.get_single_node()
        if root is not None:
            _check_keys(root)
        return root, (None if root is None else loader.construct_document(root))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlProblem(line, column, f"not valid YAML: {exc.problem or exc.context}") from None
    except yaml.reader.ReaderError as exc:
        line, column = _position(text, exc.position)
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise YamlProblem(line, column, f"not valid YAML: {exc.reason} (U+{code:04X})") from None
    except yaml.YAMLError as exc:
        raise YamlProblem(1, 1, f"not valid YAML: {exc}") from None
    except RecursionError:
        raise YamlProblem(1, 1, "not valid YAML: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


def _check_keys(root: yaml.Node) -> None:
    """Every mapping's keys are plain scalars, each once. (The tree has no aliases, so each node
    is visited once.)"""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, yaml.Node] = {}
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    raise YamlProblem(*where(key), "keys must be plain names, not lists or mappings")
                if key.value in seen:
                    first_line = where(seen[key.value])[0]
                    raise YamlProblem(*where(key), f"duplicate key '{key.value}'",
                                      f"it is already given on line {first_line}")
                seen[key.value] = key
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _position(text: str, index: int) -> tuple[int, int]:
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1
