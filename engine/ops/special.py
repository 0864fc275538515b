"""Pointwise special functions losses and numerically careful code reach for: xlogy (x * log(y), 0 where
x is 0), with torch's nodes for each overload (XlogyBackward0 for two tensors, XlogyBackward1 for a
number as x, XlogyBackward2 for a number as y). Their derivatives are in
engine/autograd/derivatives/pointwise.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes
from engine.ops.core import (
    apply_inplace,
    array_of,
    check_inplace_allowed,
    check_writable,
    record,
    result_type,
)
from engine.tensor import Tensor

Operand = Tensor | float | int | bool


def _float_result(self: Operand, other: Operand) -> dtypes.dtype:
    dt = result_type(self, other)
    return dt if dt.is_floating_point else dtypes.get_default_dtype()


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ATen's kernel: NaN where y is NaN, else 0 where x is 0, else x * log(y)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = x * np.log(y)
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, value))


def _node(self: Operand, other: Operand) -> tuple[str, tuple[Any, ...], dict[str, Any], dict[str, Any]]:
    if not isinstance(self, Tensor):
        return "XlogyBackward1", (other,), {"other": other}, {"self": self}
    if not isinstance(other, Tensor):
        return "XlogyBackward2", (self,), {"self": self}, {"other": other}
    return "XlogyBackward0", (self, other), {"other": other, "self": self}, {}


def xlogy(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
    from engine.ops.pointwise import write_out

    dt = _float_result(self, other)
    result = np.asarray(_xlogy(array_of(self, dt), array_of(other, dt)), dtype=dt.np)
    name, inputs, save, values = _node(self, other)
    if out is not None:
        return write_out(out, result, "xlogy", inputs)
    t = Tensor._wrap(np.array(result, order="C"), dt)
    record(name, t, inputs, save=save, values=values)
    return t


def xlogy_(self: Tensor, other: Operand) -> Tensor:
    check_inplace_allowed(self)
    dt = _float_result(self, other)
    check_writable(self, dt, [other._shape] if isinstance(other, Tensor) else [])
    y = array_of(other, dt)
    name, inputs, save, values = _node(self, other)

    def write(target: np.ndarray) -> None:
        target[...] = _xlogy(target.astype(dt.np), y)

    others = {k: v for k, v in save.items() if k != "self"}
    return apply_inplace(self, write, name, inputs[1:], save=others, save_self_copy="self", check_autograd=False,
                         values=values)


METHODS: dict[str, Callable[..., Any]] = {"xlogy": xlogy, "xlogy_": xlogy_}
FUNCTIONS: dict[str, Callable[..., Any]] = {"xlogy": xlogy, "xlogy_": xlogy_}
