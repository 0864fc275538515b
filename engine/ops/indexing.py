"""Indexing: `x[...]` and `x[...] = v`, gathers and scatters, and joining tensors.

Basic indexing (ints, slices, None, Ellipsis) gives views, built from select/slice/unsqueeze exactly
as PyTorch chains them; advanced indexing (index tensors, lists, masks) copies. `x[i] = v` writes
through such a view (so the base gets CopySlices), `x[mask] = v` is index_put_.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.autograd import grad_mode
from engine.autograd.node import node_type
from engine.ops import views
from engine.ops.copying import copy_, fill_
from engine.ops.core import (
    apply_inplace,
    check_inplace_allowed,
    check_internal_overlap,
    check_no_overlap,
    check_no_partial_overlap,
    check_writable,
    make_view,
    make_view_chain,
    needs_grad,
    record,
)
from engine.ops.pointwise import _finish, wrap_strided, write_out
from engine.tensor import Tensor


# --------------------------------------------------------------------------- parsing an index
def _is_advanced(item: Any) -> bool:
    return isinstance(item, (Tensor, list, range, np.ndarray))


def _as_index_array(item: Any) -> np.ndarray:
    if isinstance(item, Tensor):
        array = item._numpy_view()
        if not (array.dtype == np.bool_ or array.dtype.kind in "iu"):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return array
    array = np.asarray(item)
    if array.size == 0 and isinstance(item, (list, tuple)):
        return array.astype(np.int64)  # torch makes an empty sequence an empty long index
    if array.dtype.kind == "f":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return array


def _index_tensor(item: Any) -> Tensor:
    return item if isinstance(item, Tensor) else Tensor._wrap(_as_index_array(item))


_SEQUENCE_AS_TUPLE = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                      "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                      "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result")


def _normalize(index: Any) -> tuple[Any, ...]:
    """The index as a tuple of items. A short list holding tensors, sequences, slices, `...` or None
    is still read as a tuple of indices (NumPy's old heuristic, deprecated with torch's warning)."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32:
        for item in index:
            if isinstance(item, (Tensor, list, tuple, slice)) or item is Ellipsis or item is None:
                warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=3)
                return tuple(index)
    return (index,)


def _consumed_dims(item: Any) -> int:
    if type(item) is int or type(item) is slice:
        return 1
    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, Tensor) and item.dtype is dtypes.bool_:
        return item.ndim  # a 0-dim mask takes no dim: it adds one of size 1 or 0
    return 1


def _apply_basic(self: Tensor, items: tuple[Any, ...], single: bool) -> tuple[Tensor, list[tuple[int, Any]]]:
    """Apply ints/slices/None/Ellipsis as chained views; return the view and the advanced items with
    the dim each applies to in that view."""
    result = self
    dim = 0
    advanced: list[tuple[int, Any]] = []
    specified = 0
    for item in items:
        specified += 1 if type(item) is int or type(item) is slice else _consumed_dims(item)
    if specified > len(self._shape):
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    recording = grad_mode.state.enabled and self.requires_grad
    if not recording or not self._storage.inference:
        composed = _composed_view(self, items, single, recording)
        if composed is not None:
            return composed, []
    for position, item in enumerate(items):
        if type(item) is int:  # the common items first, without the isinstance chain below
            result = _select(result, dim, item, position)
        elif type(item) is slice:
            result = _slice(result, dim, item, single)
            dim += 1
        elif item is Ellipsis:
            dim += self.ndim - specified
        elif item is None or isinstance(item, bool):
            result = views.unsqueeze(result, dim)
            dim += 1
        elif isinstance(item, Tensor) and item.ndim == 0 and item.dtype.name in ("int64", "int32", "int16", "int8"):
            size = result._shape[dim]  # a 0-dim integer tensor indexes as its value (a select, a view)
            value = int(item.item())
            if not -size <= value < size:
                raise IndexError(errors.INDEX_RANGE.format(i=value, dim=position, size=size))
            result = views.select(result, dim, value)
        elif isinstance(item, numbers.Integral) and not isinstance(item, Tensor):
            result = _select(result, dim, item, position)
        elif isinstance(item, Tensor) and item.ndim == 0 and item.dtype is dtypes.bool_:
            result = views.unsqueeze(result, dim)  # as torch: a new dim, then a mask of one element over it
            advanced.append((dim, item.reshape(1)))
            dim += 1
        elif _is_advanced(item):
            advanced.append((dim, item))
            dim += _consumed_dims(item)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             "are valid indices (got " + type(item).__name__ + ")")
    return result, advanced


