"""Order statistics along a dim: aminmax (both extremes at once, AminmaxBackward0 sharing the
gradient among ties as amin/amax do), kthvalue (ATen's quickselect, so tied values report the index
torch reports; KthvalueBackward0), mode (the smallest most frequent value, the index found by the
std::sort ATen runs; ModeBackward0) and unique_consecutive (runs of equal values or slices)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes, geometry
from engine.linalg import _return_type as _fields_type
from engine.ops.core import needs_grad, record
from engine.ops.pointwise import write_out
from engine.ops.reduction import _return_type, return_types, saved_dims
from engine.tensor import Tensor

return_types.aminmax = _fields_type("aminmax", ("min", "max"))
return_types.aminmax_out = _fields_type("aminmax_out", ("min", "max"))
return_types.kthvalue = _return_type("kthvalue")
return_types.mode = _return_type("mode")
return_types.kthvalue_out = _return_type("kthvalue_out")
return_types.mode_out = _return_type("mode_out")


def _not_for(op: str, self: Tensor, *, bool_too: bool = False) -> None:
    if self.dtype.is_complex or (bool_too and self.dtype is dtypes.bool_):
        raise NotImplementedError(f"\"{op}\" not implemented for '{self.dtype.short}'")


def _nonempty_dim(self: Tensor, dim: int, op: str) -> int:
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    if self.ndim and self._shape[d] == 0:
        raise IndexError(f"{op}: Expected reduction dim {d} to have non-zero size.")
    return d


# --------------------------------------------------------------------------- aminmax
def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False, out: Any = None) -> tuple[Tensor, Tensor]:
    _not_for("aminmax_cpu", self)
    x = self._numpy_view()
    if dim is None:
        if x.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        axis: tuple[int, ...] = tuple(range(self.ndim))
    else:
        axis = (_nonempty_dim(self, dim, "aminmax"),) if self.ndim else ()
    with np.errstate(invalid="ignore"):
        low = np.min(x, axis=axis, keepdims=keepdim) if x.ndim else x.copy()
        high = np.max(x, axis=axis, keepdims=keepdim) if x.ndim else x.copy()
    if keepdim and dim is None and self.ndim:
        low, high = low.reshape((1,) * self.ndim), high.reshape((1,) * self.ndim)
    if out is not None:
        return return_types.aminmax_out(write_out(out[0], np.asarray(low), "aminmax", (self,)),
                                    write_out(out[1], np.asarray(high), "aminmax", (self,)))
    minimum = Tensor._wrap(np.array(low, order="C"), self.dtype)
    maximum = Tensor._wrap(np.array(high, order="C"), self.dtype)
    record("AminmaxBackward0", (minimum, maximum), (self,), save={"self": self},
           save_outputs={"min": minimum, "max": maximum},
           values={"dim": saved_dims(dim), "keepdim": keepdim})
    return return_types.aminmax(minimum, maximum)


# --------------------------------------------------------------------------- kthvalue
def _greater_or_nan(x: Any, y: Any) -> bool:
    """ATen's comparison for kthvalue: NaN is greater than any number."""
    return bool((x != x and y == y) or x > y)


def quick_select(values: list[Any], indices: list[int], k: int) -> None:
    """ATen's quick_select_template, in place: a median-of-three quickselect that leaves the k-th
    smallest (NaN largest) at position k, swapping values and their indices together."""
    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        indices[i], indices[j] = indices[j], indices[i]

    gt = _greater_or_nan
    left, right = 0, len(values) - 1
    while True:
        if right <= left:
            return
        if right == left + 1:
            if gt(values[left], values[right]):
                swap(left, right)
            return
        middle = left + (right - left) // 2
        swap(middle, left + 1)
        if gt(values[left + 1], values[right]):
            swap(left + 1, right)
        if gt(values[left], values[right]):
            swap(left, right)
        if gt(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j = left + 1, right
        pivot = values[left]
        while True:
            i += 1
            while gt(pivot, values[i]):
                i += 1
            j -= 1
            while gt(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1


def _per_slice(self: Tensor, d: int, pick: Callable[[list[Any]], tuple[Any, int]],
               keepdim: bool) -> tuple[np.ndarray, np.ndarray]:
    """Run `pick` (slice values -> value, index) on every slice along d."""
    x = np.moveaxis(self._numpy_view().reshape(self._shape or (1,)), d, -1)
    flat = x.reshape(-1, x.shape[-1])
    values = np.empty(flat.shape[0], dtype=x.dtype)
    indices = np.empty(flat.shape[0], dtype=np.int64)
    for row, slice_values in enumerate(flat):
        values[row], indices[row] = pick(slice_values.tolist())
    shape = list(x.shape[:-1])
    values, indices = values.reshape(shape), indices.reshape(shape)
    if keepdim and self.ndim:
        values, indices = np.expand_dims(values, d), np.expand_dims(indices, d)
    return values, indices


def _selected(self: Tensor, values: np.ndarray, indices: np.ndarray, name: str, op: str, dim: int,
              keepdim: bool, out: Any = None) -> tuple[Tensor, Tensor]:
    if out is not None:
        return _into(self, values, indices, op, out)
    value_tensor = Tensor._wrap(np.array(values, order="C").reshape(values.shape), self.dtype)
    index_tensor = Tensor._wrap(np.array(indices, order="C").reshape(indices.shape), dtypes.int64)
    record(name, value_tensor, (self,), save={"indices": index_tensor},
           values={"dim": saved_dims(dim), "keepdim": keepdim, "self_sym_sizes": self._shape})
    return getattr(return_types, op)(value_tensor, index_tensor)


def _into(self: Tensor, values: np.ndarray, indices: np.ndarray, op: str, out: Any) -> tuple[Tensor, Tensor]:
    """out=(values, indices): no autograd, values of self's dtype, int64 indices, each resized and written."""
    from engine import errors

    out_values, out_indices = out
    if needs_grad(self, out_values):
        raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op=op))
    if op == "mode":
        if out_values.dtype is not self.dtype:
            raise RuntimeError(f"expected scalar type '{self.dtype.short}' but got '{out_values.dtype.short}' for "
                               "values output")
        if out_indices.dtype is not dtypes.int64:
            raise RuntimeError(f"expected scalar type 'Long' but got '{out_indices.dtype.short}' for indices output")
    else:
        if out_values.dtype is not self.dtype:
            raise RuntimeError("output values must be of same type as input")
        if out_indices.dtype is not dtypes.int64:
            raise RuntimeError("output indices must be of scalar type Long")
    return getattr(return_types, op + "_out")(write_out(out_values, np.asarray(values), op, (self,)),
                                              write_out(out_indices, np.asarray(indices), op, (self,)))


