"""Our own classes that user code can hold, recognised by identity.

User code meets a few objects of the interpreter itself: its functions (UserFunction), module
proxies, metered iterators. Each such class is registered here with the attributes user code may
read. Membership is decided by the class object itself, never by `__module__` or any other
attribute: a user class that calls itself `tensorscope.sandbox` is still a user class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_INTERNAL: dict[type, frozenset[str]] = {}


def internal(*public_attributes: str) -> Callable[[type], type]:
    """Class decorator: register cls as ours, readable by user code only through these names."""

    def register(cls: type) -> type:
        _INTERNAL[cls] = frozenset(public_attributes)
        return cls

    return register


def class_of(obj: Any) -> type:
    return obj if isinstance(obj, type) else type(obj)


def is_internal(obj: Any) -> bool:
    """Whether obj is one of our registered classes or an instance of one."""
    return class_of(obj) in _INTERNAL


def internal_attributes(obj: Any) -> frozenset[str]:
    """What user code may read on an internal object (besides `__name__` and `__qualname__`)."""
    return _INTERNAL[class_of(obj)]
