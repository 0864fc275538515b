"""Format guards and size-guarded string methods.

`str.format`, `format_map` and friends are replaced, for every string and for the `str` class
itself, by versions whose field names follow the attribute policy and whose results are capped.
"""

from __future__ import annotations

import _string
import operator
import string
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import MAX_ITEMS, Counted, refuse_size
from tensorscope.sandbox.sizes import check_format_spec, is_int

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox


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
    """str.format whose field names follow the attribute policy and whose widths are capped."""

    def __init__(self, read_attribute: Callable[[Any, str], Any]) -> None:
        self._read_attribute = read_attribute

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
        return format(value, format_spec)


@gateway
def _guard_join(sandbox: Sandbox, sep: Any, iterable: Any) -> Any:
    items = list(Counted(iter(iterable), sandbox.meter))
    size = sum(len(i) for i in items if isinstance(i, (str, bytes, bytearray))) + len(sep) * max(len(items) - 1, 0)
    if size > MAX_ITEMS:
        raise refuse_size("the joined string", size, MAX_ITEMS, "characters")
    return sep.join(items)


def _guard_width(method: str) -> Callable[..., Any]:
    @gateway
    def padded(sandbox: Sandbox, text: Any, width: Any, *args: Any) -> Any:
        if hasattr(type(width), "__index__") and operator.index(width) > MAX_ITEMS:
            raise refuse_size(f"{method}()", operator.index(width), MAX_ITEMS, "characters")
        return getattr(text, method)(width, *args)

    return padded


@gateway
def _guard_replace(sandbox: Sandbox, text: Any, old: Any, new: Any, count: Any = -1) -> Any:
    if isinstance(old, type(text)) and isinstance(new, type(text)):
        hits = text.count(old) + (0 if old else 1)
        size = len(text) + hits * (len(new) - len(old))
        if size > MAX_ITEMS:
            raise refuse_size("the replaced string", size, MAX_ITEMS, "characters")
    return text.replace(old, new, count)


@gateway
def _guard_expandtabs(sandbox: Sandbox, text: Any, tabsize: Any = 8) -> Any:
    tab = "\t" if isinstance(text, str) else b"\t"
    if is_int(tabsize) and len(text) + text.count(tab) * tabsize > MAX_ITEMS:
        raise refuse_size("expandtabs()", len(text) + text.count(tab) * tabsize, MAX_ITEMS, "characters")
    return text.expandtabs(tabsize)


@gateway
def _guard_translate(sandbox: Sandbox, text: Any, table: Any) -> Any:
    if isinstance(text, str) and isinstance(table, dict):
        longest = max((len(v) for v in table.values() if isinstance(v, str)), default=1)
        if len(text) * longest > MAX_ITEMS:
            raise refuse_size("the translated string", len(text) * longest, MAX_ITEMS, "characters")
    return text.translate(table)


@gateway
def _guard_format(sandbox: Sandbox, template: Any, *args: Any, **kwargs: Any) -> str:
    if not isinstance(template, str):
        raise TypeError(f"descriptor 'format' for 'str' objects doesn't apply to a '{type(template).__name__}' object")
    return sandbox.formatter.vformat(template, args, kwargs)


@gateway
def _guard_format_map(sandbox: Sandbox, template: Any, mapping: Any) -> str:
    if not isinstance(template, str):
        raise TypeError(f"descriptor 'format_map' for 'str' objects doesn't apply to a '{type(template).__name__}' object")
    return sandbox.formatter.vformat(template, (), mapping)


STRING_GUARDS: dict[str, Callable[..., Any]] = {
    "join": _guard_join, "replace": _guard_replace, "expandtabs": _guard_expandtabs,
    "translate": _guard_translate, "format": _guard_format, "format_map": _guard_format_map,
    **{m: _guard_width(m) for m in ("ljust", "rjust", "center", "zfill")},
}
