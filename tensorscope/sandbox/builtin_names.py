"""The names user code sees besides its own: an explicit table of builtins, metered where needed."""

from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.callbacks import through
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import Counted
from tensorscope.sandbox.sizes import (
    check_binop,
    check_format_spec,
    check_int_pow,
    check_modular_pow,
)

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

_PLAIN_BUILTINS = (
    "abs", "all", "any", "ascii", "bin", "bool", "callable", "chr", "classmethod", "complex", "dict",
    "divmod", "float", "frozenset", "hash", "hex", "id", "int", "isinstance", "issubclass", "len",
    "list", "next", "object", "oct", "ord", "property", "range", "repr", "round", "set",
    "slice", "staticmethod", "str", "super", "tuple", "type", "NotImplemented", "Ellipsis",
    "BaseException", "Exception", "ArithmeticError", "AssertionError", "AttributeError", "BufferError",
    "EOFError", "FloatingPointError", "ImportError", "IndexError", "KeyError", "LookupError",
    "MemoryError", "ModuleNotFoundError", "NameError", "NotImplementedError", "OSError",
    "OverflowError", "RecursionError", "ReferenceError", "RuntimeError", "StopIteration",
    "TypeError", "UnboundLocalError", "UnicodeError", "ValueError", "ZeroDivisionError", "Warning",
    "UserWarning", "DeprecationWarning", "RuntimeWarning", "FutureWarning",
)
_METERED_BUILTINS = ("print", "iter", "zip", "enumerate", "reversed", "map", "filter", "sum", "pow",
                     "format", "getattr", "hasattr", "setattr", "delattr", "dir", "sorted", "min", "max")
_LEFT_OUT = (frozenset(n for n in dir(builtins) if not n.startswith("_"))
             - frozenset(_PLAIN_BUILTINS) - frozenset(_METERED_BUILTINS)) | {"__import__", "__build_class__", "__builtins__"}
_NO_SENTINEL = object()
_NUMBERS = frozenset({int, float, complex, bool})


def left_out_builtin(name: str) -> bool:
    """Whether `name` is a Python builtin tensorscope deliberately leaves out (open, eval, ...)."""
    return name in _LEFT_OUT


