"""scatter_reduce / scatter_reduce_: src's values reduced into self at index along dim, with sum, prod,
mean, amax or amin; include_self=False first resets the positions written to the reduction's identity.
ATen's CPU kernel applies src's elements one after another in index order, which is the order numpy's
ufunc.at applies them, so sums and products round as torch's. ScatterReduceBackward0 keeps self, src,
index and the result, as torch's node does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.ops.core import (
    apply_inplace,
    check_inplace_allowed,
    check_no_overlap,
    check_writable,
    needs_grad,
    record,
)
from engine.ops.indexing import _along
from engine.ops.pointwise import write_out
from engine.tensor import Tensor

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce: str, dt: np.dtype) -> Any:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dt.kind == "f" or dt.kind == "V":
        return -np.inf if reduce == "amax" else np.inf
    if dt.kind == "b":
        return reduce != "amax"
    info = np.iinfo(dt)
    return info.min if reduce == "amax" else info.max


def _check(self: Tensor, dim: int, index: Tensor, src: Any, reduce: str) -> int:
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if reduce not in REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if self.dtype is not src.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.ndim != self.ndim and not (index.ndim <= 1 and self.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if index.ndim and self.ndim and src.ndim:
        for axis in range(index.ndim):
            if (axis != d and index._shape[axis] > self._shape[axis]) or index._shape[axis] > src._shape[axis]:
                raise RuntimeError(f"Expected index {errors.shape_text(index._shape)} to be no larger than self "
                                   f"{errors.shape_text(self._shape)} apart from dimension {d} and to be no larger "
                                   f"size than src {errors.shape_text(src._shape)}")
    size = self._shape[d] if self.ndim else 1
    values = index._numpy_view()
    if values.size:
        bad = values[(values < 0) | (values >= size)]
        if bad.size:
            raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}")
    if reduce == "mean" and self.dtype is dtypes.bool_:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    return d


def _positions(target: np.ndarray, d: int, idx: np.ndarray, src: np.ndarray) -> tuple[np.ndarray, tuple[Any, ...],
                                                                                        np.ndarray]:
    """The array the scatter writes (target, or its flat view where a 0-dim and a 1-dim tensor scatter as
    one another), the positions index names in it, and the src values that go there."""
    if target.ndim != idx.ndim or target.ndim == 0:
        return target.reshape(-1), (idx.reshape(-1).astype(np.int64),), src.reshape(-1)[:idx.size]
    return target, _along(target, d, idx.astype(np.int64)), src[tuple(slice(0, n) for n in idx.shape)]


def _values(self: Tensor, values: np.ndarray, d: int, index: Tensor, src: Tensor, reduce: str,
            include_self: bool) -> np.ndarray:
    """A fresh array of self's values with src reduced into them. float16 and bfloat16 accumulate in
    float32 (ATen's opmath), rounded once; mean then divides the rounded sum by the count."""
    half = self.dtype.is_floating_point and self.dtype.itemsize == 2
    target = np.array(values, dtype=np.float32 if half else values.dtype, order="C")
    flat, where, source = _positions(target, d, index._numpy_view(), src._numpy_view())
    with np.errstate(all="ignore"):
        if not include_self:
            flat[where] = _identity(reduce, values.dtype)
        _UFUNCS[reduce].at(flat, where, source.astype(target.dtype) if half else source)
        target = target.astype(values.dtype) if half else target
        if reduce != "mean":
            return target
        flat = target.reshape(flat.shape)
        count = np.full(flat.shape, 1 if include_self else 0, dtype=target.dtype)
        np.add.at(count, where, 1)
        count[count == 0] = 1
        if target.dtype.kind in "fcV":
            quotient = flat.astype(np.float32) / count.astype(np.float32) if half else flat / count
            return quotient.astype(values.dtype).reshape(values.shape)
        return np.floor_divide(flat, count).reshape(values.shape)


def scatter_reduce(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True,
                   out: Tensor | None = None) -> Tensor:
    d = _check(self, dim, index, src, reduce)
    result = _values(self, self._numpy_view(), d, index, src, reduce, include_self)
    if out is not None:
        if needs_grad(self, src, out):
            raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op="scatter_reduce"))
        return write_out(out, result, "scatter_reduce", (self, src))
    tensor = Tensor._wrap(result, self.dtype)
    record("ScatterReduceBackward0", tensor, (self, src), save={"self": self, "src": src, "index": index},
           save_outputs={"result": tensor}, values={"dim": dim, "reduce": reduce, "include_self": include_self})
    return tensor


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    check_inplace_allowed(self, src)
    d = _check(self, dim, index, src, reduce)
    check_writable(self)
    check_no_overlap(self, index)
    check_no_overlap(self, src)

    def write(target: np.ndarray) -> None:
        target[...] = _values(self, target, d, index, src, reduce, include_self)

    return apply_inplace(self, write, "ScatterReduceBackward0", (src,), save={"src": src, "index": index},
                         save_self_copy="self", save_result="result", check_autograd=False,
                         values={"dim": dim, "reduce": reduce, "include_self": include_self})


METHODS: dict[str, Callable[..., Any]] = {"scatter_reduce": scatter_reduce, "scatter_reduce_": scatter_reduce_}
FUNCTIONS: dict[str, Callable[..., Any]] = {"scatter_reduce": scatter_reduce}
