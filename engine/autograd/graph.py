"""torch.autograd.graph.saved_tensors_hooks: pack/unpack what ops save for backward.

While hooks are active PyTorch skips the version check of the tensors saved under them (a later
in-place change goes unnoticed and the gradient is silently wrong); the engine does the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_active: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []


def current_hooks() -> tuple[Callable[[Any], Any], Callable[[Any], Any]] | None:
    return _active[-1] if _active else None


class saved_tensors_hooks:  # noqa: N801 - torch's name
    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self) -> saved_tensors_hooks:
        _active.append(self.hooks)
        return self

    def __exit__(self, *exc: object) -> None:
        _active.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Everything is on the CPU already: identity hooks."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t, lambda t: t)
