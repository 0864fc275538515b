"""Binning and inverse functions: bucketize / searchsorted (the insertion index of each value in sorted
boundaries; integer results, no gradient) and erfinv (ErfinvBackward0), evaluated in float64 from
Giles' approximation refined by Newton steps on the engine's fdlibm erf, then rounded to the dtype."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes
from engine.ops.core import apply_inplace, check_inplace_allowed, check_writable, record
from engine.tensor import Tensor


def _values_of(x: Any) -> np.ndarray:
    return x._numpy_view() if isinstance(x, Tensor) else np.asarray(x)


def _indices(result: np.ndarray, out_int32: bool) -> Tensor:
    dt = dtypes.int32 if out_int32 else dtypes.int64
    return Tensor._wrap(np.array(result, dtype=dt.np, order="C"), dt)


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,  # noqa: A002
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    boundaries = sorted_sequence._numpy_view()
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, sorter._numpy_view(), axis=-1)
    values = _values_of(input)
    which = "right" if right else "left"
    if boundaries.ndim == 1:
        return _indices(np.searchsorted(boundaries, values, side=which), out_int32)
    if values.ndim == 0 or boundaries.shape[:-1] != values.shape[:-1]:
        shape = list(values.shape)
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(boundaries.shape)} and input value tensor {shape}")
    flat_b = boundaries.reshape(-1, boundaries.shape[-1])
    flat_v = values.reshape(-1, values.shape[-1])
    rows = [np.searchsorted(b, v, side=which) for b, v in zip(flat_b, flat_v)]
    return _indices(np.stack(rows).reshape(values.shape), out_int32)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:  # noqa: A002
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _indices(np.searchsorted(boundaries._numpy_view(), _values_of(input), side="right" if right else "left"),
                    out_int32)


_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
            -0.00417768164, 0.246640727, 1.50140941)
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
         0.00943887047, 1.00167406, 2.83297682)


def erfinv_array(x: np.ndarray) -> np.ndarray:
    """The inverse error function in float64: +-inf at +-1, NaN beyond."""
    from engine.kernels.activation import erf

    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log((1.0 - x) * (1.0 + x))
        central = w < 5.0
        p = np.where(central, np.polyval(_CENTRAL, w - 2.5), np.polyval(_TAIL, np.sqrt(w) - 3.0))
        y = p * x
        inside = np.abs(x) < 1
        for _ in range(3):  # Newton on erf(y) = x
            step = (erf(np.where(inside, y, 0.0)) - x) / (2 / math.sqrt(math.pi) * np.exp(-y * y))
            y = np.where(inside & np.isfinite(step), y - step, y)
    y = np.where(x == 1, np.inf, np.where(x == -1, -np.inf, y))
    return np.where(np.abs(x) > 1, np.nan, y)


def _float_dtype(t: Tensor) -> dtypes.dtype:
    return t.dtype if t.dtype.is_floating_point else dtypes.get_default_dtype()


def erfinv(self: Tensor) -> Tensor:
    dt = _float_dtype(self)
    out = Tensor._wrap(np.array(erfinv_array(self._numpy_view()), dtype=dt.np, order="C"), dt)
    record("ErfinvBackward0", out, (self,), save={"self": self})
    return out


def erfinv_(self: Tensor) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self, _float_dtype(self))

    def write(target: np.ndarray) -> None:
        target[...] = erfinv_array(target)

    return apply_inplace(self, write, "ErfinvBackward0", (), save_self_copy="self", check_autograd=False)


METHODS: dict[str, Callable[..., Any]] = {"erfinv": erfinv, "erfinv_": erfinv_}
FUNCTIONS: dict[str, Callable[..., Any]] = {"erfinv": erfinv, "searchsorted": searchsorted, "bucketize": bucketize}
