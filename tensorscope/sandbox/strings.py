"""Format guards and size-guarded string methods.

`str.format` would follow `{0.__globals__}` past the attribute policy, and `ljust`, `replace`,
`join` and friends can build gigabytes from a few characters. The raw methods are recognised by
identity wherever user code reaches them, bound or unbound, through an instance of `str`, `bytes`
or `bytearray`, a subclass, the class itself or `super()`, and replaced by guarded versions:
field names go through the attribute policy, widths and results are capped in bytes.
"""

from __future__ import annotations

import _string
import string
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import Counted
from tensorscope.sandbox.sizes import (
    check_format_spec,
    check_sequence_bytes,
    is_index,
    sequence_bytes,
    str_width,
)

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

_TEXT_TYPES = (str, bytes, bytearray)


@gateway
def bound(fn: Callable[..., Any], *bound: Any, name: str) -> Callable[..., Any]:
    """fn with its first arguments fixed, as a plain function named `name`: unlike
    functools.partial it has no public attribute that would hand the bound arguments (the
    sandbox) to user code."""

    def method(*args: Any, **kwargs: Any) -> Any:
        return fn(*bound, *args, **kwargs)

    method.__name__, method.__qualname__, method.__doc__ = name.rpartition(".")[2], name, fn.__doc__
    return method


class SafeFormatter(string.Formatter):
    """str.format whose field names follow the attribute policy, whose widths are capped, and
    whose result may not grow past MAX_SEQUENCE_BYTES (`('{0}' * 1000).format(big)`)."""

    def __init__(self, read_attribute: Callable[[Any, str], Any]) -> None:
        self._read_attribute = read_attribute
        self._produced = 0

    def vformat(self, format_string: str, args: Any, kwargs: Any) -> str:
        self._produced = 0
        return super().vformat(format_string, args, kwargs)

    @gateway
    def get_value(self, key: int | str, args: Any, kwargs: Any) -> Any:
        if isinstance(key, int) and args is None:  # format_map, as Python words it
            raise ValueError("Format string contains positional fields")
        return super().get_value(key, args, kwargs)

    @gateway
    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, Any]:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            obj = self._read_attribute(obj, key) if is_attribute else obj[key]
        return obj, first

    @gateway
    def format_field(self, value: Any, format_spec: str) -> Any:
        check_format_spec(format_spec)
        text = format(value, format_spec)
        self._produced += sys.getsizeof(text)
        check_sequence_bytes("the formatted string", self._produced)
        return text


def _text_type(value: Any) -> type:
    return next(cls for cls in _TEXT_TYPES if isinstance(value, cls))


@gateway
def _guard_join(sandbox: Sandbox, raw: Any, sep: Any, iterable: Any) -> Any:
    items = list(Counted(iter(iterable), sandbox.meter))
    if isinstance(sep, str):
        texts = [i for i in items if isinstance(i, str)]
        width = max([str_width(sep), *map(str_width, texts)])
        chars = sum(map(str.__len__, texts)) + str.__len__(sep) * max(len(items) - 1, 0)
        check_sequence_bytes("the joined string", chars * width)
    elif isinstance(sep, (bytes, bytearray)):
        size = sum(sequence_bytes(i) or 0 for i in items) + (sequence_bytes(sep) or 0) * max(len(items) - 1, 0)
        check_sequence_bytes("the joined string", size)
    return raw(sep, items)


def _guard_width(method: str) -> Callable[..., Any]:
    @gateway
    def padded(sandbox: Sandbox, raw: Any, text: Any, width: Any, *args: Any) -> Any:
        if is_index(width) and isinstance(text, _TEXT_TYPES):
            check_sequence_bytes(f"{method}()", int(width) * (str_width(text) if isinstance(text, str) else 1))
        return raw(text, width, *args)

    return padded


@gateway
def _guard_replace(sandbox: Sandbox, raw: Any, text: Any, old: Any, new: Any, count: Any = -1) -> Any:
    if isinstance(text, _TEXT_TYPES):
        base = _text_type(text)
        if isinstance(old, base) and isinstance(new, base):
            hits = base.count(text, old) + (0 if len(old) else 1)
            if is_index(count) and count >= 0:
                hits = min(hits, int(count))
            size = (sequence_bytes(text) or 0) + hits * max((sequence_bytes(new) or 0) - len(old), 0)
            width = max(str_width(text), str_width(new)) if base is str else 1
            check_sequence_bytes("the replaced string", size * width)
    return raw(text, old, new, count)


@gateway
def _guard_expandtabs(sandbox: Sandbox, raw: Any, text: Any, tabsize: Any = 8) -> Any:
    if isinstance(text, _TEXT_TYPES) and is_index(tabsize):
        base = _text_type(text)
        tabs = base.count(text, "\t" if base is str else b"\t")
        width = str_width(text) if base is str else 1
        check_sequence_bytes("expandtabs()", (len(text) + tabs * max(int(tabsize), 0)) * width)
    return raw(text, tabsize)


@gateway
def _guard_translate(sandbox: Sandbox, raw: Any, text: Any, table: Any, *args: Any) -> Any:
    if isinstance(text, str) and isinstance(table, dict):
        longest = max((str.__len__(v) for v in table.values() if isinstance(v, str)), default=1)
        check_sequence_bytes("the translated string", str.__len__(text) * max(longest, 1) * 4)
    return raw(text, table, *args)


@gateway
def _guard_format(sandbox: Sandbox, raw: Any, template: Any, *args: Any, **kwargs: Any) -> str:
    if not isinstance(template, str):
        return raw(template, *args, **kwargs)  # the descriptor's own TypeError
    return sandbox.formatter.vformat(template, args, kwargs)


@gateway
def _guard_format_map(sandbox: Sandbox, raw: Any, template: Any, *args: Any) -> str:
    if not isinstance(template, str) or len(args) != 1:
        return raw(template, *args)  # the descriptor's own TypeError
    return sandbox.formatter.vformat(template, None, args[0])


_GUARDS: dict[str, Callable[..., Any]] = {
    "join": _guard_join, "replace": _guard_replace, "expandtabs": _guard_expandtabs,
    "translate": _guard_translate, "format": _guard_format, "format_map": _guard_format_map,
    **{m: _guard_width(m) for m in ("ljust", "rjust", "center", "zfill")},
}
# The raw, unbound methods (`str.format`, `bytes.join`, ...) -> (class, name).
_RAW_METHODS: dict[Any, tuple[type, str]] = {
    getattr(cls, name): (cls, name) for cls in _TEXT_TYPES for name in _GUARDS if hasattr(cls, name)
}


def guarded_string_method(sandbox: Sandbox, value: Any) -> Callable[..., Any] | None:
    """The guarded stand-in when value is one of the raw methods above, bound or unbound."""
    if type(value) is types.BuiltinMethodType:
        owner = value.__self__
        if isinstance(owner, _TEXT_TYPES) and value.__name__ in _GUARDS:
            cls = _text_type(owner)
            raw = getattr(cls, value.__name__)
            return bound(_GUARDS[value.__name__], sandbox, raw, owner, name=f"{type(owner).__name__}.{value.__name__}")
    elif type(value) is types.MethodDescriptorType and value in _RAW_METHODS:
        cls, name = _RAW_METHODS[value]
        return bound(_GUARDS[name], sandbox, value, name=f"{cls.__name__}.{name}")
    return None
