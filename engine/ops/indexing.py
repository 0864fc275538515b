"""Indexing: `x[...]` and `x[...] = v`, gathers and scatters, and joining tensors.

Basic indexing (ints, slices, None, Ellipsis) gives views, built from select/slice/unsqueeze exactly
as PyTorch chains them; advanced indexing (index tensors, lists, masks) copies. `x[i] = v` writes
through such a view (so the base gets CopySlices), `x[mask] = v` is index_put_.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.autograd import grad_mode
from engine.ops import views
from engine.ops.copying import copy_, fill_
from engine.ops.core import (
    apply_inplace,
    check_inplace_allowed,
    check_writable,
    make_view,
    needs_grad,
    record,
)
from engine.ops.pointwise import _finish, write_out
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
    if array.dtype.kind == "f":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return array


def _index_tensor(item: Any) -> Tensor:
    return item if isinstance(item, Tensor) else Tensor._wrap(_as_index_array(item))


def _normalize(index: Any) -> tuple[Any, ...]:
    return index if isinstance(index, tuple) else (index,)


def _consumed_dims(item: Any) -> int:
    if type(item) is int or type(item) is slice:
        return 1
    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, Tensor) and item.dtype is dtypes.bool_:
        return max(item.ndim, 1)
    return 1


def _apply_basic(self: Tensor, items: tuple[Any, ...], single: bool) -> tuple[Tensor, list[tuple[int, Any]]]:
    """Apply ints/slices/None/Ellipsis as chained views; return the view and the advanced items with
    the dim each applies to in that view."""
    result = self
    dim = 0
    advanced: list[tuple[int, Any]] = []
    specified = 0
    for item in items:
        specified += _consumed_dims(item)
    if specified > len(self._shape):
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    if not (grad_mode.state.enabled and self.requires_grad):
        composed = _composed_view(self, items, single)
        if composed is not None:
            return composed, []
    for item in items:
        if type(item) is int:  # the common items first, without the isinstance chain below
            result = _select(result, dim, item)
        elif type(item) is slice:
            result = _slice(result, dim, item, single)
            dim += 1
        elif item is Ellipsis:
            dim += self.ndim - specified
        elif item is None or isinstance(item, bool):
            result = views.unsqueeze(result, dim)
            dim += 1
        elif isinstance(item, numbers.Integral) and not isinstance(item, Tensor):
            result = _select(result, dim, item)
        elif _is_advanced(item):
            advanced.append((dim, item))
            dim += _consumed_dims(item)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             "are valid indices (got " + type(item).__name__ + ")")
    return result, advanced


def _composed_view(self: Tensor, items: tuple[Any, ...], single: bool) -> Tensor | None:
    """ints and slices applied as one view when no node is recorded: the chain's intermediate views
    would be seen by nothing (same base, version counter and view metadata as the last one). None
    when an item is of another kind."""
    layout = (self._shape, self._stride, self._offset)
    dim = 0
    for item in items:
        if type(item) is int:
            size = layout[0][dim]
            if not -size <= item < size:
                raise IndexError(errors.INDEX_RANGE.format(i=item, dim=dim, size=size))
            layout = views.select_layout(layout, dim, item)
        elif type(item) is slice:
            bounds = _slice_bounds(layout[0][dim], item, single)
            if bounds is not None:
                layout = views.slice_layout(layout, dim, *bounds)
            dim += 1
        else:
            return None
    if layout[0] is self._shape and layout[1] is self._stride:
        return self  # every slice was a full `:`
    return make_view(self, *layout, "AsStridedBackward0")  # never recorded: no node is made here


def _slice_bounds(size: int, item: slice, single: bool) -> tuple[int | None, int | None, int] | None:
    """(start, stop, step) of a slice index, or None for a full `:` inside a tuple index (torch
    applies no slice for it)."""
    start, stop, step = item.start, item.stop, item.step
    start = None if start is None else int(start)
    stop = None if stop is None else int(stop)
    step = 1 if step is None else int(step)
    if not single and step == 1:
        if start is None and stop is None:
            return None
        begin, end, _ = slice(start, stop).indices(size)
        if begin == 0 and end >= size:
            return None
    return start, stop, step


def _select(view: Tensor, dim: int, item: Any) -> Tensor:
    """`x[i]` at `dim`: a select view, or IndexError's message for an index out of range."""
    size = view._shape[dim]
    if not -size <= item < size:
        raise IndexError(errors.INDEX_RANGE.format(i=item, dim=dim, size=size))
    return views.select(view, dim, int(item))


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


