"""Grad mode: whether ops record the graph (torch.no_grad / enable_grad / set_grad_enabled)."""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable
from typing import Any

from engine import runtime


class GradMode:
    """Whether ops record the graph (`enabled`, what ops read), and whether new tensors are inference
    tensors: a part of the engine's runtime. Inside inference mode nothing records even under
    enable_grad, whose flag (`grad`, what is_grad_enabled says there) is kept apart, as torch's
    GradMode flag is apart from the dispatch keys InferenceMode removes."""

    __slots__ = ("enabled", "inference", "grad")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        self.grad = True


state: GradMode = runtime.slot(__name__, "state", GradMode)


def is_grad_enabled() -> bool:
    return state.grad if state.inference else state.enabled


def _set_grad(mode: bool) -> tuple[bool, bool]:
    """Set grad mode; the state before, for _restore_grad."""
    before = (state.enabled, state.grad)
    state.grad = mode
    state.enabled = mode and not state.inference
    return before


def _restore_grad(before: tuple[bool, bool]) -> None:
    state.enabled, state.grad = before


def _decorate(factory: Callable[[], Any], fn: Callable[..., Any]) -> Callable[..., Any]:
    """torch's context_decorator: run fn under a fresh context; a generator function gets the mode
    at every resume and its caller's mode back at every yield (torch's _wrap_generator)."""
    if inspect.isclass(fn):  # torch 2.13 still decorates a class (its construction), with a warning
        warnings.warn("Decorating classes is deprecated and will be disabled in future versions. You should only "
                      "decorate functions or methods. To preserve the current behavior of class decoration, you can "
                      "directly decorate the `__init__` method and nothing else.", FutureWarning, stacklevel=3)
        cls = fn

        def fn(*args: Any, **kwargs: Any) -> Any:
            return cls(*args, **kwargs)
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def generator_context(*args: Any, **kwargs: Any) -> Any:
            gen = fn(*args, **kwargs)
            try:
                with factory():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with factory():
                            gen.close()
                        raise
                    except BaseException:
                        with factory():
                            response = gen.throw(*sys.exc_info())
                    else:
                        with factory():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator_context

    @functools.wraps(fn)
    def decorate_context(*args: Any, **kwargs: Any) -> Any:
        with factory():
            return fn(*args, **kwargs)

    return decorate_context


class set_grad_enabled:  # noqa: N801 - torch's name
    """Sets grad mode on construction (as torch does) and restores the previous mode on exit; as a
    decorator it restores the mode at once and sets it around each call."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self.prev = _set_grad(self.mode)

    def __enter__(self) -> None:
        _set_grad(self.mode)

    def __exit__(self, *exc: object) -> None:
        _restore_grad(self.prev)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        _restore_grad(self.prev)
        return _decorate(lambda: set_grad_enabled(self.mode), fn)


class _GradModeContext:
    """Base of no_grad/enable_grad: a `with` block, a decorator with or without parentheses."""

    mode: bool

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # @torch.no_grad without parentheses

    def __enter__(self) -> None:
        self.prev = _set_grad(self.mode)

    def __exit__(self, *exc: object) -> None:
        _restore_grad(self.prev)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return _decorate(type(self), fn)


class no_grad(_GradModeContext):  # noqa: N801
    mode = False


class enable_grad(_GradModeContext):  # noqa: N801
    mode = True


class inference_mode:  # noqa: N801
    """No graph, and tensors allocated inside are inference tensors: no version counter, and no
    in-place change to them once the mode is left."""

    def __new__(cls, mode: Any = True) -> Any:
        if mode is None or isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @torch.inference_mode without parentheses, or inference_mode(mode=fn)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference, state.grad)
        # torch's InferenceMode guard: on disables grad mode, off (inference_mode(False)) enables it
        state.enabled, state.inference, state.grad = not self.mode, self.mode, not self.mode

    def __exit__(self, *exc: object) -> None:
        state.enabled, state.inference, state.grad = self.prev

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        mode = self.mode
        return _decorate(lambda: inference_mode(mode), fn)


def is_inference_mode_enabled() -> bool:
    return state.inference