def _composed_view(self: Tensor, items: tuple[Any, ...], single: bool, recording: bool) -> Tensor | None:
    """ints and slices applied as one view: the chain's intermediate views would be seen by nothing
    (same base, version counter and view metadata as the last one), so the geometry is composed in
    one pass over self's dims (a select drops one, a slice narrows one). `recording`: self requires
    grad in grad mode, so the chain's nodes are recorded as the chain would record them (see
    make_view_chain); an index out of range then leaves the error to the chain, which raises it
    after the nodes made before it. None when an item is of another kind."""
    shape, stride = self._shape, self._stride
    kept_shape: list[int] = []
    kept_stride: list[int] = []
    steps: list[tuple[str, tuple[int, ...], dict[str, Any]]] = []
    offset = self._offset
    dim = 0
    applied = False  # some item selected or sliced (a full `:` in a tuple index does neither)
    step_input = shape  # the shape the next recorded step takes: the one the step before it made
    for item in items:  # each item takes one dim: an item's place in the index is its dim
        if type(item) is int:
            applied = True
            size = shape[dim]
            if not -size <= item < size:  # torch names the item's place in the index, not the dim
                if recording:
                    return None
                raise IndexError(errors.INDEX_RANGE.format(i=item, dim=dim, size=size))
            if recording:
                step_output = (*kept_shape, *shape[dim + 1:])
                steps.append(("SelectBackward0", step_output,
                              {"dim": len(kept_shape), "index": item, "self_sym_sizes": step_input}))
                step_input = step_output
            offset += (item % size) * stride[dim]
        elif type(item) is slice:
            bounds = _slice_bounds(shape[dim], item, single)
            if bounds is None:
                kept_shape.append(shape[dim])
                kept_stride.append(stride[dim])
            else:
                applied = True
                start, stop, step = bounds
                begin, length = views.slice_extent(shape[dim], start, stop, step)
                if recording:
                    step_output = (*kept_shape, length, *shape[dim + 1:])
                    steps.append(("SliceBackward0", step_output,
                                  {"dim": len(kept_shape), "end": views.INT64_MAX if stop is None else stop,
                                   "start": 0 if start is None else start, "step": step,
                                   "self_sym_sizes": step_input}))
                    step_input = step_output
                kept_shape.append(length)
                kept_stride.append(stride[dim] * step)
                offset += begin * stride[dim]
        else:
            return None
        dim += 1
    if not applied:
        return self
    if recording:
        return make_view_chain(self, (*kept_shape, *shape[dim:]), (*kept_stride, *stride[dim:]), offset, steps)
    return make_view(self, (*kept_shape, *shape[dim:]), (*kept_stride, *stride[dim:]), offset,
                     "AsStridedBackward0")  # never recorded: no node is made here


def _slice_bounds(size: int, item: slice, single: bool) -> tuple[int | None, int | None, int] | None:
    """(start, stop, step) of a slice index, or None for a full `:` inside a tuple index (torch
    applies no slice for it)."""
    start, stop, step = item.start, item.stop, item.step
    if start is not None and type(start) is not int:  # an index tensor or numpy integer: its value
        start = int(start)
    if stop is not None and type(stop) is not int:
        stop = int(stop)
    step = 1 if step is None else step if type(step) is int else int(step)
    if not single and step == 1 and start in (None, 0) and (stop is None or stop >= size):
        return None  # torch compares start and stop as written: `-4:` or `:-1` is a slice, even of nothing
    return start, stop, step


def _select(view: Tensor, dim: int, item: Any, position: int) -> Tensor:
    """`x[i]` at `dim`: a select view, or IndexError's message for an index out of range (torch
    names the item's `position` in the index, not the dim)."""
    size = view._shape[dim]
    if not -size <= item < size:
        raise IndexError(errors.INDEX_RANGE.format(i=item, dim=position, size=size))
    return views.select(view, dim, item if type(item) is int else int(item))


def _slice(view: Tensor, dim: int, item: slice, single: bool) -> Tensor:
    """`x[a:b:c]` at `dim`: a slice view, except a full `:` inside a tuple index (torch skips it)."""
    bounds = _slice_bounds(view._shape[dim], item, single)
    return view if bounds is None else views.slice_dim(view, dim, *bounds)


def _numpy_index(view: Tensor, advanced: list[tuple[int, Any]]) -> tuple[Any, ...]:
    index: list[Any] = []
    cursor = 0
    for dim, item in advanced:
        index.extend([slice(None)] * (dim - cursor))
        array = _as_index_array(item)
        index.append(array)
        cursor = dim + (array.ndim if array.dtype == np.bool_ else 1)
    return tuple(index)


def _broadcast_to_nothing(shapes: list[tuple[int, ...]]) -> bool:
    """Whether the indices broadcast to no element: the kernel checks each index as it reads it, so
    then none is checked (shapes that do not broadcast fail later, with the indexing error)."""
    try:
        return 0 in geometry.broadcast_shapes(*shapes)
    except RuntimeError:
        return False


