"""`operator`: the operators as functions, each doing what the interpreter does for the operator.

The arithmetic ones pass the same size guards as `*`, `**`, `<<`, `+` and `%` (CPython's
`operator.mul([0], 10**12)` would build the list); `contains` on a range scans it at a step per
item, as `in` does; `countOf`/`indexOf` consume a metered iterator. `attrgetter` reads through the
attribute policy, `methodcaller` and `call` call through the interpreter (CPython's would read
`__globals__` or construct any class unchecked).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import Counted
from tensorscope.sandbox.sizes import check_binop, range_length

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

_BINARY = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and_", "or_",
           "xor", "iadd", "isub", "imul", "imatmul", "itruediv", "ifloordiv", "imod", "ipow", "ilshift", "irshift",
           "iand", "ior", "ixor")
_PLAIN = ("neg", "pos", "abs", "invert", "inv", "not_", "truth", "index", "eq", "ne", "lt", "le", "gt", "ge", "is_",
          "is_not", "getitem", "setitem", "delitem", "itemgetter", "length_hint")
NAMES = (*_BINARY, *_PLAIN, "concat", "iconcat", "contains", "countOf", "indexOf", "attrgetter", "methodcaller",
         "call")


@gateway
def guarded_binary(op: Callable[[Any, Any], Any], checked_as: Callable[[Any, Any], Any] | None = None) -> Callable[..., Any]:
    """op(a, b) after the size guard of the operator it is (`checked_as`, by default op itself)."""
    guard = op if checked_as is None else checked_as

    def apply(a: Any, b: Any, /) -> Any:
        check_binop(guard, a, b)
        return op(a, b)

    apply.__name__ = apply.__qualname__ = op.__name__
    apply.__doc__ = op.__doc__
    return apply


@gateway
def make_operator_module(sandbox: Sandbox) -> dict[str, Any]:
    meter, call, read = sandbox.meter, sandbox.call, sandbox.getattr

    def contains(a: Any, b: Any, /) -> bool:
        if type(a) is range and type(b) not in (int, bool):
            meter.tick(range_length(a))
        return operator.contains(a, b)

    def countOf(a: Any, b: Any, /) -> int:  # noqa: N802 - CPython's name
        return operator.countOf(Counted(iter(a), meter), b)

    def indexOf(a: Any, b: Any, /) -> int:  # noqa: N802 - CPython's name
        return operator.indexOf(Counted(iter(a), meter), b)

    class attrgetter:  # noqa: N801 - CPython's name
        """attrgetter('a', 'b.c'): reads through the attribute policy."""

        __slots__ = ("_paths",)

        def __init__(self, attr: Any, *attrs: Any) -> None:
            if not all(isinstance(a, str) for a in (attr, *attrs)):
                raise TypeError("attribute name must be a string")
            self._paths = tuple(a.split(".") for a in (attr, *attrs))

        def __call__(self, obj: Any, /) -> Any:
            values = []
            for path in self._paths:
                value = obj
                for name in path:
                    value = read(value, name)
                values.append(value)
            return values[0] if len(values) == 1 else tuple(values)

        def __repr__(self) -> str:
            return f"operator.attrgetter({', '.join(repr('.'.join(p)) for p in self._paths)})"

    class methodcaller:  # noqa: N801 - CPython's name
        """methodcaller('name', *args, **kwargs): reads and calls through the interpreter."""

        __slots__ = ("_args", "_kwargs", "_name")

        def __init__(self, name: Any, /, *args: Any, **kwargs: Any) -> None:
            if not isinstance(name, str):
                raise TypeError("method name must be a string")
            self._name, self._args, self._kwargs = name, args, kwargs

        def __call__(self, obj: Any, /) -> Any:
            return call(read(obj, self._name), *self._args, **self._kwargs)

        def __repr__(self) -> str:
            parts = [repr(self._name), *map(repr, self._args), *(f"{k}={v!r}" for k, v in self._kwargs.items())]
            return f"operator.methodcaller({', '.join(parts)})"

    def call_(obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        return call(obj, *args, **kwargs)

    call_.__name__ = call_.__qualname__ = "call"
    for cls in (attrgetter, methodcaller):
        cls.__module__ = "operator"
    return {**{name: guarded_binary(getattr(operator, name)) for name in _BINARY},
            **{name: getattr(operator, name) for name in _PLAIN},
            "concat": guarded_binary(operator.concat, operator.add),
            "iconcat": guarded_binary(operator.iconcat, operator.iadd),
            "contains": contains, "countOf": countOf, "indexOf": indexOf, "attrgetter": attrgetter,
            "methodcaller": methodcaller, "call": call_}
