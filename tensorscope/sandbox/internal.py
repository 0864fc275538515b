"""Our own classes that user code can hold, recognised by identity.

User code meets a few objects of the interpreter itself: its functions (UserFunction), module
proxies, metered iterators. Each such class is registered here with the attributes user code may
read. Membership is decided by the class object itself, never by `__module__` or any other
attribute: a user class that calls itself `tensorscope.sandbox` is still a user class.

Such objects hold the interpreter or its meter, so they cannot be copied or pickled (copying one
would copy the interpreter); the classes whose instances run user code (user functions, see
`user_code`) are copied as Python copies functions: not at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorscope.sandbox.gateways import gateway

_INTERNAL: dict[type, frozenset[str]] = {}
_USER_CODE: set[type] = set()


def internal(*public_attributes: str) -> Callable[[type], type]:
    """Class decorator: register cls as ours, readable by user code only through these names."""

    def register(cls: type) -> type:
        _INTERNAL[cls] = frozenset(public_attributes)
        if not issubclass(cls, BaseException) and "__reduce_ex__" not in vars(cls):
            cls.__reduce_ex__ = _cannot_pickle  # type: ignore[method-assign]
        return cls

    return register


def user_code(cls: type) -> type:
    """Class decorator: instances of cls are user code that runs only through the interpreter
    (metered, only during a statement), so Python may call them implicitly (as a class's dunder
    methods, a property's getter, a callback); copying one gives itself, as for a Python function."""
    _USER_CODE.add(cls)
    cls.__copy__ = _itself  # type: ignore[attr-defined]
    cls.__deepcopy__ = _itself  # type: ignore[attr-defined]
    return cls


def is_user_code(value: Any) -> bool:
    return type(value) in _USER_CODE


def _itself(self: Any, memo: Any = None) -> Any:
    return self


@gateway
def _cannot_pickle(self: Any, protocol: Any = None) -> Any:
    raise TypeError(f"cannot pickle '{type(self).__name__}' object")


def class_of(obj: Any) -> type:
    return obj if isinstance(obj, type) else type(obj)


def is_internal(obj: Any) -> bool:
    """Whether obj is one of our registered classes or an instance of one."""
    return class_of(obj) in _INTERNAL


def internal_attributes(obj: Any) -> frozenset[str]:
    """What user code may read on an internal object (besides `__name__` and `__qualname__`)."""
    return _INTERNAL[class_of(obj)]
