"""Callables user code hands to code that is not interpreted (a sort key, a reduce function, a
default factory): they are called back only through the interpreter's own call, never directly.

The interpreter's call (`Sandbox.call`) is what meters a call (a step; a depth for user functions),
runs user code only while a statement runs, refuses the constructions the policy forbids
(`type(name, bases, dict)`, engine internals, numpy arrays over raw memory) and checks the result.
C code calling a user-chosen callable directly would skip all of that: `sorted([b], key=cls)`
would construct `cls(b)` unchecked. So every callable that crosses into such code is wrapped by
`through` first.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import Meter

Call = Callable[..., Any]  # the interpreter's call: call(func, *args, **kwargs)


def through(call: Call, fn: Any) -> Any:
    """fn as a plain function that runs through the interpreter's call (None stays None, as for
    `key=None`). Its name and docstring are fn's, so wrappers such as lru_cache's show them."""
    if fn is None:
        return None

    @gateway
    def callback(*args: Any, **kwargs: Any) -> Any:
        return call(fn, *args, **kwargs)

    for attribute in ("__name__", "__qualname__", "__doc__"):
        value = getattr(fn, attribute, None)
        if isinstance(value, str):
            setattr(callback, attribute, value)
    return callback


def is_list_sort(value: Any) -> bool:
    """`xs.sort`, `list.sort` or `super(L, xs).sort`: the one builtin method that takes a key."""
    if type(value) is types.BuiltinMethodType:
        return value.__name__ == "sort" and isinstance(value.__self__, list)
    return value is list.sort


@gateway
def guarded_sort(call: Call, meter: Meter, raw: Any, *args: Any, key: Any = None, reverse: bool = False) -> None:
    """list.sort with its key called through the interpreter, costing a step per item."""
    items = raw.__self__ if type(raw) is types.BuiltinMethodType else (args[0] if args else None)
    if isinstance(items, list):
        meter.tick(list.__len__(items))
    return raw(*args, key=through(call, key), reverse=reverse)