def _check_bounds(view: Tensor, advanced: list[tuple[int, Any]]) -> None:
    arrays = [(dim, _as_index_array(item)) for dim, item in advanced]
    indexed, shapes = [], []  # the dims indexed; each index's shape as it broadcasts (a mask: its count)
    for dim, array in arrays:
        if array.dtype == np.bool_:
            indexed.extend(view._shape[dim:dim + array.ndim])
            shapes.append((int(np.count_nonzero(array)),))
        else:
            indexed.append(view._shape[dim])
            shapes.append(array.shape)
    if 0 in indexed and all(math.prod(shape) for shape in shapes):  # AdvancedIndex's check, before any is read
        raise IndexError("index is out of bounds for dimension with size 0")
    reads_none = _broadcast_to_nothing(shapes)
    for dim, array in arrays:
        if array.dtype == np.bool_:
            expected = view._shape[dim:dim + array.ndim]
            if array.shape != expected:
                raise IndexError(f"The shape of the mask {list(array.shape)} at index {dim} does not match the "
                                 f"shape of the indexed tensor {list(view._shape)} at index {dim}")
            continue
        size = view._shape[dim]
        if array.size and not reads_none and (array.max() >= size or array.min() < -size):
            bad = int(array.max() if array.max() >= size else array.min())
            raise IndexError(errors.INDEX_RANGE.format(i=bad, dim=dim, size=size))


# --------------------------------------------------------------------------- x[index]
def getitem(self: Tensor, index: Any) -> Tensor:
    if type(index) is int and self._shape:  # x[i], the most common index: one select
        return _select(self, 0, index, 0)
    items = _normalize(index)
    if not self._shape and len(items) == 1 and items[0] is Ellipsis:
        return views.alias(self)
    view, advanced = _apply_basic(self, items, single=not isinstance(index, tuple))
    if not advanced:
        return views.alias(view) if view is self else view
    _check_bounds(view, advanced)
    np_index = _numpy_index(view, advanced)
    result = view._numpy_view()[np_index]
    out = wrap_strided(np.asarray(result), view.dtype, _index_strides(view, advanced, result.shape))
    record("IndexBackward0", out, (view,), save={"indices": padded_indices(advanced)},
           values={"self_sym_sizes": view._shape})
    return out


def _index_strides(view: Tensor, advanced: list[tuple[int, Any]], shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The layout torch's index kernel gives its result: TensorIterator's rule over the source
    restrided to the result's dims (stride 0 along the index dims) and the index tensors (masks as
    their nonzero() columns), broadcast to a common shape and reshaped to the result's dims."""
    if len(shape) < 2:
        return None
    indices: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []  # (view dim, shape, strides)
    for dim, item in advanced:
        array = _as_index_array(item)
        if array.dtype == np.bool_:
            count = int(np.count_nonzero(array))
            for j in range(max(array.ndim, 1)):
                indices.append((dim + j, (count,), (max(array.ndim, 1),)))
        else:
            strides = item._stride if isinstance(item, Tensor) else geometry.contiguous_strides(array.shape)
            indices.append((dim, array.shape, tuple(strides)))
    index_shape = geometry.broadcast_shapes(*(ishape for _, ishape, _ in indices))
    index_dims = [d for d, _, _ in indices]
    adjacent = index_dims == list(range(index_dims[0], index_dims[0] + len(index_dims)))
    rest = [d for d in range(view.ndim) if d not in index_dims]
    lead = index_dims[0] if adjacent else 0
    before = [d for d in rest if d < lead] if adjacent else []
    after = [d for d in rest if d not in before]
    k = len(index_shape)
    if len(before) + k + len(after) != len(shape):
        return None
    src = [view._stride[d] for d in before] + [0] * k + [view._stride[d] for d in after]
    operands = [(tuple(shape), tuple(src))]
    for _, ishape, istrides in indices:
        pad = k - len(ishape)
        expanded = [0] * pad + [0 if (n == 1 and index_shape[pad + i] != 1) else st
                                for i, (n, st) in enumerate(zip(ishape, istrides))]
        full_shape = (1,) * len(before) + tuple(index_shape) + (1,) * len(after)
        # reshape_indexer: the expanded index reshaped with size-1 dims around it (a view when it can be)
        viewed = geometry.view_strides(tuple(index_shape), tuple(expanded), full_shape)
        operands.append((full_shape, viewed if viewed is not None else geometry.contiguous_strides(full_shape)))
    return geometry.iterator_strides(shape, operands)


def padded_indices(advanced: list[tuple[int, Any]]) -> list[Tensor | None]:
    """torch's `indices` list: one entry per indexed dim, None where a dim is not indexed."""
    padded: list[Tensor | None] = []
    cursor = 0
    for dim, item in advanced:
        padded.extend([None] * (dim - cursor))
        tensor = _index_tensor(item)
        padded.append(tensor)
        cursor = dim + _consumed_dims(tensor)
    return padded


def positions_of(indices: Sequence[Tensor | None]) -> list[tuple[int, Tensor]]:
    """The (dim, index tensor) pairs of a None-padded indices list."""
    positions = []
    dim = 0
    for item in indices:
        if item is None:
            dim += 1
            continue
        positions.append((dim, item))
        dim += _consumed_dims(item)
    return positions


