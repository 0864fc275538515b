"""Strided-layout arithmetic shared by views, copies and the graph's slice nodes."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from engine import errors

Shape = tuple[int, ...]


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(shape: Shape) -> Shape:
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def contiguous_strides(shape: Sequence[int]) -> Shape:
    """Row-major strides as torch computes them (size-0/1 dims count as 1)."""
    return _contiguous_strides(tuple(shape))


row_major_strides = _contiguous_strides
"""contiguous_strides of a shape already a tuple (an op's result), without the conversion."""


def is_contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """torch's rule: strides of size-1 dims do not matter; empty tensors are contiguous."""
    if 0 in shape:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride)):
        if size == 1:
            continue
        if st != expected:
            return False
        expected *= size
    return True


def dense_permutation(shape: Sequence[int], stride: Sequence[int]) -> list[int] | None:
    """If the layout is a permutation of a contiguous one (torch's "non-overlapping and dense"),
    the dim order from outermost to innermost; else None."""
    order = sorted(range(len(shape)), key=lambda d: (-stride[d], -shape[d]))
    expected = 1
    for d in reversed(order):
        if shape[d] != 1 and stride[d] != expected:
            return None
        expected *= shape[d]
    return order


def preserved_strides(shape: Sequence[int], stride: Sequence[int]) -> Shape:
    """The layout contract of a leaf's .grad: the leaf's strides when it is dense, else row-major."""
    order = dense_permutation(shape, stride)
    if order is None:
        return contiguous_strides(shape)
    result = [0] * len(shape)
    step = 1
    for d in reversed(order):
        result[d] = step
        step *= shape[d]
    return tuple(result)


def non_overlapping_and_dense(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """torch's is_non_overlapping_and_dense: contiguous (which any empty tensor is), or a
    permutation of a contiguous layout (size-0 and size-1 dims do not count)."""
    if 0 in shape or is_contiguous(shape, stride):
        return True
    if len(shape) == 1:
        return shape[0] < 2 or stride[0] == 1
    order = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: stride[d])
    expected = 1
    for d in order:
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


def like_strides(shape: Sequence[int], stride: Sequence[int]) -> Shape:
    """Strides of torch.preserve_format (clone(), *_like, .to()): the same layout when non-overlapping
    and dense (any empty tensor is), else dense strides in the input's own dim order (torch's
    infer_dense_strides)."""
    if non_overlapping_and_dense(shape, stride):
        return tuple(stride)
    return infer_dense_strides(shape, stride)


def infer_dense_strides(shape: Sequence[int], stride: Sequence[int]) -> Shape:
    """torch's infer_dense_strides: order dims by stride, innermost first, as TensorIterator does (a
    stride 0 keeps its place; equal strides put the smaller size first), then lay them out densely."""
    ndim = len(shape)
    if ndim <= 1:
        return (1,) * ndim
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, ndim):  # a stable insertion sort, exactly as ATen writes it
        dim1 = i
        for j in range(1, i + 1):
            dim0 = i - j
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    result = [0] * ndim
    step = 1
    for d in perm:
        result[d] = step
        if shape[d] > 1:
            step *= shape[d]
    return tuple(result)


def _channels_last(shape: Sequence[int], stride: Sequence[int]) -> bool:
    if len(shape) != 4:
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def channels_last_strides(shape: Sequence[int]) -> Shape:
    n, c, h, w = (max(s, 1) for s in shape)
    return (h * w * c, 1, w * c, c)


def suggested_memory_format(shape: Sequence[int], stride: Sequence[int]) -> str:
    """TensorBase::suggest_memory_format: "channels_last" for a 4-d tensor whose strides are like
    channels-last (is_channels_last_strides_2d_s4), "channels_last_3d" for such a 5-d one, else
    "contiguous". The test walks C, then the spatial dims innermost first, then N, each stride at
    least the last times its size; a zero C stride, an empty dim, or N stepping as C does (the
    N111 ambiguity) falls back to contiguous."""
    if len(shape) not in (4, 5) or stride[1] == 0:
        return "contiguous"
    least = 0
    for d in (1, 3, 2, 0) if len(shape) == 4 else (1, 4, 3, 2, 0):
        if shape[d] == 0 or stride[d] < least or (d == 0 and least == stride[1]):
            return "contiguous"
        least = stride[d] * shape[d] if shape[d] > 1 else stride[d]
    return "channels_last" if len(shape) == 4 else "channels_last_3d"


