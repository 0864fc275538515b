"""Grad mode: whether ops record the graph (torch.no_grad / enable_grad / set_grad_enabled)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from engine import runtime


class GradMode:
    """Whether ops record the graph, and whether new tensors are inference tensors: a part of the
    engine's runtime."""

    __slots__ = ("enabled", "inference")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False


state: GradMode = runtime.slot(__name__, "state", GradMode)


def is_grad_enabled() -> bool:
    return state.enabled


class set_grad_enabled:  # noqa: N801 - torch's name
    """Sets grad mode on construction (as torch does) and restores the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        state.enabled = self.prev


class _GradModeContext:
    """Base of no_grad/enable_grad: usable as `with` block and as a decorator."""

    mode: bool

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        state.enabled = self.prev

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with type(self)():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):  # noqa: N801
    mode = False


class enable_grad(_GradModeContext):  # noqa: N801
    mode = True


class inference_mode:  # noqa: N801
    """No graph, and tensors allocated inside are inference tensors: no version counter, and no
    in-place change to them once the mode is left."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled, state.inference = False, True

    def __exit__(self, *exc: object) -> None:
        state.enabled, state.inference = self.prev

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(self.mode):
                return fn(*args, **kwargs)

        return wrapper


def is_inference_mode_enabled() -> bool:
    return state.inference
