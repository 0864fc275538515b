"""`functools`: every function handed to it is called back through the interpreter.

`reduce` is a metered loop; `partial` calls its function through the interpreter (CPython's would
call `type('X', (), {...})` or a raw numpy class unchecked); `lru_cache`/`cache` are CPython's
cache around such a call; `cmp_to_key` likewise. `wraps`/`update_wrapper` copy the name,
qualified name, module and docstring and set `__wrapped__`, but never a function's `__dict__` (a
user function's holds the interpreter). `total_ordering` and `cached_property` take only what user
code defined (a class, a function). singledispatch and partialmethod are not offered.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.callbacks import through
from tensorscope.sandbox.classes import is_user_class, is_user_instance, runs_user_code
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import Counted

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

NAMES = ("reduce", "partial", "lru_cache", "cache", "wraps", "update_wrapper", "WRAPPER_ASSIGNMENTS",
         "WRAPPER_UPDATES", "total_ordering", "cmp_to_key", "cached_property")
_COPIED = ("__module__", "__name__", "__qualname__", "__doc__")
_NO_INITIAL: Any = object()


@gateway
def make_functools_module(sandbox: Sandbox) -> dict[str, Any]:
    meter, call = sandbox.meter, sandbox.call

    def reduce(function: Any, iterable: Any, initial: Any = _NO_INITIAL, /) -> Any:
        items = Counted(iter(iterable), meter)
        if initial is _NO_INITIAL:
            try:
                value = next(items)
            except StopIteration:
                raise TypeError("reduce() of empty iterable with no initial value") from None
        else:
            value = initial
        for item in items:
            value = call(function, value, item)
        return value

    class partial:  # noqa: N801 - CPython's name
        """functools.partial, calling through the interpreter."""

        __slots__ = ("_args", "_func", "_keywords")

        def __new__(cls, func: Any, /, *args: Any, **keywords: Any) -> Any:
            if not callable(func):
                raise TypeError("the first argument must be callable")
            if type(func) is partial:  # flattened, as CPython does
                args, keywords, func = (*func._args, *args), {**func._keywords, **keywords}, func._func
            self = object.__new__(cls)
            self._func, self._args, self._keywords = func, args, keywords
            return self

        @property
        def func(self) -> Any:
            return self._func

        @property
        def args(self) -> tuple[Any, ...]:
            return self._args

        @property
        def keywords(self) -> dict[str, Any]:
            return self._keywords

        def __call__(self, /, *args: Any, **keywords: Any) -> Any:
            return call(self._func, *self._args, *args, **{**self._keywords, **keywords})

        def __reduce__(self) -> Any:
            return _rebuild_partial, (type(self), self._func, self._args, self._keywords)

        def __repr__(self) -> str:
            parts = [repr(self._func), *map(repr, self._args), *(f"{k}={v!r}" for k, v in self._keywords.items())]
            name = "functools.partial" if type(self) is partial else type(self).__qualname__
            return f"{name}({', '.join(parts)})"

    def lru_cache(maxsize: Any = 128, typed: bool = False) -> Any:
        if callable(maxsize) and isinstance(typed, bool):
            return functools.lru_cache(128, typed)(through(call, maxsize))
        if maxsize is not None and not isinstance(maxsize, int):
            raise TypeError("Expected first argument to be an integer, a callable, or None")
        return lambda function: functools.lru_cache(maxsize, typed)(through(call, function))

    def cache(function: Any, /) -> Any:
        return functools.lru_cache(None)(through(call, function))

    def update_wrapper(wrapper: Any, wrapped: Any, assigned: Any = _COPIED, updated: Any = ()) -> Any:
        if not (runs_user_code(wrapper) or is_user_instance(wrapper)):  # torch.relu is every session's
            raise TypeError("update_wrapper() updates functions and objects defined in your code in tensorscope")
        for name in assigned:
            if name in _COPIED:
                value = getattr(wrapped, name, None)
                if isinstance(value, str) or (name == "__doc__" and value is None):
                    object.__setattr__(wrapper, name, value)
        object.__setattr__(wrapper, "__wrapped__", wrapped)
        return wrapper

    def wraps(wrapped: Any, assigned: Any = _COPIED, updated: Any = ()) -> Any:
        return partial(update_wrapper, wrapped=wrapped, assigned=assigned, updated=updated)

    def total_ordering(cls: Any) -> Any:
        if not (isinstance(cls, type) and is_user_class(cls)):
            raise TypeError("total_ordering() takes a class defined in your code in tensorscope")
        return functools.total_ordering(cls)

    def cmp_to_key(mycmp: Any) -> Any:
        return functools.cmp_to_key(through(call, mycmp))

    def cached_property(func: Any) -> Any:
        if not runs_user_code(func):
            raise TypeError("cached_property() takes a function defined with def in tensorscope")
        return functools.cached_property(func)

    partial.__module__ = "functools"
    return {"reduce": reduce, "partial": partial, "lru_cache": lru_cache, "cache": cache, "wraps": wraps,
            "update_wrapper": update_wrapper, "WRAPPER_ASSIGNMENTS": _COPIED, "WRAPPER_UPDATES": (),
            "total_ordering": total_ordering, "cmp_to_key": cmp_to_key, "cached_property": cached_property}


@gateway
def _rebuild_partial(cls: type, func: Any, args: tuple[Any, ...], keywords: dict[str, Any]) -> Any:
    return cls(func, *args, **keywords)
