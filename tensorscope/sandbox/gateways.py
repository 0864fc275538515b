"""Where user-level errors may arise: the line between a user's mistake and a bug of ours.

Functions decorated with `@gateway` are where user-level errors are expected to arise (a TypeError
from `1 + "a"`, the MemoryError of a size guard); an exception raised by any other code of the
sandbox or the interpreter is a bug, reported as InternalError (see `is_user_error`).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

_GATEWAY_CODES: set[types.CodeType] = set()
_OWN_PACKAGES = ("tensorscope.sandbox", "tensorscope.interpreter")
_OWN_PREFIXES = tuple(package + "." for package in _OWN_PACKAGES)


def is_own_module(name: object) -> bool:
    """Whether a module name belongs to the sandbox or the interpreter."""
    return isinstance(name, str) and (name in _OWN_PACKAGES or name.startswith(_OWN_PREFIXES))


def gateway(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark fn (and the functions and generator expressions nested in it) as a place where a
    user-level error may legitimately be raised."""
    _register_code(fn.__code__)
    return fn


def _register_code(code: types.CodeType) -> None:
    _GATEWAY_CODES.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _register_code(const)


def is_user_error(exc: BaseException) -> bool:
    """True when exc comes from user code, the engine or a library; False when tensorscope's own
    code raised it outside a gateway, which means a bug in the interpreter."""
    last_own: types.CodeType | None = None
    foreign_after = False
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_own_module(frame.f_globals.get("__name__")):
            last_own, foreign_after = frame.f_code, False
        elif last_own is not None:
            foreign_after = True
        tb = tb.tb_next
    return last_own is None or foreign_after or last_own in _GATEWAY_CODES