def _check_bounds(view: Tensor, advanced: list[tuple[int, Any]]) -> None:
    for dim, item in advanced:
        array = _as_index_array(item)
        if array.dtype == np.bool_:
            expected = view._shape[dim:dim + array.ndim]
            if array.shape != expected:
                raise IndexError(f"The shape of the mask {list(array.shape)} at index {dim} does not match the "
                                 f"shape of the indexed tensor {list(view._shape)} at index {dim}")
            continue
        size = view._shape[dim]
        if array.size and (array.max() >= size or array.min() < -size):
            bad = int(array.max() if array.max() >= size else array.min())
            raise IndexError(errors.INDEX_RANGE.format(i=bad, dim=dim, size=size))


# --------------------------------------------------------------------------- x[index]
def getitem(self: Tensor, index: Any) -> Tensor:
    if type(index) is int and self._shape:  # x[i], the most common index: one select
        return _select(self, 0, index)
    items = _normalize(index)
    if not self._shape and len(items) == 1 and items[0] is Ellipsis:
        return views.alias(self)
    view, advanced = _apply_basic(self, items, single=not isinstance(index, tuple))
    if not advanced:
        return views.alias(view) if view is self else view
    _check_bounds(view, advanced)
    np_index = _numpy_index(view, advanced)
    result = view._numpy_view()[np_index]
    out = Tensor._wrap(np.ascontiguousarray(result) if result.base is None else np.array(result, order="C"), view.dtype)
    record("IndexBackward0", out, (view,), save={"indices": padded_indices(advanced)},
           values={"self_sym_sizes": view._shape})
    return out


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
    items = _normalize(index)
    if index is Ellipsis:
        _write(self, value)
        return
    view, advanced = _apply_basic(self, items, single=not isinstance(index, tuple))
    if not advanced:
        _write(view, value)
        return
    _check_bounds(view, advanced)
    index_put_(view, [item for _, item in advanced], value, _positions=advanced)


def _write(target: Tensor, value: Any) -> None:
    if isinstance(value, Tensor):
        geometry.check_expandable(value._shape, target._shape)  # setitem expands the value first
        copy_(target, value)
    else:
        fill_(target, value)


def index_put_(self: Tensor, indices: Sequence[Any], values: Any, accumulate: bool = False,
               _positions: list[tuple[int, Any]] | None = None) -> Tensor:
    positions = _positions if _positions is not None else list(zip(range(len(indices)), indices))
    return _index_put(self, positions, values, accumulate, "IndexPutBackward0")


def index_put_impl_(self: Tensor, indices: Sequence[Tensor | None], values: Any, accumulate: bool) -> Tensor:
    """at::_index_put_impl_ (what index's derivative calls): index_put_ recorded as IndexPutImplBackward0."""
    return _index_put(self, positions_of(indices), values, accumulate, "IndexPutImplBackward0")


def index_put(self: Tensor, indices: Sequence[Tensor | None], values: Any, accumulate: bool = False) -> Tensor:
    return _out_of_place(self, lambda t: _index_put(t, positions_of(indices), values, accumulate,
                                                    "IndexPutBackward0"))


def _index_put(self: Tensor, positions: list[tuple[int, Any]], values: Any, accumulate: bool, name: str) -> Tensor:
    check_inplace_allowed(self)
    np_index = _numpy_index(self, positions)
    selected_shape = self._numpy_view()[np_index].shape
    if isinstance(values, Tensor):
        check_writable(self, values.dtype if values.ndim else None)
        geometry.broadcast_shapes(selected_shape, values._shape)
        operand: Any = values._numpy_view()
    else:
        check_writable(self)
        operand = values

    def write(target: np.ndarray) -> None:
        if accumulate:
            np.add.at(target, np_index, operand)
        else:
            target[np_index] = operand

    is_tensor = isinstance(values, Tensor)
    return apply_inplace(self, write, name, (values,), save={"indices": padded_indices(positions)},
                         check_autograd=False,
                         values={"accumulate": accumulate, "_values_shape": values._shape if is_tensor else (),
                                 "_values_dtype": values.dtype if is_tensor else self.dtype})


# --------------------------------------------------------------------------- gathers (copies)
def index_select(self: Tensor, dim: int, index: Tensor, *, out: Tensor | None = None) -> Tensor:
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    idx = index._numpy_view().reshape(-1)
    if idx.size and (idx.max() >= self._shape[d] or idx.min() < 0):
        raise IndexError("index out of range in self")
    result = np.take(self._numpy_view(), idx, axis=d)
    return _finish("IndexSelectBackward0", "index_select", result, self.dtype, (self,), {"index": index}, out=out,
                   values={"dim": dim, "self_sym_sizes": self._shape})


