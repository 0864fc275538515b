"""numpy's floating-point warnings off for the engine's own arithmetic, cheaply.

torch never warns about inf or nan results (inf - inf, exp(1000), 0 * inf), so the engine's
ops run numpy with its float errors ignored. `np.errstate` does that but rebuilds numpy's error
state on every entry, and even swapping a ready-made state in and out of numpy's context variable
costs a small op more than its arithmetic. So each thread keeps one `contextvars.Context` in which
numpy ignores every float error, and `quietly` runs its call inside it: one C-level switch. User
code around the engine sees numpy's own settings unchanged: its `np.seterr` and `np.errstate`
still apply to what it computes itself.

The quiet context holds nothing but numpy's error state, so `quietly` is for numerical work: code
run in it that read other context variables would see their defaults. A call made while already
quiet (nested, or inside `begin_quiet`'s stretch) runs as it is.

This uses numpy's private `_extobj_contextvar` / `_make_extobj` (numpy is pinned in pyproject;
tests/engine/test_quiet.py fails on a numpy without them).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import Context, ContextVar, Token
from typing import Any, TypeVar

from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

T = TypeVar("T")

_IGNORING = _make_extobj(all="ignore")
_quiet = ContextVar("engine_quiet", default=False)  # True where numpy's float errors are already ignored
_thread = threading.local()  # .context: this thread's quiet context (a thread-local read costs less than a dict's)


def _enter_quiet() -> None:
    _extobj_contextvar.set(_IGNORING)
    _quiet.set(True)


def _context_of_this_thread() -> Context:
    """The calling thread's quiet context, made on first use (a Context runs in one thread at a time)."""
    context = _thread.context = Context()
    context.run(_enter_quiet)
    return context


def _quiet_context() -> Context:
    try:
        return _thread.context
    except AttributeError:
        return _context_of_this_thread()


def quietly(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """fn(*args, **kwargs) with numpy's floating-point errors ignored, as `np.errstate(all="ignore")`."""
    if _quiet.get():
        return fn(*args, **kwargs)
    return _quiet_context().run(fn, *args, **kwargs)


def begin_quiet() -> tuple[Token[Any], Token[bool]]:
    """Start a stretch of engine arithmetic with numpy's floating-point errors ignored (the backward
    pass, which runs user hooks too), as entering `np.errstate(all="ignore")` would; `end_quiet`
    with what this returns ends it."""
    return _extobj_contextvar.set(_IGNORING), _quiet.set(True)


def end_quiet(tokens: tuple[Token[Any], Token[bool]]) -> None:
    """Give back the numpy error state `begin_quiet` found."""
    extobj, quiet = tokens
    _quiet.reset(quiet)
    _extobj_contextvar.reset(extobj)


def quiet_unary(fn: Callable[[Any], T], a: Any) -> T:
    """fn(a), quietly: `quietly` for a one-operand numpy call on the hot path, without its *args."""
    if _quiet.get():
        return fn(a)
    try:
        context = _thread.context
    except AttributeError:
        context = _context_of_this_thread()
    return context.run(fn, a)


def quiet_binary(fn: Callable[[Any, Any], T], a: Any, b: Any) -> T:
    """fn(a, b), quietly: `quietly` for a two-operand numpy call on the hot path, without its *args."""
    if _quiet.get():
        return fn(a, b)
    try:
        context = _thread.context
    except AttributeError:
        context = _context_of_this_thread()
    return context.run(fn, a, b)
