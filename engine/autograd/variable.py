"""torch.autograd.Variable: the pre-0.4 wrapper, today a way to spell `data.detach().requires_grad_(...)`."""

from __future__ import annotations

import warnings
from typing import Any


class _VariableMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        from engine.tensor import Tensor

        return isinstance(other, Tensor)


class _ExecutionEngine:
    """Variable._execution_engine: the backward engine's one public hook, final callbacks."""

    @staticmethod
    def queue_callback(callback: Any) -> None:
        from engine.autograd.engine import queue_callback

        queue_callback(callback)


class Variable(metaclass=_VariableMeta):
    """`Variable(t, requires_grad=True)`: a tensor sharing t's memory and version counter, no history."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:  # type: ignore[misc]
        from engine.ops.factories import tensor

        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            data = tensor([])
        return data.detach().requires_grad_(requires_grad)