def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> tuple[Tensor, Tensor]:
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    length = self._shape[d] if self.ndim else 1
    if self.ndim and length == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= length:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    _not_for("kthvalue_cpu", self, bool_too=True)

    def pick(row: list[Any]) -> tuple[Any, int]:
        order = list(range(len(row)))
        quick_select(row, order, k - 1)
        return row[k - 1], order[k - 1]

    values, indices = _per_slice(self, d, pick, keepdim)
    return _selected(self, values, indices, "KthvalueBackward0", "kthvalue", dim, keepdim, out)


# --------------------------------------------------------------------------- mode
_THRESHOLD = 16


def _insertion_sort(items: list[tuple[Any, int]], first: int, last: int) -> None:
    for i in range(first + 1, last):
        value = items[i]
        if value[0] < items[first][0]:
            items[first + 1:i + 1] = items[first:i]
            items[first] = value
        else:
            _unguarded_linear_insert(items, i)


def _unguarded_linear_insert(items: list[tuple[Any, int]], last: int) -> None:
    value = items[last]
    previous = last - 1
    while value[0] < items[previous][0]:
        items[last] = items[previous]
        last = previous
        previous -= 1
    items[last] = value


def _move_median_to_first(items: list[tuple[Any, int]], result: int, a: int, b: int, c: int) -> None:
    key = [items[a][0], items[b][0], items[c][0]]
    if key[0] < key[1]:
        pick = b if key[1] < key[2] else (c if key[0] < key[2] else a)
    elif key[0] < key[2]:
        pick = a
    else:
        pick = c if key[1] < key[2] else b
    items[result], items[pick] = items[pick], items[result]


def _unguarded_partition(items: list[tuple[Any, int]], first: int, last: int, pivot: int) -> int:
    while True:
        while items[first][0] < items[pivot][0]:
            first += 1
        last -= 1
        while items[pivot][0] < items[last][0]:
            last -= 1
        if not first < last:
            return first
        items[first], items[last] = items[last], items[first]
        first += 1