def masked_select(self: Tensor, mask: Tensor, *, out: Tensor | None = None) -> Tensor:
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = geometry.broadcast_shapes(self._shape, mask._shape)
    x = np.broadcast_to(self._numpy_view(), shape)
    m = np.broadcast_to(mask._numpy_view(), shape)
    return _finish("MaskedSelectBackward0", "masked_select", x[m], self.dtype, (self,), {"mask": mask, "self": self},
                   out=out)


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Copy source's leading elements, in order, into self where mask is True."""
    check_inplace_allowed(self)
    check_writable(self, None, (mask._shape,))
    m = np.broadcast_to(mask._numpy_view(), self._shape)
    count = int(m.sum())
    if source.numel() < count:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    values = source._numpy_view().reshape(-1)[:count]

    def write(target: np.ndarray) -> None:
        target[m] = values

    return apply_inplace(self, write, "MaskedScatterBackward0", (source,), save={"mask": mask}, check_autograd=False,
                         values={"source_sym_sizes": source._shape})


def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return _out_of_place(self, lambda t: masked_scatter_(t, mask, source))


def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out: Tensor | None = None) -> Tensor:
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    if index.dtype is not dtypes.int64:
        raise RuntimeError("gather(): Expected dtype int64 for index")
    idx = index._numpy_view()
    result = np.take_along_axis(self._numpy_view(), idx, axis=d)
    return _finish("GatherBackward0", "gather", result, self.dtype, (self,), {"index": index, "self": self}, out=out,
                   values={"dim": dim, "sparse_grad": sparse_grad})


def _along(array: np.ndarray, d: int, index: np.ndarray) -> tuple[np.ndarray, ...]:
    """Full index tuple addressing array[..., index[...], ...] along dim d, for index's shape."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[d] = index
    return tuple(grids)


# --------------------------------------------------------------------------- scatters
def _scatter_write(d: int, idx: np.ndarray, src: Any, reduce: str | None) -> Any:
    def write(target: np.ndarray) -> None:
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
    check_inplace_allowed(self)
    check_writable(self)
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
    result = _out_of_place(self, lambda t: scatter_(t, dim, index, src, value=value, reduce=reduce))
    return _to_out(result, out, "scatter", (self, src))


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self)
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    return apply_inplace(self, _scatter_write(d, index._numpy_view(), src._numpy_view(), "add"),
                         "ScatterAddBackward0", (src,), save={"index": index}, check_autograd=False,
                         values={"dim": dim})


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: float = 1) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self, source.dtype)
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    idx = index._numpy_view().reshape(-1)
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
    check_inplace_allowed(self)
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.cpp}")
    check_writable(self, None, (mask._shape,))
    m = mask._numpy_view()
    tensor_value = isinstance(value, Tensor)
    fill = value._numpy_view()[()] if tensor_value else value

    def write(target: np.ndarray) -> None:
        np.copyto(target, fill, where=np.broadcast_to(m, target.shape), casting="unsafe")

    inputs = (value,) if tensor_value else ()
    name = "MaskedFillBackward1" if tensor_value else "MaskedFillBackward0"
    return apply_inplace(self, write, name, inputs, save={"mask": mask}, check_autograd=False)


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self)
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    idx = index._numpy_view().reshape(-1)
    fill = value._numpy_view()[()] if isinstance(value, Tensor) else value

    def write(target: np.ndarray) -> None:
        target[(slice(None),) * d + (idx,)] = fill

    if isinstance(value, Tensor):
        return apply_inplace(self, write, "IndexFillBackward1", (value,), save={"index": index},
                             check_autograd=False, values={"dim": dim})
    return apply_inplace(self, write, "IndexFillBackward0", (), save={"index": index}, check_autograd=False,
                         values={"dim": dim})


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self, source.dtype)
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
    return _out_of_place(self, lambda t: masked_fill_(t, mask, value))


def _out_of_place(self: Tensor, inplace: Any) -> Tensor:
    """`op(x)` for ops PyTorch defines as `x.clone().op_()` but records as one node fed by x."""
    from engine.autograd import grad_mode
    from engine.ops.copying import clone

    with grad_mode.no_grad():
        copied = clone(self)
    edge = self._gradient_edge() if needs_grad(self) else None
    if edge is not None:
        copied._grad_fn, copied._output_nr = edge
    result = inplace(copied)
    result._vc.value = 0  # a fresh result, not a modified tensor
    return result


# --------------------------------------------------------------------------- joining and rearranging
def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
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
    return _finish("CatBackward0", "cat", result, dt, tuple(tensors), out=out,
                   values={"dim": dim, "_sizes": [t._shape for t in tensors], "_d": d})


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
    return _finish("StackBackward0", "stack", result, dt, tuple(tensors), out=out,
                   values={"dim": dim, "_count": len(tensors)})


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([views.reshape(t, 1, -1) if t.ndim == 1 else t for t in tensors], 0)


def repeat(self: Tensor, *sizes: Any) -> Tensor:
    reps = views.sizes_arg(sizes)
    if len(reps) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    lead = len(reps) - self.ndim
    source = self._numpy_view().reshape((1,) * lead + self._shape)
    result = np.tile(source, reps)
    return _finish("RepeatBackward0", "repeat", result, self.dtype, (self,),
                   values={"repeats": tuple(reps), "self_sym_sizes": self._shape})


def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    axes = tuple(geometry.wrap_dim(d, self.ndim) for d in (dims if isinstance(dims, (list, tuple)) else [dims]))
    return _finish("FlipBackward0", "flip", np.flip(self._numpy_view(), axes).copy(), self.dtype, (self,),
                   values={"dims": tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)})


def roll(self: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    result = np.roll(self._numpy_view(), shifts, dims)
    return _finish("RollBackward0", "roll", result, self.dtype, (self,),
                   values={"dims": _as_tuple(dims), "shifts": _as_tuple(shifts)})


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _triangle(keep: Any, name: str) -> Any:
    def op(self: Tensor, diagonal: int = 0) -> Tensor:
        return _finish(name, name, keep(self._numpy_view(), diagonal), self.dtype, (self,),
                       values={"diagonal": diagonal})
    return op


tril = _triangle(np.tril, "TrilBackward0")
triu = _triangle(np.triu, "TriuBackward0")


def _finish_diag(vector: Tensor, diagonal: int) -> Tensor:
    """torch.diag of a 1-D tensor: a square matrix with it on the chosen diagonal (DiagEmbed-like)."""
    result = np.diag(vector._numpy_view(), diagonal)
    return _finish("DiagEmbedBackward0", "diag", result, vector.dtype, (vector,),
                   values={"dim1": (1 << 64) - 2, "dim2": (1 << 64) - 1, "offset": diagonal})


def nonzero(self: Tensor, *, as_tuple: bool = False) -> Any:
    found = np.nonzero(self._numpy_view())
    if as_tuple:
        return tuple(Tensor._wrap(a.astype(np.int64)) for a in found)
    return Tensor._wrap(np.stack(found, axis=1).astype(np.int64) if found else np.zeros((0, 0), np.int64))


def take(self: Tensor, index: Tensor) -> Tensor:
    flat = np.ascontiguousarray(self._numpy_view()).reshape(-1)
    idx = index._numpy_view()
    return _finish("TakeBackward0", "take", flat[idx], self.dtype, (self,), {"index": index, "self": self})


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Write source into self's elements at flat positions `index` (row-major order)."""
    check_inplace_allowed(self)
    check_writable(self)
    idx = index._numpy_view().reshape(-1)
    values = source._numpy_view().reshape(-1)

    def write(target: np.ndarray) -> None:
        flat = target.reshape(-1) if target.flags.c_contiguous else None
        if flat is None:
            positions = np.unravel_index(idx % target.size, target.shape)
            if accumulate:
                np.add.at(target, positions, values)
            else:
                target[positions] = values
        elif accumulate:
            np.add.at(flat, idx, values)
        else:
            flat[idx] = values

    return apply_inplace(self, write, "PutBackward0", (source,), save={"index": index, "source": source},
                         check_autograd=False, values={"accumulate": accumulate, "_source_info": source._shape})