# --------------------------------------------------------------------------- x[index] = value
def setitem(self: Tensor, index: Any, value: Any) -> None:
    """`x[index] = value` as torch's set_item: the value becomes a tensor of x's dtype, full slices and
    `...` select nothing (so `x[:] = v` writes into x itself, not into a view of it), then a copy into
    the selected view, or index_put_ when the index has tensors, lists or masks."""
    view, advanced = _apply_basic(self, _normalize(index), single=False)
    if not isinstance(value, Tensor):
        value = _scalar_tensor(value, self.dtype)
    if not advanced:
        _copy_to(view, value)
        return
    check_inplace_allowed(view, value)  # index_put_'s autograd check comes before its kernel's index checks
    lead = 0
    while lead < value.ndim and value._shape[lead] == 1:  # torch's slicePrefix1sDims
        lead += 1
    if lead:
        value = views.view(value, value._shape[lead:])
    index_put_(view, [item for _, item in advanced], value, _positions=advanced)


def _scalar_tensor(value: Any, dtype: dtypes.dtype) -> Tensor:
    """torch's scalarToTensor: a Python number as a 0-dim tensor of the destination's dtype (an int
    beyond int64 fails as its unpacking into a C++ long long does)."""
    if type(value) is int and not -2**63 <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return Tensor._wrap(dtypes.checked_scalar(value, dtype, single=True), dtype)


def _copy_to(dst: Tensor, src: Tensor) -> None:
    """torch's copy_to: same shape copies, a 0-dim value fills, anything else is viewed without its
    leading size-1 dims and expanded to the destination's shape before the copy."""
    if dst._shape == src._shape:
        copy_(dst, src)
    elif src.ndim == 0:
        fill_(dst, src)
    else:
        lead = 0
        while lead < src.ndim and src._shape[lead] == 1:
            lead += 1
        src = views.view(src, src._shape[lead:])
        if src._shape != dst._shape:
            src = views.expand(src, dst._shape)
        copy_(dst, src)


def index_put_(self: Tensor, indices: Sequence[Any], values: Any, accumulate: bool = False,
               _positions: list[tuple[int, Any]] | None = None) -> Tensor:
    if _positions is None:
        _check_index_count(self, indices)
    positions = _positions if _positions is not None else list(zip(range(len(indices)), indices))
    return _index_put(self, positions, values, accumulate, "IndexPutBackward0")


def _check_index_count(self: Tensor, indices: Sequence[Any]) -> None:
    if len(indices) > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim} (got {len(indices)})")


def index_put_impl_(self: Tensor, indices: Sequence[Tensor | None], values: Any, accumulate: bool) -> Tensor:
    """at::_index_put_impl_ (what index's derivative calls): index_put_ recorded as IndexPutImplBackward0."""
    _check_index_count(self, indices)
    return _index_put(self, positions_of(indices), values, accumulate, "IndexPutImplBackward0")


def index_put(self: Tensor, indices: Sequence[Tensor | None], values: Any, accumulate: bool = False) -> Tensor:
    _check_index_count(self, indices)
    return _out_of_place(self, lambda t: _index_put(t, positions_of(indices), values, accumulate,
                                                    "IndexPutBackward0"))


def _index_put(self: Tensor, positions: list[tuple[int, Any]], values: Any, accumulate: bool, name: str) -> Tensor:
    check_inplace_allowed(self, values)
    if not isinstance(values, Tensor):
        values = _scalar_tensor(values, self.dtype)
    _expanded_warning(self, "index_put_", "tensor[indices] = tensor")
    mask = positions[0][1] if len(positions) == 1 else None
    if not accumulate and values.numel() == 1 and isinstance(mask, Tensor) and mask.dtype is dtypes.bool_:
        _expanded_warning(self, "masked_fill_", "tensor[mask] = scalar")  # torch fills through masked_fill_
        check_no_partial_overlap(self, mask)
    else:
        check_no_overlap(self, values)
        for _, item in positions:
            check_no_overlap(self, item)
    _check_bounds(self, positions)  # the indices are looked at after the overlap checks, as in ATen
    np_index = _numpy_index(self, positions)
    selected_shape = self._numpy_view()[np_index].shape
    check_writable(self, values.dtype if values.ndim else None, internal_overlap=False)
    if not _expandable(values._shape, selected_shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {errors.shape_text(values._shape)} cannot be "
                           f"broadcast to indexing result of shape {errors.shape_text(selected_shape)}")
    operand: Any = values._numpy_view()

    def write(target: np.ndarray) -> None:
        if accumulate:
            np.add.at(target, np_index, operand)
        else:
            target[np_index] = operand

    return apply_inplace(self, write, name, (values,), save={"indices": padded_indices(positions)},
                         check_autograd=False, check_overlap=False,
                         values={"accumulate": accumulate, "_values_shape": values._shape,
                                 "_values_dtype": values.dtype})


