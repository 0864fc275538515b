"""The engine's mutable state as one object, so two sessions in one process never meet.

Everything a run changes beyond its tensors (host byte accounting, the default random generator,
the simulated CUDA device, grad mode, the default dtype, the device ops run on, the Paddle
dialect's name counters and place) is a *part* of a Runtime. A stateful module declares its part
once, `state = runtime.slot(__name__, "state", GradMode)`, and its code goes on reading the module
attribute (`grad_mode.state.enabled`); activating a runtime points every declared attribute at
that runtime's part. A read on an op's hot path therefore costs what it cost when the state was a
plain module global, and switching runtimes costs one attribute assignment per part.

`import engine as torch` outside any session works on the default runtime, active from import on.
One runtime is active at a time in a process: activation is process-wide, not per thread.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class _Slot:
    module: ModuleType
    attribute: str
    factory: Callable[[], Any]


_slots: dict[str, _Slot] = {}


class Runtime:
    """One engine's state: a fresh part per declared slot, made the first time it is needed."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: dict[str, Any] = {}

    def part(self, key: str) -> Any:
        found = self.parts.get(key)
        if found is None:
            found = self.parts[key] = _slots[key].factory()
        return found

    @contextmanager
    def active(self) -> Iterator[Runtime]:
        """Make this runtime the engine's state for the block; the previous one comes back after."""
        previous = current
        _install(self)
        try:
            yield self
        finally:
            _install(previous)


def slot(module_name: str, attribute: str, factory: Callable[[], T]) -> T:
    """Declare `module_name.attribute` a runtime part made by `factory`; returns the active
    runtime's instance, for the module to bind to that attribute."""
    key = f"{module_name}.{attribute}"
    _slots[key] = _Slot(sys.modules[module_name], attribute, factory)
    return current.part(key)


def _install(runtime: Runtime) -> None:
    global current
    current = runtime
    for key, declared in _slots.items():
        setattr(declared.module, declared.attribute, runtime.part(key))


default = Runtime()
current = default
