"""Pointwise special functions losses and numerically careful code reach for: xlogy (x * log(y), 0 where
x is 0; XlogyBackward0 for two tensors, XlogyBackward1 for a number as x, XlogyBackward2 for a number as
y), logaddexp/logaddexp2, nan_to_num, logit (LogitBackward0), heaviside (whose derivative torch leaves
unimplemented) and the cross product (LinalgCrossBackward0). Their derivatives are in
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


def _binary_float(name: str, self: Tensor, other: Tensor) -> tuple[dtypes.dtype, np.ndarray, np.ndarray]:
    for t, arg in ((self, "input"), (other, "other")):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {1 if arg == 'input' else 2}) must be Tensor, not "
                            f"{type(t).__name__}")
    dt = result_type(self, other)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{dt.short}'")
    return dt, array_of(self, dt).astype(np.float64), array_of(other, dt).astype(np.float64)


def _wrapped(value: np.ndarray, dt: dtypes.dtype) -> Tensor:
    return Tensor._wrap(np.array(value, dtype=dt.np, order="C"), dt)


def logaddexp(self: Tensor, other: Tensor) -> Tensor:
    """log(exp(a) + exp(b)) as max + log1p(exp(-|a - b|)), and a itself where a == b is infinite."""
    dt, a, b = _binary_float("logaddexp", self, other)
    with np.errstate(invalid="ignore", over="ignore"):
        value = np.where(np.isinf(a) & (a == b), a, np.maximum(a, b) + np.log1p(np.exp(-np.abs(a - b))))
    out = _wrapped(value, dt)
    record("LogaddexpBackward0", out, (self, other), save={"other": other, "self": self})
    return out


def logaddexp2(self: Tensor, other: Tensor) -> Tensor:
    dt, a, b = _binary_float("logaddexp2", self, other)
    with np.errstate(invalid="ignore", over="ignore"):
        value = np.where(np.isinf(a) & (a == b), a,
                         np.maximum(a, b) + np.log1p(np.exp2(-np.abs(a - b))) / np.log(2.0))
    out = _wrapped(value, dt)
    record("Logaddexp2Backward0", out, (self, other), save={"other": other, "self": self})
    return out


def _finite(self: Tensor, nan: float, posinf: float | None, neginf: float | None) -> np.ndarray:
    x = self._numpy_view()
    if not self.dtype.is_floating_point:
        return np.array(x, order="C")
    info = np.finfo(x.dtype) if x.dtype.kind == "f" else None
    high = posinf if posinf is not None else (info.max if info is not None else np.inf)
    low = neginf if neginf is not None else (info.min if info is not None else -np.inf)
    return np.nan_to_num(x, nan=nan, posinf=high, neginf=low)


def nan_to_num(self: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None, *,
               out: Tensor | None = None) -> Tensor:
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest values by default)."""
    from engine.ops.pointwise import write_out

    value = _finite(self, nan, posinf, neginf)
    if out is not None:
        return write_out(out, value, "nan_to_num", (self,))
    result = Tensor._wrap(np.array(value, dtype=self.dtype.np, order="C"), self.dtype)
    record("NanToNumBackward0", result, (self,), save={"self": self})
    return result


def nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self)
    value = _finite(self, nan, posinf, neginf)

    def write(target: np.ndarray) -> None:
        target[...] = value

    return apply_inplace(self, write, "NanToNumBackward0", (), save_self_copy="self", check_autograd=False)


def heaviside(self: Tensor, values: Tensor) -> Tensor:
    """The step function: values where input is 0, else 1 for positive input and 0 for negative."""
    if self.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    x, v = np.broadcast_arrays(self._numpy_view(), values._numpy_view())
    value = np.where(x == 0, v, (x > 0).astype(x.dtype))
    out = Tensor._wrap(np.array(value, dtype=self.dtype.np, order="C"), self.dtype)
    record("NotImplemented", out, (self, values), values={"_op": "heaviside"})
    return out


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002 - torch's names
    from engine import geometry

    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = geometry.wrap_dim(dim, input.ndim)
    if input._shape[d] != 3 or other._shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input._shape[d]} and "
                           f"{other._shape[d]}")
    dt = result_type(input, other)
    a, b = np.broadcast_arrays(array_of(input, dt), array_of(other, dt))
    value = np.cross(a, b, axis=d)
    out = _wrapped(value, dt)
    record("LinalgCrossBackward0", out, (input, other), save={"other": other, "self": input}, values={"dim": dim})
    return out


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """torch.cross: without dim, the first dim of length 3 (deprecated, with torch's warning)."""
    if dim is None:
        from engine.warn_once import warn_once

        warn_once("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                  "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with "
                  "that of linalg.cross in a future release.", stacklevel=4)
        from engine import geometry

        shape = geometry.broadcast_shapes(input._shape, other._shape)
        dim = next((i for i, n in enumerate(shape) if n == 3), -1)
    return linalg_cross(input, other, dim=dim)


def _logit(x: np.ndarray, eps: float | None) -> np.ndarray:
    """ATen's kernel: log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given and not negative."""
    if eps is not None and eps >= 0:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x))


def _logit_dtype(self: Tensor) -> dtypes.dtype:
    return self.dtype if self.dtype.is_floating_point else dtypes.get_default_dtype()


def logit(self: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """The inverse of sigmoid (LogitBackward0, which keeps self and eps)."""
    from engine.ops.pointwise import write_out

    dt = _logit_dtype(self)
    value = np.asarray(_logit(self._numpy_view().astype(dt.np), eps), dtype=dt.np)
    if out is not None:
        return write_out(out, value, "logit", (self,))
    result = Tensor._wrap(np.array(value, order="C"), dt)
    record("LogitBackward0", result, (self,), save={"self": self}, values={"eps": eps})
    return result


def logit_(self: Tensor, eps: float | None = None) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self, _logit_dtype(self))

    def write(target: np.ndarray) -> None:
        target[...] = _logit(target, eps)

    return apply_inplace(self, write, "LogitBackward0", (), save_self_copy="self", check_autograd=False,
                         values={"eps": eps})


def _linalg_alias(name: str) -> Callable[..., Any]:
    def op(self: Tensor) -> Tensor:
        from engine import linalg

        return getattr(linalg, name)(self)
    op.__name__ = name
    return op


METHODS: dict[str, Callable[..., Any]] = {
    "xlogy": xlogy, "xlogy_": xlogy_, "logaddexp": logaddexp, "logaddexp2": logaddexp2, "nan_to_num": nan_to_num,
    "nan_to_num_": nan_to_num_, "heaviside": heaviside, "cross": cross, "logit": logit, "logit_": logit_,
    "det": _linalg_alias("det"),
    "inverse": _linalg_alias("inv"),
}
FUNCTIONS: dict[str, Callable[..., Any]] = dict(METHODS)
