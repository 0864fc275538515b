"""paddle.tensor: Paddle's tensor-function namespace, callable as well (`paddle.tensor([1, 2])`).

It holds every tensor function of `paddle` plus the in-place forms Paddle keeps only here
(`paddle.tensor.add_` exists, `paddle.add_` does not: the guide's `paddle.add_(a, b)` fails in
Paddle, `paddle.tensor.add_(a, b)` works). The module itself is callable, as Paddle's object is.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from engine.paddle import creation, elementwise, inplace, manipulation, ops
from engine.paddle.tensor import Tensor

ONLY_HERE = ("add_", "ceil_", "clip_", "exp_", "floor_", "reciprocal_", "round_", "rsqrt_", "scale_", "sigmoid_",
             "sqrt_", "uniform_")


def _functions() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for module in (creation, ops, elementwise, manipulation, inplace):
        for name in getattr(module, "__all__", ()):
            found[name] = getattr(module, name)
    for name in ONLY_HERE:
        found[name] = getattr(Tensor, name)
    found["clamp_"] = found["clip_"]
    found["mul_"] = Tensor.multiply_
    return found


class _CallableModule(types.ModuleType):
    def __call__(self, data: Any, dtype: Any = None, place: Any = None, stop_gradient: bool = True) -> Tensor:
        return creation.to_tensor(data, dtype, place, stop_gradient)

    def __getattr__(self, name: str) -> Any:
        from engine.paddle.messages import missing

        raise missing("paddle.tensor", name)


globals().update(_functions())
__all__ = sorted(_functions())
sys.modules[__name__].__class__ = _CallableModule