def _expandable(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """at::is_expandable_to: right-aligned, each size equal to the target's or 1."""
    if len(shape) > len(target):
        return False
    return all(a == b or a == 1 for a, b in zip(reversed(shape), reversed(target)))


def _expanded_warning(self: Tensor, op: str, example: str) -> None:
    """Some indexing writes still accept an expanded tensor, with torch's deprecation warning."""
    if geometry.has_internal_overlap(self._shape, self._stride):
        warnings.warn(f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before performing "
                      f"this operation. This also applies to advanced indexing e.g. {example}", UserWarning,
                      stacklevel=3)


# --------------------------------------------------------------------------- gathers (copies)
def index_select(self: Tensor, dim: int, index: Tensor, *, out: Tensor | None = None) -> Tensor:
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    idx = index._numpy_view().reshape(-1)
    if idx.size and (idx.max() >= self._shape[d] or idx.min() < 0):
        raise IndexError("index out of range in self")
    result = np.take(self._numpy_view(), idx, axis=d)
    if out is not None:
        _check_gather_out(out, self, index)
    return _finish("IndexSelectBackward0", "index_select", result, self.dtype, (self,), {"index": index}, out=out,
                   values={"dim": dim, "self_sym_sizes": self._shape}, after_resize=lambda: None, layout=None)


def _check_gather_out(out: Tensor, source: Tensor, index: Tensor, partial_index: bool = False) -> None:
    """A gather's out= may share no memory with what it reads (torch's assert_no_overlap; gather, which
    checks once out has its final size, only refuses a partial overlap with its index)."""
    check_internal_overlap(out)
    check_no_overlap(out, source)
    (check_no_partial_overlap if partial_index else check_no_overlap)(out, index)


def masked_select(self: Tensor, mask: Tensor, *, out: Tensor | None = None) -> Tensor:
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = geometry.broadcast_shapes(self._shape, mask._shape)
    x = np.broadcast_to(self._numpy_view(), shape)
    m = np.broadcast_to(mask._numpy_view(), shape)
    if out is not None:
        _check_gather_out(out, self, mask)
    return _finish("MaskedSelectBackward0", "masked_select", x[m], self.dtype, (self,), {"mask": mask, "self": self},
                   out=out, after_resize=lambda: None, layout=None)




def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out: Tensor | None = None) -> Tensor:
    """out[i][j] = self[index[i][j]][j] (dim 0): the result has index's shape, which may not exceed
    self's in any other dim (only the corner of self that index covers is read)."""
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    _check_index_shape(self, d, index)
    idx = index._numpy_view()
    flat = index.ndim != self.ndim or self.ndim == 0  # 0-dim and 1-dim tensors gather as one another
    if flat:
        result = self._numpy_view().reshape(-1)[idx.astype(np.int64)]
    else:
        corner = tuple(slice(None) if axis == d else slice(0, n) for axis, n in enumerate(idx.shape))
        source = self._numpy_view()[corner] if self.ndim else self._numpy_view()
        result = np.take_along_axis(source, idx.astype(np.int64), axis=d) if self.ndim else source[()] + 0 * idx
    return _finish("GatherBackward0", "gather", result, self.dtype, (self,), {"index": index, "self": self}, out=out,
                   values={"dim": dim, "sparse_grad": sparse_grad},
                   after_resize=lambda: _check_gather_out(out, self, index, partial_index=True), layout=None)


def _check_index_shape(self: Tensor, d: int, index: Tensor) -> None:
    """gather's and scatter's rule: index has self's rank, is no larger apart from dim d, and in range."""
    if index.ndim != self.ndim and not (index.ndim <= 1 and self.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for axis in range(min(index.ndim, self.ndim)):
        if axis != d and index._shape[axis] > self._shape[axis]:
            raise RuntimeError(f"Size does not match at dimension {axis} expected index "
                               f"{errors.shape_text(index._shape)} to be no larger than self "
                               f"{errors.shape_text(self._shape)} apart from dimension {d}")
    size = self._shape[d] if self.ndim else 1
    values = index._numpy_view()
    if values.size:
        bad = values[(values < 0) | (values >= size)]
        if bad.size:
            raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}")


