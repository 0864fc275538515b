"""Ordering and counting: sort, argsort, topk, unique, bincount and torch.where(condition).

sort and topk return torch.return_types named tuples; their nodes save the indices (which is what
their backward scatters the gradient through). Ties keep their input order, as torch's stable CPU
sort does (topk's selection algorithm can order ties otherwise; see the note on topk).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from engine import dtypes, geometry
from engine.ops.core import record
from engine.ops.reduction import _return_type, return_types
from engine.tensor import Tensor

return_types.sort = _return_type("sort")
return_types.topk = _return_type("topk")


def _descending_key(x: np.ndarray) -> np.ndarray:
    """A key whose ascending stable order is x's descending order, NaN first (torch puts NaN
    above every number)."""
    if x.dtype == np.bool_:
        return ~x
    if x.dtype.kind == "f":
        wide = x.astype(np.float64)
        return np.where(np.isnan(wide), -np.inf, -wide)
    return -x.astype(np.int64)


def _order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort along axis; numpy already puts NaN last, which is torch's ascending order."""
    if x.ndim == 0:
        return np.zeros((), np.int64)
    return np.argsort(_descending_key(x) if descending else x, axis=axis, kind="stable")


def _unsigned(dim: Any) -> int:
    """The dim as torch shows it on the node (`_saved_dim`): an int64 read back as unsigned."""
    return operator.index(dim) % (1 << 64)


def _dim(dim: Any, ndim: int) -> int:
    return geometry.wrap_dim(operator.index(dim), max(ndim, 1))


def sort(self: Tensor, dim: int = -1, descending: bool = False, stable: bool | None = False, *,
         out: Any = None) -> Any:
    d = _dim(dim, self.ndim)
    x = self._numpy_view()
    order = _order(x, d, descending)
    values = np.take_along_axis(x, order, axis=d) if x.ndim else x.copy()
    indices = Tensor._wrap(np.ascontiguousarray(order, dtype=np.int64), dtypes.int64)
    result = Tensor._wrap(np.ascontiguousarray(values), self.dtype)
    record("SortBackward0", result, (self,), save_outputs={"indices": indices},
           values={"dim": _unsigned(dim), "self_sym_sizes": self._shape})
    return return_types.sort(result, indices)


def argsort(self: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    return sort(self, dim, descending, stable)[1]


def msort(self: Tensor) -> Tensor:
    return sort(self, 0)[0]


def topk(self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *,  # noqa: A002
         out: Any = None) -> Any:
    """The k largest (or smallest) along dim. Ties are taken in input order; torch's CPU kernel
    selects with std::nth_element / std::partial_sort, whose order among equal values can differ."""
    d = _dim(dim, self.ndim)
    size = self._shape[d] if self.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    x = self._numpy_view()
    order = _order(x, d, largest)
    order = np.take(order, np.arange(k), axis=d) if x.ndim else order
    values = np.take_along_axis(x, order, axis=d) if x.ndim else x.copy()
    indices = Tensor._wrap(np.ascontiguousarray(order, dtype=np.int64), dtypes.int64)
    result = Tensor._wrap(np.ascontiguousarray(values), self.dtype)
    record("TopkBackward0", result, (self,), save_outputs={"indices": indices},
           values={"dim": _unsigned(dim), "self_sym_sizes": self._shape})
    return return_types.topk(result, indices)


def unique(self: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """Sorted distinct values (or rows along dim), with the inverse map and counts on request."""
    x = self._numpy_view()
    if dim is None:
        values, inverse, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True)
        inverse = inverse.reshape(self._shape)
        name = "Unique2Backward0"
    else:
        d = _dim(dim, self.ndim)
        values, inverse, counts = np.unique(x, axis=d, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        name = "UniqueDimBackward0"
    result = Tensor._wrap(np.ascontiguousarray(values), self.dtype)
    record(name, result, (self,))
    extras = []
    if return_inverse:
        extras.append(Tensor._wrap(np.ascontiguousarray(inverse, dtype=np.int64), dtypes.int64))
    if return_counts:
        extras.append(Tensor._wrap(np.ascontiguousarray(counts, dtype=np.int64), dtypes.int64))
    return (result, *extras) if extras else result


def bincount(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts of each non-negative integer (or sums of its weights: float64 unless weights are float32)."""
    if self.dtype.is_floating_point or self.dtype is dtypes.bool_:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{self.dtype.short}'")
    x = self._numpy_view()
    if self.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return Tensor._wrap(np.bincount(x, minlength=minlength).astype(np.int64), dtypes.int64)
    if weights.ndim != 1 or weights._shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = dtypes.float32 if weights.dtype is dtypes.float32 else dtypes.float64
    counts = np.bincount(x, weights=weights._numpy_view().astype(np.float64), minlength=minlength)
    return Tensor._wrap(counts.astype(dt.np), dt)


def where(condition: Tensor, input: Any = None, other: Any = None, *, out: Tensor | None = None) -> Any:  # noqa: A002
    """torch.where(cond) is nonzero(cond, as_tuple=True); with three arguments it selects."""
    from engine.ops import pointwise

    if input is None and other is None:  # nonzero(as_tuple=True): columns of a column-major (N, ndim) result
        from engine.ops import views

        found = np.stack(np.nonzero(np.atleast_1d(condition._numpy_view())), axis=1).astype(np.int64)
        return views.unbind(Tensor._wrap(np.asfortranarray(found), dtypes.int64), 1)
    return pointwise.where(condition, input, other, out=out)


def repeat_interleave(self: Any, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element (or slice along dim) repeated; torch.repeat_interleave(counts) gives the indices."""
    from engine.ops import indexing, views

    if repeats is None:
        counts = self._numpy_view()
        return Tensor._wrap(np.repeat(np.arange(counts.size), counts).astype(np.int64), dtypes.int64)
    source = views.flatten(self) if dim is None else self
    axis = 0 if dim is None else _dim(dim, self.ndim)
    if not isinstance(repeats, Tensor):  # ATen: unsqueeze, expand, clone, view
        from engine.ops.copying import clone

        grown = views.unsqueeze(source, axis + 1)
        sizes = list(grown._shape)
        sizes[axis + 1] = int(repeats)
        shape = list(source._shape)
        shape[axis] *= int(repeats)
        return views.view(clone(views.expand(grown, sizes), contiguous=True), shape)
    counts = repeats._numpy_view()
    order = Tensor._wrap(np.repeat(np.arange(source._shape[axis]), counts).astype(np.int64), dtypes.int64)
    return indexing.index_select(source, axis, order)


METHODS = {"repeat_interleave": repeat_interleave, "sort": sort, "argsort": argsort, "msort": msort, "topk": topk, "unique": unique, "bincount": bincount}
FUNCTIONS = {**METHODS, "where": where}
