"""numpy's floating-point warnings off for the engine's own arithmetic, cheaply.

torch never warns about inf or nan results (inf - inf, exp(1000), 0 * inf), so the engine's
ops run numpy with its float errors ignored. `np.errstate` does that but rebuilds numpy's error
state on every entry, which costs a small op more than its arithmetic; here the ignoring state
is made once per state the caller had (numpy keeps it in a context variable) and only swapped in
and out around the call. User code around the engine sees numpy's own settings unchanged: its
`np.seterr` and `np.errstate` still apply to what it computes itself, and their other fields
(buffer size, error callback) carry into the engine's calls as `np.errstate(all="ignore")` would.

This uses numpy's private `_extobj_contextvar` / `_make_extobj` (numpy is pinned in pyproject;
tests/engine/test_quiet.py fails on a numpy without them).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import Token
from typing import Any, TypeVar

from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

T = TypeVar("T")

_ignoring: dict[object, object] = {}  # the caller's numpy error state -> the same with all errors ignored
_KEPT = 16  # states remembered (user code making errstates in a loop must not grow this without bound)


def _ignoring_state(current: object) -> object:
    """`current` (a numpy error state) with every float error ignored, made once per state."""
    if len(_ignoring) >= _KEPT:
        _ignoring.clear()
    found = _ignoring[current] = _make_extobj(all="ignore")
    _ignoring[found] = found  # already ignoring: `quietly` inside a quiet stretch finds it at once
    return found


def quietly(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """fn(*args, **kwargs) with numpy's floating-point errors ignored, as `np.errstate(all="ignore")`."""
    current = _extobj_contextvar.get()
    token = _extobj_contextvar.set(_ignoring.get(current) or _ignoring_state(current))
    try:
        return fn(*args, **kwargs)
    finally:
        _extobj_contextvar.reset(token)


def begin_quiet() -> Token[Any]:
    """Start a stretch of engine arithmetic with numpy's floating-point errors ignored (the backward
    pass), as entering `np.errstate(all="ignore")` would; `end_quiet(token)` ends it."""
    current = _extobj_contextvar.get()
    return _extobj_contextvar.set(_ignoring.get(current) or _ignoring_state(current))


def end_quiet(token: Token[Any]) -> None:
    """Give back the numpy error state `begin_quiet` found."""
    _extobj_contextvar.reset(token)