def memory_format_strides(shape: Sequence[int], memory_format: str) -> Shape:
    """The strides of an empty tensor made with `memory_format` (channels-last: C innermost, then the
    spatial dims, then N)."""
    if memory_format == "contiguous":
        return contiguous_strides(shape)
    order = (1, 3, 2, 0) if memory_format == "channels_last" else (1, 4, 3, 2, 0)
    result = [0] * len(shape)
    step = 1
    for d in order:
        result[d] = step
        step *= shape[d]
    return tuple(result)


def inline_strides(stride: Sequence[int], stale: Sequence[int] | None) -> tuple[int, ...]:
    """The stride slots a torch TensorImpl keeps inline (five, SizesAndStrides): the strides, then
    what its earlier layouts left past them (`stale`, None for a tensor made as it is: it was made
    with one dim of stride 1 and grew with zeros, so a 0-dim one reads 1, then 0s)."""
    rest = tuple(stale) if stale is not None else ((1,) if not stride else ())
    return (tuple(stride) + rest + (0,) * 5)[:max(5, len(stride))]


def iterator_strides(shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]]) -> Shape:
    """The strides TensorIterator gives an output it allocates, from its inputs' layouts: row-major
    for contiguous inputs; when all inputs have the output's shape, channels-last for channels-last
    ones and the inputs' own strides for equal dense ones; otherwise the dims ordered as the inputs'
    strides order them (reorder_dimensions: broadcast dims ambiguous, ties to the smaller size), then
    laid out densely."""
    shape = tuple(shape)
    ndim = len(shape)
    if ndim == 0:
        return ()
    if not operands:
        return contiguous_strides(shape)
    if all(tuple(op_shape) == shape for op_shape, _ in operands):
        if all(is_contiguous(op_shape, op_stride) for op_shape, op_stride in operands):
            return contiguous_strides(shape)
        if all(_channels_last(op_shape, op_stride) for op_shape, op_stride in operands):
            return channels_last_strides(shape)
        if all(non_overlapping_and_dense(op_shape, op_stride) for op_shape, op_stride in operands):
            first = tuple(operands[-1][1])
            if all(tuple(op_stride) == first for _, op_stride in operands):
                return first
    perm = iterator_order(shape, aligned_strides(shape, operands))
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)
    result = [0] * ndim
    step = 1
    for d in perm:
        result[d] = step
        step *= shape[d]
    return tuple(result)