def _along(array: np.ndarray, d: int, index: np.ndarray) -> tuple[np.ndarray, ...]:
    """Full index tuple addressing array[..., index[...], ...] along dim d, for index's shape."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[d] = index
    return tuple(grids)


# --------------------------------------------------------------------------- scatters
def _scatter_write(d: int, idx: np.ndarray, src: Any, reduce: str | None) -> Any:
    def write(target: np.ndarray) -> None:
        if target.ndim != idx.ndim or target.ndim == 0:  # 0-dim and 1-dim tensors scatter as one another
            target, where = target.reshape(-1), (idx.reshape(-1),)
            values = src.reshape(-1)[:idx.size] if isinstance(src, np.ndarray) else src
        else:
            where = _along(target, d, idx)
            values = src[tuple(slice(0, n) for n in idx.shape)] if isinstance(src, np.ndarray) else src
        if reduce in ("add", "sum"):
            np.add.at(target, where, values)
        elif reduce == "multiply":
            np.multiply.at(target, where, values)
        else:
            target[where] = values
    return write


def scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Tensor:
    check_inplace_allowed(self, src if src is not None else value)
    check_writable(self)
    check_no_overlap(self, index)
    check_no_overlap(self, src)
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    source = value if src is None else src
    idx = index._numpy_view()
    tensor_src = isinstance(source, Tensor)
    operand = source._numpy_view() if tensor_src else source
    inputs = (source,) if tensor_src else ()
    name = "ScatterBackward0" if tensor_src else "ScatterBackward1"
    return apply_inplace(self, _scatter_write(d, idx, operand, reduce), name, inputs, save={"index": index},
                         check_autograd=False, values={"dim": dim})


def scatter(self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None, out: Tensor | None = None) -> Tensor:
    result = _out_of_place(self, lambda t: scatter_(t, dim, index, src, value=value, reduce=reduce), contiguous=True)
    return _to_out(result, out, "scatter", (self, src))


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    check_inplace_allowed(self, src)
    check_writable(self)
    check_no_overlap(self, index)
    check_no_overlap(self, src)
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    return apply_inplace(self, _scatter_write(d, index._numpy_view(), src._numpy_view(), "add"),
                         "ScatterAddBackward0", (src,), save={"index": index}, check_autograd=False,
                         values={"dim": dim})


def _check_index_func(self: Tensor, d: int, index: Tensor, source: Tensor, func: str) -> np.ndarray:
    """index_add_/index_copy_'s argument checks, in torch's order; the flat index."""
    if index.ndim > 1:
        raise IndexError(f"{func}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{index.dtype.short} and size: {errors.shape_text(index._shape)}")
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: {index.dtype.short}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"{func}_(): self ({self.dtype.short}) and source ({source.dtype.short}) must have the "
                           "same scalar type")
    if not (d == 0 or d < source.ndim):
        raise RuntimeError(f"{func}_(): Indexing dim {d} is out of bounds of the source tensor with dim "
                           f"{source.ndim}")
    count = index.numel()
    expected = 1 if source.ndim == 0 else source._shape[d]
    if count != expected:
        raise RuntimeError(f"{func}_(): Number of indices ({count}) should be equal to source.size(dim): "
                           f"({expected}), for dim: {d}")
    self_rest, source_rest = list(self._shape), list(source._shape)
    if source.ndim and self.ndim:
        del self_rest[d], source_rest[d]
    if self_rest != source_rest:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {errors.shape_text(self._shape)} source.shape = "
                           f"{errors.shape_text(source._shape)}")
    idx = index._numpy_view().reshape(-1)
    size = self._shape[d] if self.ndim else 1
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise RuntimeError(errors.INDEX_RANGE.format(i=int(bad[0]), dim=d, size=size))
    return idx


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: float = 1) -> Tensor:
    check_inplace_allowed(self, source)
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    idx = _check_index_func(self, d, index, source, "index_add")
    check_writable(self, source.dtype)
    check_no_overlap(self, index)
    check_no_overlap(self, source)
    values = source._numpy_view() * alpha if alpha != 1 else source._numpy_view()

    def write(target: np.ndarray) -> None:
        np.add.at(target, (slice(None),) * d + (idx,), values)

    return apply_inplace(self, write, "IndexAddBackward0", (source,), save={"index": index, "source": source},
                         check_autograd=False, values={"alpha": alpha, "dim": dim, "source_dim": source.ndim})


def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: float = 1,
              out: Tensor | None = None) -> Tensor:
    result = _out_of_place(self, lambda t: index_add_(t, dim, index, source, alpha=alpha))
    return _to_out(result, out, "index_add", (self, source))


def _to_out(result: Tensor, out: Tensor | None, op: str, inputs: tuple[Any, ...]) -> Tensor:
    return result if out is None else write_out(out, result._numpy_view(), op, inputs)


def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    check_inplace_allowed(self, value)
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.cpp}")
    _expanded_warning(self, "masked_fill_", "tensor[mask] = scalar")
    check_no_partial_overlap(self, mask)
    check_writable(self, None, (mask._shape,), internal_overlap=False)
    m = mask._numpy_view()
    tensor_value = isinstance(value, Tensor)
    fill = value._numpy_view()[()] if tensor_value else value

    def write(target: np.ndarray) -> None:
        np.copyto(target, fill, where=np.broadcast_to(m, target.shape), casting="unsafe")

    inputs = (value,) if tensor_value else ()
    name = "MaskedFillBackward1" if tensor_value else "MaskedFillBackward0"
    return apply_inplace(self, write, name, inputs, save={"mask": mask}, check_autograd=False)


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    check_inplace_allowed(self, value)
    _expanded_warning(self, "index_fill_", "tensor[mask] = scalar")
    check_no_overlap(self, index)
    check_writable(self, internal_overlap=False)
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    idx = index._numpy_view().reshape(-1)
    # ATen restrides self to step 0 along dim over the index's length before looking at any index:
    # an empty self on too small a storage fails there (`torch.zeros(0).index_fill_(0, i, 1.)`)
    sizes, strides = (list(self._shape), list(self._stride)) if self.ndim else ([1], [1])
    sizes[d], strides[d] = idx.size, 0
    geometry.check_strided_layout(sizes, strides, self._offset, self.dtype.itemsize, self._storage.nbytes)
    fill = value._numpy_view()[()] if isinstance(value, Tensor) else value
    size = self._shape[d] if self.ndim else 1
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise IndexError(errors.INDEX_RANGE.format(i=int(bad[0]), dim=d, size=size))

    def write(target: np.ndarray) -> None:
        target[(slice(None),) * d + (idx,)] = fill

    if isinstance(value, Tensor):
        return apply_inplace(self, write, "IndexFillBackward1", (value,), save={"index": index},
                             check_autograd=False, values={"dim": dim})
    return apply_inplace(self, write, "IndexFillBackward0", (), save={"index": index}, check_autograd=False,
                         values={"dim": dim})


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    check_inplace_allowed(self, source)
    check_writable(self, source.dtype)
    check_no_overlap(self, index)
    check_no_overlap(self, source)
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    idx = index._numpy_view().reshape(-1)
    values = source._numpy_view()

    def write(target: np.ndarray) -> None:
        target[(slice(None),) * d + (idx,)] = values

    return apply_inplace(self, write, "IndexCopyBackward0", (source,), save={"index": index, "source": source},
                         check_autograd=False, values={"dim": dim, "source_dim": source.ndim})


def index_fill(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _out_of_place(self, lambda t: index_fill_(t, dim, index, value))


def index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return _out_of_place(self, lambda t: index_copy_(t, dim, index, source))


def masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """torch: self expanded to the broadcast shape, cloned row-major, then masked_fill_."""
    return _out_of_place(self, lambda t: masked_fill_(t, mask, value), contiguous=True)


def _out_of_place(self: Tensor, inplace: Any, contiguous: bool = False) -> Tensor:
    """`op(x)` for ops PyTorch defines as `x.clone().op_()` but records as one node fed by x; the
    clone keeps x's layout (preserve_format) unless the op clones `contiguous`."""
    from engine.autograd import grad_mode
    from engine.ops.copying import clone

    with grad_mode.no_grad():
        copied = clone(self, contiguous=contiguous)
    tracked = needs_grad(self)
    edge = self._gradient_edge() if tracked else None
    if edge is not None:
        copied._grad_fn, copied._output_nr = edge
    elif tracked:  # x requires grad but has no edge (a no_grad view of a leaf): torch's node gets (None, 0)
        copied._grad_fn, copied._output_nr = _NO_EDGE, 0
    result = inplace(copied)
    result._counter().value = 0  # a fresh result, not a modified tensor
    if edge is None and tracked and result._grad_fn is not None:
        node = result._grad_fn
        node.next_functions = tuple((None, 0) if fn is _NO_EDGE else (fn, nr) for fn, nr in node.next_functions)
    return result


