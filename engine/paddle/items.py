"""Indexing items as Paddle reads them: its bounds checks and messages, and the items it takes that
the engine (as PyTorch) does not: slices with negative steps, and `None` among the indices of a
write.

Such a write lands on the same elements as a write through positive-step slices without the
`None`s, with the value broadcast to the selected region, flipped along the negative-step axes
and squeezed of the `None` axes. `rewrite` returns that equivalent item and value, or None when
the item needs no rewriting (or is advanced indexing, left to the engine).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import engine
from engine.tensor import Tensor as EngineTensor

TOO_MANY = ("(InvalidArgument) Too many indices ({count}) for tensor of dimension {ndim}.\n"
            "  [Hint: Expected valid_indices <= rank == true, but received valid_indices <= rank:0 != true:1.] "
            "(at /paddle/paddle/fluid/pybind/slice_utils.h:560)\n")
OUT_OF_RANGE = ("(OutOfRange) The starting index {index} of slice is out of bounds in tensor {axis}-th axis, it "
                "should be in the range of [{low}, {high}). (at /paddle/paddle/fluid/pybind/slice_utils.h:405)\n")


def check(index: Any, shape: tuple[int, ...], writing: bool) -> None:
    """Paddle's checks of a basic item: an integer out of its axis's range (or past the last axis)
    is an IndexError; more slices than axes a ValueError."""
    entries = list(index) if isinstance(index, tuple) else [index]
    if not all(_basic(e) for e in entries):
        return
    axis, consumed = 0, 0
    for entry in entries:
        if entry is None or entry is Ellipsis:
            if entry is Ellipsis:
                axis += len(shape) - sum(1 for e in entries if e is not None and e is not Ellipsis)
            continue
        consumed += 1
        if not isinstance(entry, slice):
            value = _bound(entry)
            size = shape[axis] if axis < len(shape) else None
            if size is None or not -size <= value < size:
                low, high = (0, 0) if size is None else (-size, size)
                raise IndexError(OUT_OF_RANGE.format(index=value, axis=axis, low=low, high=high))
        axis += 1
    if consumed > len(shape):
        raise ValueError(TOO_MANY.format(count=consumed, ndim=len(shape)))


def has_negative_step(index: Any) -> bool:
    entries = index if isinstance(index, tuple) else (index,)
    return any(isinstance(e, slice) and e.step is not None and _bound(e.step) < 0 for e in entries)


def _bound(value: Any) -> Any:
    return int(value.item()) if isinstance(value, EngineTensor) else value


def _basic(entry: Any) -> bool:
    return entry is None or entry is Ellipsis or isinstance(entry, (int, np.integer, slice)) or (
        isinstance(entry, EngineTensor) and entry.ndim == 0 and not entry.dtype.is_floating_point)


def rewrite(index: Any, shape: tuple[int, ...], value: Any) -> tuple[Any, Any] | None:
    entries = list(index) if isinstance(index, tuple) else [index]
    if not all(_basic(e) for e in entries):
        return None
    consumed = sum(1 for e in entries if e is not None and e is not Ellipsis)
    ellipses = [i for i, e in enumerate(entries) if e is Ellipsis]  # (`in` would compare tensors with ==)
    if ellipses:
        at = ellipses[0]
        entries[at:at + 1] = [slice(None)] * (len(shape) - consumed)
    entries += [slice(None)] * (len(shape) - sum(1 for e in entries if e is not None))
    negative = [isinstance(e, slice) and e.step is not None and _bound(e.step) < 0 for e in entries]
    if not any(negative) and not any(e is None for e in entries):
        return None
    new_index, region, flips, nones, dim = [], [], [], [], 0
    for entry, is_negative in zip(entries, negative):
        if entry is None:
            nones.append(len(region))
            region.append(1)
            continue
        if isinstance(entry, slice):
            start, stop, step = slice(_bound(entry.start), _bound(entry.stop), _bound(entry.step)).indices(shape[dim])
            count = len(range(start, stop, step))
            if is_negative and count:
                last = start + (count - 1) * step
                entry = slice(last, start + 1, -step)
                flips.append(len(region))
            elif is_negative:
                entry = slice(0, 0)
            region.append(count)
        new_index.append(entry)
        dim += 1
    return tuple(new_index), _shape_value(value, region, flips, nones)


def squeeze_leading(value: Any, region: tuple[int, ...]) -> Any:
    """Paddle drops a value's extra leading size-1 dimensions (a [1, 4] value fits a [4] region)."""
    shape = tuple(value._shape) if isinstance(value, EngineTensor) else np.shape(value)
    extra = len(shape) - len(region)
    if extra <= 0 or any(n != 1 for n in shape[:extra]):
        return value
    return value.reshape(*shape[extra:]) if isinstance(value, EngineTensor) else np.reshape(value, shape[extra:])


def _shape_value(value: Any, region: list[int], flips: list[int], nones: list[int]) -> Any:
    keep = [n for i, n in enumerate(region) if i not in nones]
    if isinstance(value, EngineTensor):
        out = value.broadcast_to(tuple(region)) if tuple(value._shape) != tuple(region) else value
        if flips:
            out = engine.flip(out, flips)
        return out.reshape(*keep) if nones else out
    array = np.broadcast_to(np.asarray(value), region)
    if flips:
        array = np.flip(array, flips)
    return np.ascontiguousarray(array.reshape(keep))