def make_builtins(sandbox: Sandbox) -> dict[str, Any]:
    """The names user code sees besides its own: an explicit allowlist, metered where needed."""
    meter = sandbox.meter
    table: dict[str, Any] = {name: builtins.getattr(builtins, name) for name in _PLAIN_BUILTINS}
    table["type"] = sandbox.stand_ins.of(type)  # `type(x)` as itself; `type(n, b, d)` by whoever calls it is checked

    @gateway
    def print(*values: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False) -> None:
        if file is not None:
            raise TypeError("print(file=...) is not supported in tensorscope")
        for what, value in (("sep", sep), ("end", end)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{what} must be None or a string, not {type(value).__name__}")
        sep = " " if sep is None else sep
        texts, counted = [], 0
        for value in values:  # counted as they are made: print(*[big] * 1000) stops at the limit
            texts.append(str(value))
            chars = len(texts[-1]) + (len(sep) if len(texts) > 1 else 0)
            sandbox.count_output(chars)
            counted += chars
        sandbox.write(sep.join(texts) + ("\n" if end is None else end), counted)

    @gateway
    def iter(obj: Any, sentinel: Any = _NO_SENTINEL) -> Counted:
        if sentinel is not _NO_SENTINEL:
            if not callable(obj):
                raise TypeError("iter(v, w): v must be callable")
            return Counted(builtins.iter(lambda: sandbox.call(obj), sentinel), meter)
        return obj if isinstance(obj, Counted) else Counted(builtins.iter(obj), meter)

    @gateway
    def zip(*iterables: Any, strict: bool = False) -> Counted:
        return Counted(builtins.zip(*iterables, strict=strict), meter)

    @gateway
    def enumerate(iterable: Any, start: int = 0) -> Counted:
        return Counted(builtins.enumerate(iterable, start), meter)

    @gateway
    def reversed(sequence: Any) -> Counted:
        return Counted(builtins.reversed(sequence), meter)

    @gateway
    def map(function: Any, *iterables: Any) -> Counted:
        if not iterables:
            raise TypeError("map() must have at least two arguments.")
        iterators = [builtins.iter(i) for i in iterables]
        return Counted((sandbox.call(function, *items) for items in builtins.zip(*iterators, strict=False)), meter)

    @gateway
    def filter(function: Any, iterable: Any) -> Counted:
        iterator = builtins.iter(iterable)
        if function is None:
            return Counted((x for x in iterator if x), meter)
        return Counted((x for x in iterator if sandbox.call(function, x)), meter)

    @gateway
    def sum(iterable: Any, /, start: Any = 0) -> Any:
        if type(start) in _NUMBERS and (type(iterable) is range or (
                type(iterable) in (list, tuple) and all(type(v) in _NUMBERS for v in iterable))):
            return builtins.sum(iterable, start)  # plain numbers: C speed, nothing to guard
        if isinstance(start, (str, bytes, bytearray)):
            raise TypeError(f"sum() can't sum {type(start).__name__} [use ''.join(seq) instead]")
        for value in Counted(builtins.iter(iterable), meter):
            check_binop(operator.add, start, value)
            start = start + value
        return start

    @gateway
    def sorted(iterable: Any, /, *, key: Any = None, reverse: bool = False) -> list[Any]:
        return builtins.sorted(iterable, key=through(sandbox.call, key), reverse=reverse)

    @gateway
    def min(*args: Any, key: Any = None, **default: Any) -> Any:
        return builtins.min(*args, key=through(sandbox.call, key), **default)

    @gateway
    def max(*args: Any, key: Any = None, **default: Any) -> Any:
        return builtins.max(*args, key=through(sandbox.call, key), **default)

    @gateway
    def pow(base: Any, exp: Any, mod: Any = None) -> Any:
        if mod is None:
            check_int_pow(base, exp)
        else:
            check_modular_pow(exp, mod)
        return builtins.pow(base, exp, mod)

    @gateway
    def format(value: Any, format_spec: str = "") -> str:
        check_format_spec(format_spec)
        return builtins.format(value, format_spec)

    @gateway
    def getattr(obj: Any, name: Any, *default: Any) -> Any:
        if len(default) > 1:
            raise TypeError(f"getattr expected at most 3 arguments, got {2 + len(default)}")
        try:
            return sandbox.getattr(obj, name)
        except AttributeError:
            if default:
                return default[0]
            raise

    @gateway
    def hasattr(obj: Any, name: Any) -> bool:
        try:
            sandbox.getattr(obj, name)
        except AttributeError:
            return False
        return True

    @gateway
    def setattr(obj: Any, name: Any, value: Any) -> None:
        sandbox.setattr(obj, name, value)

    @gateway
    def delattr(obj: Any, name: Any) -> None:
        sandbox.delattr(obj, name)

    @gateway
    def dir(*obj: Any) -> list[str]:
        if not obj:
            return sorted(sandbox.namespace)
        return [name for name in builtins.dir(*obj) if not name.startswith("_") and sandbox.readable(obj[0], name)]

    metered = (print, iter, zip, enumerate, reversed, map, filter, sum, pow, format, getattr, hasattr,
               setattr, delattr, dir, sorted, min, max)
    for fn in metered:
        fn.__qualname__ = fn.__name__  # error messages say `print()`, as Python's do
    table.update({fn.__name__: fn for fn in metered}, __name__="__main__")
    sandbox.free_ids.update(id(fn) for fn in (
        len, isinstance, issubclass, id, type, callable, next, builtins.range, super, bool,
        getattr, hasattr, setattr, delattr, iter, zip, enumerate, reversed, map, filter))
    return table