def put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Out of place put_: a copy of self with source at the flat positions `index` (one PutBackward0)."""
    result = np.array(self._numpy_view())
    flat = result.reshape(-1)
    idx = index._numpy_view().reshape(-1)
    values = source._numpy_view().reshape(-1)
    if accumulate:
        np.add.at(flat, idx, values)
    else:
        flat[idx] = values
    return _finish("PutBackward0", "put", result, self.dtype, (self, source), {"index": index, "source": source},
                   values={"accumulate": accumulate, "_source_info": source._shape})


METHODS = {
    "__getitem__": getitem, "__setitem__": setitem, "index_select": index_select, "masked_select": masked_select,
    "gather": gather, "scatter": scatter, "scatter_": scatter_, "scatter_add_": scatter_add_, "index_add": index_add,
    "index_add_": index_add_, "index_put_": index_put_, "index_fill_": index_fill_, "index_copy_": index_copy_,
    "index_fill": index_fill, "index_copy": index_copy, "masked_fill": masked_fill, "masked_fill_": masked_fill_,
    "repeat": repeat, "flip": flip, "roll": roll, "tril": tril, "triu": triu, "nonzero": nonzero, "take": take,
    "masked_scatter_": masked_scatter_, "masked_scatter": masked_scatter, "put_": put_, "put": put,
    "index_put": index_put,
}
FUNCTIONS = {
    "cat": cat, "concat": cat, "concatenate": cat, "stack": stack, "hstack": hstack, "vstack": vstack,
    "index_select": index_select, "masked_select": masked_select, "gather": gather, "scatter": scatter,
    "index_add": index_add, "masked_fill": masked_fill, "index_fill": index_fill, "index_copy": index_copy, "flip": flip, "roll": roll, "tril": tril, "triu": triu,
    "nonzero": nonzero, "take": take, "put": put,
}