def _heap_sort(items: list[tuple[Any, int]], first: int, last: int) -> None:
    """std::partial_sort(first, last, last): make_heap then sort_heap (the introsort's fallback)."""
    def sift_down(start: int, hole: int, length: int, value: tuple[Any, int]) -> None:
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if items[start + child][0] < items[start + child - 1][0]:
                child -= 1
            items[start + hole] = items[start + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            items[start + hole] = items[start + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and items[start + parent][0] < value[0]:
            items[start + hole] = items[start + parent]
            hole = parent
            parent = (hole - 1) // 2
        items[start + hole] = value

    length = last - first
    for parent in range((length - 2) // 2, -1, -1):
        sift_down(first, parent, length, items[first + parent])
    for end in range(last - 1, first, -1):
        value = items[end]
        items[end] = items[first]
        sift_down(first, 0, end - first, value)


def _introsort_loop(items: list[tuple[Any, int]], first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(items, first, last)
            return
        depth -= 1
        middle = first + (last - first) // 2
        _move_median_to_first(items, first, first + 1, middle, last - 1)
        cut = _unguarded_partition(items, first + 1, last, first)
        _introsort_loop(items, cut, last, depth)
        last = cut


def std_sort(items: list[tuple[Any, int]]) -> None:
    """libstdc++'s std::sort by the first field (introsort, then insertion sort): not stable, and
    which of equal values ends where is what decides mode's index."""
    n = len(items)
    if n < 2:
        return
    _introsort_loop(items, 0, n, 2 * (n.bit_length() - 1))
    if n > _THRESHOLD:
        _insertion_sort(items, 0, _THRESHOLD)
        for i in range(_THRESHOLD, n):
            _unguarded_linear_insert(items, i)
    else:
        _insertion_sort(items, 0, n)


def _mode_of(row: list[Any]) -> tuple[Any, int]:
    items = [(value, i) for i, value in enumerate(row)]
    std_sort(items)
    mode, index, run, best = 0, 0, 0, 0
    for i, (value, position) in enumerate(items):
        run += 1
        if i == len(items) - 1 or value != items[i + 1][0]:
            if run > best:
                mode, index, best = value, position, run
            run = 0
    return mode, index


def mode(self: Tensor, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> tuple[Tensor, Tensor]:
    d = _nonempty_dim(self, dim, "mode()")
    _not_for("mode_cpu", self)
    if self.numel() == 0:
        shape = list(self._shape)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
        return _selected(self, np.zeros(shape, self.dtype.np), np.zeros(shape, np.int64), "ModeBackward0", "mode",
                         dim, keepdim, out)
    values, indices = _per_slice(self, d, _mode_of, keepdim)
    return _selected(self, values, indices, "ModeBackward0", "mode", dim, keepdim, out)


# --------------------------------------------------------------------------- unique_consecutive
def _run_starts(x: np.ndarray) -> np.ndarray:
    """Where each run of equal slices (along the first axis) starts (NaN equals nothing)."""
    if x.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    rows = x.reshape(x.shape[0], -1)
    starts = np.ones(x.shape[0], dtype=bool)
    starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    return starts


def _dim_first_layout(output: np.ndarray, d: int, dtype: dtypes.dtype) -> Tensor:
    """The slices, contiguous with dim d outermost, viewed with d back in its place (torch's layout)."""
    from engine.storage import Storage

    strides = geometry.contiguous_strides(output.shape)
    order = list(range(1, output.ndim))
    order.insert(d, 0)
    return Tensor._make(Storage.wrap(output.reshape(-1)), 0, tuple(output.shape[i] for i in order),
                        tuple(strides[i] for i in order), dtype)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
                       dim: int | None = None) -> Any:
    if input.dtype.is_complex:
        raise NotImplementedError(f"\"unique\" not implemented for '{input.dtype.short}'")
    x = input._numpy_view()
    if dim is None or (input.ndim == 1 and geometry.wrap_dim(dim, 1) == 0):
        flat = x.reshape(-1)
        starts = _run_starts(flat)
        output = flat[starts]
        inverse = (np.cumsum(starts) - 1).reshape(input._shape)
        d = None
    else:
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = geometry.wrap_dim(dim, input.ndim)
        if any(size == 0 for i, size in enumerate(input._shape) if i != d):
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        moved = np.moveaxis(x, d, 0)
        starts = _run_starts(moved)
        output = np.ascontiguousarray(moved[starts])
        inverse = np.cumsum(starts) - 1
    positions = np.flatnonzero(starts)
    counts = np.diff(np.append(positions, starts.shape[0]))
    if d is None or not output.size:
        result = Tensor._wrap(np.array(output if d is None else np.moveaxis(output, 0, d), order="C"), input.dtype)
    else:
        result = _dim_first_layout(output, d, input.dtype)
    record("UniqueConsecutiveBackward0", result, (input,))
    extras = []
    if return_inverse:
        extras.append(Tensor._wrap(np.array(inverse, dtype=np.int64, order="C"), dtypes.int64))
    if return_counts:
        extras.append(Tensor._wrap(np.array(counts, dtype=np.int64, order="C"), dtypes.int64))
    return (result, *extras) if extras else result


def _unique_consecutive_method(self: Tensor, return_inverse: bool = False, return_counts: bool = False,
                               dim: int | None = None) -> Any:
    return unique_consecutive(self, return_inverse, return_counts, dim)


def _kthvalue_method(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return kthvalue(self, k, dim, keepdim)


def _mode_method(self: Tensor, dim: int = -1, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return mode(self, dim, keepdim)


# the Tensor methods take no out=, and a TypeError about one names the method as torch's does
_kthvalue_method.__name__ = _kthvalue_method.__qualname__ = "kthvalue"
_mode_method.__name__ = _mode_method.__qualname__ = "mode"


METHODS: dict[str, Callable[..., Any]] = {"aminmax": aminmax, "kthvalue": _kthvalue_method, "mode": _mode_method,
                                          "unique_consecutive": _unique_consecutive_method}
FUNCTIONS: dict[str, Callable[..., Any]] = {"aminmax": aminmax, "kthvalue": kthvalue, "mode": mode,
                                            "unique_consecutive": unique_consecutive}