def aligned_strides(shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[list[int]]:
    """Each operand's strides broadcast to `shape` (TensorIterator's compute_strides): right-aligned,
    0 where it has no dim or a size-1 dim the shape widens."""
    ndim = len(shape)
    aligned = []
    for op_shape, op_stride in operands:
        lead = ndim - len(op_shape)
        row = [0] * ndim
        for i, (n, st) in enumerate(zip(op_shape, op_stride)):
            row[lead + i] = 0 if (n == 1 and shape[lead + i] != 1) else st
        aligned.append(row)
    return aligned


def iterator_order(shape: Sequence[int], strides: Sequence[Sequence[int]]) -> list[int]:
    """TensorIterator's reorder_dimensions: the dims from innermost to outermost, as the operands'
    strides (broadcast dims at 0) order them: a stride of 0 decides nothing, of equal strides the
    smaller dim goes inner; an insertion sort with ambiguous comparisons, as ATen's."""
    def should_swap(d0: int, d1: int) -> int:
        for row in strides:
            s0, s1 = row[d0], row[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(reversed(range(len(shape))))
    for i in range(1, len(shape)):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def has_internal_overlap(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """The case torch refuses to write to: a dimension of size > 1 with stride 0 (expand)."""
    if 0 not in stride or 0 in shape:
        return False
    return any(st == 0 and size > 1 for size, st in zip(shape, stride))


def storage_indices(shape: Sequence[int], stride: Sequence[int], offset: int) -> np.ndarray:
    """The storage position of every element, laid out in the tensor's shape."""
    index = np.full(tuple(shape), offset, dtype=np.int64)
    for dim, (size, st) in enumerate(zip(shape, stride)):
        step = np.arange(size, dtype=np.int64) * st
        index += step.reshape((size,) + (1,) * (len(shape) - dim - 1))
    return index


def positions_within(outer: tuple[Shape, Shape, int], inner: tuple[Shape, Shape, int]) -> np.ndarray:
    """For each element of `inner`, the flat index of the `outer` element at the same storage spot."""
    outer_idx = storage_indices(*outer).ravel()
    inner_idx = storage_indices(*inner)
    if outer_idx.size == 0 or inner_idx.size == 0:
        return np.zeros(inner_idx.shape, dtype=np.int64)
    low = int(min(outer_idx.min(), inner_idx.min()))
    high = int(max(outer_idx.max(), inner_idx.max()))
    inverse = np.zeros(high - low + 1, dtype=np.int64)
    inverse[outer_idx - low] = np.arange(outer_idx.size, dtype=np.int64)
    return inverse[inner_idx - low]


def wrap_dim(dim: int, ndim: int) -> int:
    """A dim index checked and made non-negative, with torch's IndexError."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(errors.DIM_RANGE.format(lo=-bound, hi=bound - 1, dim=dim))
    return dim % bound


def infer_size(shape: Sequence[int], numel: int) -> Shape:
    """Resolve one -1 in a view/reshape size, with torch's errors."""
    shape = tuple(int(s) for s in shape)
    inferred_at = None
    for i, s in enumerate(shape):  # torch's order: a second -1 or a negative size, whichever comes first
        if s == -1:
            if inferred_at is not None:
                raise RuntimeError(errors.ONE_INFERRED)
            inferred_at = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {errors.shape_text(shape)}")
    known = math.prod(s for s in shape if s != -1)
    inferred = -1 in shape
    if numel == known or (inferred and known > 0 and numel % known == 0):
        if not inferred:
            return shape
        if known == 0:
            raise RuntimeError(f"cannot reshape tensor of {numel} elements into shape {errors.shape_text(shape)} "
                               "because the unspecified dimension size -1 can be any value and is ambiguous")
        return tuple(numel // known if s == -1 else s for s in shape)
    raise RuntimeError(errors.SHAPE_INVALID.format(shape=errors.shape_text(shape), numel=numel))


def view_strides(old_shape: Shape, old_stride: Shape, new_shape: Shape) -> Shape | None:
    """torch's computeStride: strides for viewing without a copy, or None when impossible."""
    if not old_shape:
        return tuple(1 for _ in new_shape)
    numel = math.prod(old_shape)
    if numel == 0 and old_shape == new_shape:
        return old_stride
    new_stride = [0] * len(new_shape)
    if numel == 0:
        return contiguous_strides(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def broadcast_shapes(*shapes: Sequence[int]) -> Shape:
    """Broadcast sizes, with torch's error naming the first mismatching pair."""
    first = shapes[0] if shapes else ()
    if all(shape == first for shape in shapes):
        return tuple(first)
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for dim in range(ndim - 1, -1, -1):  # torch checks from the last dim backwards
        for shape in shapes:
            offset = dim - (ndim - len(shape))
            if offset < 0:
                continue
            size = shape[offset]
            if size == result[dim] or size == 1:
                continue
            if result[dim] == 1:
                result[dim] = size
            else:
                raise RuntimeError(errors.BROADCAST.format(a=result[dim], b=size, dim=dim))
    return tuple(result)


def check_expandable(shape: Sequence[int], target: Sequence[int]) -> None:
    """`expand`'s rule, with its error, for writes that expand their source (copy_, setitem)."""
    lead = len(target) - len(shape)
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{errors.shape_text(shape)}}}, size={errors.shape_text(target)}): the "
            f"number of sizes provided ({len(target)}) must be greater or equal to the number of dimensions in "
            f"the tensor ({len(shape)})")
    for i, have in enumerate(shape):
        want = target[lead + i]
        if have != want and have != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({have}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {errors.shape_text(target)}.  "
                f"Tensor sizes: {errors.shape_text(shape)}")


_U64 = 2**64


def storage_nbytes(size: Sequence[int], stride: Sequence[int], itemsize: int, offset: int = 0) -> int | None:
    """Bytes of storage a layout reaches, as torch's computeStorageNbytes counts them (unsigned
    64-bit arithmetic: a negative stride or size overflows), or None when that overflows; 0 for
    an empty layout."""
    total = (offset + 1) % _U64
    overflowed = False
    for n, st in zip(size, stride):
        if n == 0:
            return 0
        reach = st * (n - 1)
        overflowed |= not 0 <= reach < _U64
        total += reach % _U64
        overflowed |= total >= _U64
        total %= _U64
    total *= itemsize
    overflowed |= total > 2**63 - 1
    return None if overflowed else total


def check_strided_layout(size: Sequence[int], stride: Sequence[int], offset: int, itemsize: int,
                         storage_nbytes_available: int) -> None:
    """as_strided's checks, in torch's order: lengths, negative strides, negative offset, storage
    size (overflow, then bounds)."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{errors.shape_text(tuple(stride))}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = storage_nbytes(size, stride, itemsize, offset)
    if needed is None:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={errors.shape_text(tuple(size))} "
                           f"and strides={errors.shape_text(tuple(stride))}")
    if needed > storage_nbytes_available:
        raise RuntimeError(
            f"setStorage: sizes {errors.shape_text(tuple(size))}, strides {errors.shape_text(tuple(stride))}, "
            f"storage offset {offset}, and itemsize {itemsize} requiring a storage size of {needed} are out of "
            f"bounds for storage of size {storage_nbytes_available}")


def _int64(value: int) -> int:
    value %= _U64
    return value - _U64 if value >= 2**63 else value


def check_strided_layout_inplace(size: Sequence[int], stride: Sequence[int], offset: int, itemsize: int,
                                 storage_nbytes_available: int) -> None:
    """as_strided_'s checks, which torch orders differently (bounds before sizes) and computes
    with wrapping signed arithmetic: a layout whose size overflows is accepted, as torch accepts
    it, and its elements then cannot be read."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{errors.shape_text(tuple(stride))}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    layout_bytes = 0 if 0 in size else _int64((1 + sum(st * (n - 1) for n, st in zip(size, stride))) * itemsize)
    if layout_bytes:
        needed = _int64(layout_bytes + offset * itemsize)
        if needed > storage_nbytes_available:
            raise RuntimeError(
                f"setStorage: sizes {errors.shape_text(tuple(size))}, strides {errors.shape_text(tuple(stride))}, "
                f"storage offset {offset}, and itemsize {itemsize} requiring a storage size of {needed} are out "
                f"of bounds for storage of size {storage_nbytes_available}")
    if numel_overflows(size):
        raise RuntimeError("numel: integer multiplication overflow")


def numel_overflows(size: Sequence[int]) -> bool:
    """torch's numel check: the product of the sizes in unsigned 64-bit arithmetic overflows or
    passes int64 (a negative size does, unless a 0 before it ends the product)."""
    product, overflowed = 1, False
    for n in size:
        product *= n % _U64
        overflowed |= product >= _U64
        product %= _U64
    return overflowed or product > 2**63 - 1


def check_set_storage_layout(size: Sequence[int], stride: Sequence[int] | None, offset: int,
                             itemsize: int) -> tuple[tuple[int, ...], int]:
    """set_(storage, offset, size, stride)'s checks, in torch's order; returns the strides to use
    and the bytes of storage the layout needs (the storage grows to them, as torch's does)."""
    size = tuple(size)
    if stride is not None and len(stride) != len(size):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if numel_overflows(size):
        raise RuntimeError("numel: integer multiplication overflow")
    strides = contiguous_strides(size) if stride is None else tuple(stride)
    needed = storage_nbytes(size, strides, itemsize, offset)
    if needed is None:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={errors.shape_text(size)} "
                           f"and strides={errors.shape_text(strides)}")
    return _without_negative_strides(size, strides), needed


def _without_negative_strides(size: tuple[int, ...], stride: tuple[int, ...]) -> tuple[int, ...]:
    """What torch's set_sizes_and_strides stores for a negative stride (only size-0 and size-1
    dimensions get this far): 1 for the last dimension, else the next dimension's extent."""
    result = list(stride)
    for dim in reversed(range(len(size))):
        if result[dim] < 0:
            result[dim] = 1 if dim == len(size) - 1 else max(size[dim + 1], 1) * result[dim + 1]
    return tuple(result)


def check_resizable(size: Sequence[int], offset: int, itemsize: int) -> None:
    """resize_'s checks, in torch's order: the element count, then the storage size in bytes."""
    if numel_overflows(size):
        raise RuntimeError("numel: integer multiplication overflow")
    if (offset + math.prod(size)) * itemsize > 2**63 - 1:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={errors.shape_text(tuple(size))}")