_NO_EDGE = node_type("NoEdge")(None, (), ())  # stands for a missing edge while the in-place op records


# --------------------------------------------------------------------------- joining and rearranging
def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    skipped = [t._shape == (0,) for t in tensors]  # legacy: 1-D empty tensors join anything
    joined = [t for t, skip in zip(tensors, skipped) if not skip] or tensors[:1]
    ref = joined[0]
    d = geometry.wrap_dim(dim, max(ref.ndim, 1))
    for k, (t, skip) in enumerate(zip(tensors, skipped)):
        if skip:
            continue
        if t.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}")
        for axis in range(ref.ndim):
            if axis != d and t._shape[axis] != ref._shape[axis]:
                raise RuntimeError(errors.CAT_SIZES.format(dim=d, want=ref._shape[axis], got=t._shape[axis], k=k))
    dt = ref.dtype
    for t in joined[1:]:
        dt = dtypes.promote_types(dt, t.dtype)
    result = np.concatenate([t._numpy_view().astype(dt.np, copy=False) for t in joined], axis=d)
    if out is not None:
        _check_cat_out(out, dt, tensors)
    return _finish("CatBackward0", "cat", result, dt, tuple(tensors), out=out, layout="contiguous",
                   values={"dim": dim, "_sizes": [t._shape for t in tensors], "_d": d},
                   after_resize=None if out is None else lambda: _check_cat_overlap(
                       out, [t for t, skip in zip(tensors, skipped) if not skip]))


