"""Indexing through the flattened tensor or a mask: take, put_ and masked_scatter_.

Like the other indexing writes they follow torch's memory rules: the written tensor may not overlap
itself, and may share no memory with the index or the values it reads.
"""

from __future__ import annotations

import numpy as np

from engine import dtypes
from engine.ops.core import (
    apply_inplace,
    check_inplace_allowed,
    check_internal_overlap,
    check_no_overlap,
    check_writable,
)
from engine.ops.indexing import _check_gather_out, _out_of_place
from engine.ops.pointwise import _finish
from engine.tensor import Tensor


def _flat_positions(self: Tensor, index: Tensor) -> np.ndarray:
    """index as positions in self's row-major order, negative ones counted from the end."""
    idx = index._numpy_view().astype(np.int64).reshape(-1)
    n = self.numel()
    bad = idx[(idx >= n) | (idx < -n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} elements.")
    return np.where(idx < 0, idx + n, idx)


def take(self: Tensor, index: Tensor, *, out: Tensor | None = None) -> Tensor:
    positions = _flat_positions(self, index)
    flat = np.ascontiguousarray(self._numpy_view()).reshape(-1)
    if out is not None:
        _check_gather_out(out, self, index)
    return _finish("TakeBackward0", "take", flat[positions].reshape(index._shape), self.dtype, (self,),
                   {"index": index, "self": self}, out=out, after_resize=lambda: None, layout=None)


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    check_inplace_allowed(self, source)
    check_writable(self, source.dtype)
    check_no_overlap(self, index)
    check_no_overlap(self, source)
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    positions = _flat_positions(self, index)
    values = source._numpy_view().reshape(-1)

    def write(target: np.ndarray) -> None:
        where = np.unravel_index(positions, target.shape)  # row-major positions, any strides
        if accumulate:
            np.add.at(target, where, values)
        else:
            target[where] = values

    return apply_inplace(self, write, "PutBackward0", (source,), save={"index": index, "source": source},
                         check_autograd=False, values={"accumulate": accumulate, "_source_info": source._shape})


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    check_inplace_allowed(self, source)
    check_internal_overlap(self)
    if source.dtype is not self.dtype:  # (sic: no space after "got", as ATen words it)
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got{self.dtype.short} "
                           f"and {source.dtype.short}")
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype.cpp}")
    check_writable(self, None, (mask._shape,))
    check_no_overlap(self, mask)
    check_no_overlap(self, source)
    hit = np.broadcast_to(mask._numpy_view(), self._shape)
    count = int(hit.sum())
    if count > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask"
                           f" ({count}), but got {source.numel()}")
    values = source._numpy_view().reshape(-1)[:count]
    def write(target: np.ndarray) -> None:
        target[hit] = values

    return apply_inplace(self, write, "MaskedScatterBackward0", (source,), save={"mask": mask}, check_autograd=False,
                         values={"source_sym_sizes": source._shape})


def put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Out of place put_: a copy of self with source at the flat positions `index`, recorded as one
    PutBackward0 of self and source, as torch records it."""
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    positions = _flat_positions(self, index)
    result = np.array(self._numpy_view())
    where = np.unravel_index(positions, result.shape)
    if accumulate:
        np.add.at(result, where, source._numpy_view().reshape(-1))
    else:
        result[where] = source._numpy_view().reshape(-1)
    return _finish("PutBackward0", "put", result, self.dtype, (self, source), {"index": index, "source": source},
                   values={"accumulate": accumulate, "_source_info": source._shape}, layout="preserve")


def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return _out_of_place(self, lambda t: masked_scatter_(t, mask, source))


METHODS = {"take": take, "put_": put_, "put": put, "masked_scatter_": masked_scatter_, "masked_scatter": masked_scatter}
FUNCTIONS = {"take": take, "put": put, "masked_scatter": masked_scatter}
