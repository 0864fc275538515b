"""nansum (NaN counted as zero; NansumBackward0), the running extremes cummax/cummin (values and the
index each came from, ties and NaN resolved as ATen resolves them; CummaxBackward0 scatters the
gradient back to those indices) and the out-of-place scatter_add (ScatterAddBackward0)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes, geometry
from engine.ops.core import record
from engine.ops.reduction import _dims, _listed, _return_type, _sum_dtype, return_types, saved_dims
from engine.tensor import Tensor

return_types.cummax = _return_type("cummax")
return_types.cummin = _return_type("cummin")


def nansum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    dt = dtypes.to_dtype(dtype) if dtype is not None else _sum_dtype(self.dtype)
    dims = _dims(dim, self.ndim)
    x = self._numpy_view()
    value = np.nansum(x.astype(dt.np), axis=dims, keepdims=keepdim) if self.ndim else np.nan_to_num(x, nan=0)
    out = Tensor._wrap(np.array(value, dtype=dt.np, order="C"), dt)
    record("NansumBackward0", out, (self,), save={"self": self},
           values={"dim": saved_dims(_listed(dim)) if dim is not None else None, "keepdim": keepdim})
    return out


def _running_extreme(self: Tensor, dim: int, name: str) -> tuple[Tensor, Tensor]:
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    x = np.moveaxis(self._numpy_view().reshape(self._shape or (1,)), d, 0)
    values = np.empty_like(x)
    indices = np.zeros(x.shape, dtype=np.int64)
    better = np.greater_equal if name == "cummax" else np.less_equal
    if x.shape[0]:
        best, where = x[0].copy(), np.zeros(x.shape[1:], dtype=np.int64)
        values[0], indices[0] = best, where
        for i in range(1, x.shape[0]):
            current = x[i]
            # ATen: take x where x >= best (<= for cummin) or x is NaN, and keep a NaN once reached
            take = (better(current, best) | np.isnan(current)) & ~np.isnan(best) if x.dtype.kind == "f" \
                else better(current, best)
            best = np.where(take, current, best)
            where = np.where(take, i, where)
            values[i], indices[i] = best, where
    shape = self._shape
    out = Tensor._wrap(np.ascontiguousarray(np.moveaxis(values, 0, d)).reshape(shape), self.dtype)
    index = Tensor._wrap(np.ascontiguousarray(np.moveaxis(indices, 0, d)).reshape(shape), dtypes.int64)
    record("CummaxBackward0" if name == "cummax" else "CumminBackward0", out, (self,),
           save={"self": self, "indices": index}, values={"dim": dim})
    return getattr(return_types, name)(out, index)


def cummax(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    return _running_extreme(self, dim, "cummax")


def cummin(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    return _running_extreme(self, dim, "cummin")


def scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """self's values with src added at index along dim, in a new tensor (ScatterAddBackward0 with self and
    src as its inputs)."""
    from engine.autograd import grad_mode
    from engine.ops.indexing import scatter_add_

    with grad_mode.no_grad():
        result = scatter_add_(self.clone(), dim, index, src.detach())
    out = Tensor._wrap(np.array(result._numpy_view(), order="C"), self.dtype)
    record("ScatterAddBackward0", out, (self, src), save={"index": index}, values={"dim": dim})
    return out


METHODS: dict[str, Callable[..., Any]] = {"nansum": nansum, "cummax": cummax, "cummin": cummin,
                                          "scatter_add": scatter_add}
FUNCTIONS: dict[str, Callable[..., Any]] = dict(METHODS)