def _check_cat_out(out: Tensor, dt: dtypes.dtype, tensors: Sequence[Tensor], op: str = "cat") -> None:
    if needs_grad(*tensors, out):
        raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op=op))
    if not dtypes.can_cast(dt, out.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {out.dtype.short}")


def _check_cat_overlap(out: Tensor, tensors: Sequence[Tensor]) -> None:
    """cat checks out only once it has its final size: no internal overlap, no overlap with an input it
    reads (the legacy 1-D empty inputs it skips are not looked at)."""
    check_internal_overlap(out)
    for t in tensors:
        check_no_overlap(out, t)


def stack(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for k, t in enumerate(tensors):
        if t._shape != tensors[0]._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {errors.shape_text(tensors[0]._shape)}"
                               f" at entry 0 and {errors.shape_text(t._shape)} at entry {k}")
    d = geometry.wrap_dim(dim, tensors[0].ndim + 1)
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = dtypes.promote_types(dt, t.dtype)
    result = np.stack([t._numpy_view().astype(dt.np, copy=False) for t in tensors], axis=d)
    if out is not None:
        _check_cat_out(out, dt, tensors, "stack")
    # torch cats the inputs unsqueezed: views of their own, so an empty one overlaps nothing, out included
    return _finish("StackBackward0", "stack", result, dt, tuple(tensors), out=out, layout="contiguous",
                   values={"dim": dim, "_count": len(tensors)},
                   after_resize=None if out is None else lambda: _check_cat_overlap(
                       out, [t for t in tensors if t.numel()]))


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """ATen's hstack: atleast_1d each, then cat along dim 0 for vectors, dim 1 otherwise."""
    shaped = [views.atleast_1d(t) for t in tensors]
    return cat(shaped, 0 if shaped[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """ATen's vstack: atleast_2d each (a vector unsqueezed, a number viewed), then cat along dim 0."""
    return cat([views.atleast_2d(t) for t in tensors], 0)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([views.atleast_3d(t) for t in tensors], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """ATen's column_stack: numbers and vectors reshaped into columns, then hstack."""
    return hstack([views.reshape(t, t.numel(), 1) if t.ndim <= 1 else t for t in tensors])


def repeat(self: Tensor, *sizes: Any) -> Tensor:
    reps = views.sizes_arg(sizes)
    if len(reps) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    lead = len(reps) - self.ndim
    source = self._numpy_view().reshape((1,) * lead + self._shape)
    result = np.tile(source, reps)
    return _finish("RepeatBackward0", "repeat", result, self.dtype, (self,), layout="contiguous",
                   values={"repeats": tuple(reps), "self_sym_sizes": self._shape})


def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    axes = tuple(geometry.wrap_dim(d, self.ndim) for d in (dims if isinstance(dims, (list, tuple)) else [dims]))
    return _finish("FlipBackward0", "flip", np.flip(self._numpy_view(), axes).copy(), self.dtype, (self,),
                   values={"dims": tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)}, layout="preserve")


def roll(self: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    result = np.roll(self._numpy_view(), shifts, dims)
    return _finish("RollBackward0", "roll", result, self.dtype, (self,), layout="preserve",
                   values={"dims": _as_tuple(dims), "shifts": _as_tuple(shifts)})


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _triangle(keep: Any, name: str) -> Any:
    def op(self: Tensor, diagonal: int = 0) -> Tensor:
        return _finish(name, name, keep(self._numpy_view(), diagonal), self.dtype, (self,),
                       values={"diagonal": diagonal}, layout=None)
    return op


tril = _triangle(np.tril, "TrilBackward0")
triu = _triangle(np.triu, "TriuBackward0")


def _finish_diag(vector: Tensor, diagonal: int) -> Tensor:
    """torch.diag of a 1-D tensor: a square matrix with it on the chosen diagonal (DiagEmbed-like)."""
    result = np.diag(vector._numpy_view(), diagonal)
    return _finish("DiagEmbedBackward0", "diag", result, vector.dtype, (vector,),
                   values={"dim1": (1 << 64) - 2, "dim2": (1 << 64) - 1, "offset": diagonal}, layout=None)


def nonzero(self: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of the nonzero elements, one row each; a 0-d tensor has none to give, so a nonzero
    one is a (1, 0) result (and (tensor([0]),) as a tuple), as in torch."""
    if as_tuple:  # the columns of the result, as views (a number taken as a vector of one)
        return views.unbind(nonzero(self if self.ndim else views.unsqueeze(self, 0)), 1)
    values = self._numpy_view()
    if values.ndim == 0:
        return Tensor._empty_strided((int(bool(values)), 0), (1, 1), dtypes.int64)
    found = np.nonzero(values)
    count = len(found[0])
    out = Tensor._empty_strided((count, values.ndim), (1, count), dtypes.int64)  # column-major, as ATen's
    np.copyto(out._numpy_view(), np.stack(found, axis=1))
    return out




METHODS = {
    "__getitem__": getitem, "__setitem__": setitem, "index_select": index_select, "masked_select": masked_select,
    "gather": gather, "scatter": scatter, "scatter_": scatter_, "scatter_add_": scatter_add_, "index_add": index_add,
    "index_add_": index_add_, "index_put_": index_put_, "index_fill_": index_fill_, "index_copy_": index_copy_,
    "index_fill": index_fill, "index_copy": index_copy, "masked_fill": masked_fill, "masked_fill_": masked_fill_,
    "repeat": repeat, "flip": flip, "roll": roll, "tril": tril, "triu": triu, "nonzero": nonzero, "argwhere": nonzero,
    "index_put": index_put,
}
FUNCTIONS = {
    "cat": cat, "concat": cat, "concatenate": cat, "stack": stack, "hstack": hstack, "vstack": vstack,
    "row_stack": vstack, "dstack": dstack, "column_stack": column_stack, "argwhere": nonzero,
    "index_select": index_select, "masked_select": masked_select, "gather": gather, "scatter": scatter,
    "index_add": index_add, "masked_fill": masked_fill, "index_fill": index_fill, "index_copy": index_copy, "flip": flip, "roll": roll, "tril": tril, "triu": triu,
    "nonzero": nonzero,
}
