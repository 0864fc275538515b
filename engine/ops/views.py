"""View ops: new shape/stride/offset over the same storage and version counter, never a copy.

Each op computes its layout and records its node with the fields its derivative needs (the
derivatives are in engine/autograd/derivatives/views.py): the gradient of a view is mapped back onto
the layout of its input.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry, printing
from engine.autograd import grad_mode
from engine.ops.core import (
    apply_inplace,
    check_inplace_allowed,
    make_multi_views,
    make_view,
    record,
)
from engine.tensor import Tensor

Layout = tuple[tuple[int, ...], tuple[int, ...], int]


def sizes_arg(args: Sequence[Any]) -> tuple[int, ...]:
    """`view(2, 3)`, `view((2, 3))`, `view([2, 3])` and `view(torch.Size(...))` all mean (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(map(int, args))


INT64_MAX = (1 << 63) - 1


def _sizes(t: Tensor) -> dict[str, Any]:
    return {"self_sym_sizes": t._shape}


# --------------------------------------------------------------------------- reshaping
def _row_major_view_shape(self: Tensor, args: tuple[Any, ...]) -> tuple[int, ...] | None:
    """The new shape of view/reshape(*args) in the common case: self non-empty and exactly row-major,
    the sizes plain ints (one may be -1) that fit its elements. computeStride then gives the new
    shape's row-major strides, so callers need neither infer_size's conversions nor view_strides'
    walk. None sends the call down the general path (which also raises the errors)."""
    if self._stride != geometry.row_major_strides(self._shape):
        return None
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    numel = math.prod(self._shape)
    known, hole = 1, -1
    for i, n in enumerate(args):
        if type(n) is not int:
            return None
        if n < 0:
            if n != -1 or hole >= 0:
                return None
            hole = i
        else:
            known *= n
    if not numel:
        return None
    if hole < 0:
        return args if known == numel else None
    if numel % known:
        return None
    return args[:hole] + (numel // known,) + args[hole + 1:]


def view(self: Tensor, *shape: Any, dtype: dtypes.dtype | None = None) -> Tensor:
    if dtype is None:
        new_shape = _row_major_view_shape(self, shape)
        if new_shape is not None:
            return make_view(self, new_shape, geometry.row_major_strides(new_shape), self._offset, "ViewBackward0",
                             values=_sizes(self))
    if dtype is not None or (len(shape) == 1 and isinstance(shape[0], dtypes.dtype)):
        return view_dtype(self, dtype if dtype is not None else shape[0])
    new_shape = geometry.infer_size(sizes_arg(shape), self.numel())
    stride = geometry.view_strides(self._shape, self._stride, new_shape)
    if stride is None:
        raise RuntimeError(errors.VIEW_STRIDE)
    return make_view(self, new_shape, stride, self._offset, "ViewBackward0", values=_sizes(self))


def view_dtype(self: Tensor, dtype: dtypes.dtype) -> Tensor:
    """x.view(dtype): the same bytes read as another dtype. torch makes it a new tensor sharing the
    storage and the version counter, not a view for autograd: no grad_fn, no requires_grad, no _base."""
    if self.is_conj() and dtype is not self.dtype:
        raise RuntimeError("torch.Tensor.view is not supported for conjugate view tensors when converting to a "
                           "different dtype.")
    if self.is_neg() and dtype is not self.dtype:
        raise RuntimeError("torch.Tensor.view is not supported for tensors with negative bit set when converting "
                           "to a different dtype.")
    old_size, new_size = self.dtype.itemsize, dtype.itemsize
    shape, stride, offset = list(self._shape), list(self._stride), self._offset
    what = f"to view {self.dtype.short} as {dtype.short} (different element sizes)"
    if old_size != new_size:
        if self.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if old_size > new_size:
            ratio = old_size // new_size
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            shape[-1] *= ratio
            stride = [st * ratio for st in stride[:-1]] + [1]
            offset *= ratio
        else:
            ratio = new_size // old_size
            if shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            for i, st in enumerate(stride[:-1]):
                if st % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}")
            shape[-1] //= ratio
            stride = [st // ratio for st in stride[:-1]] + [1]
            offset //= ratio
    return Tensor._make(self._storage, offset, tuple(shape), tuple(stride), dtype, self._counter())


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return view(self, other._shape)


def reshape(self: Tensor, *shape: Any) -> Tensor:
    """A view when the layout allows one, else a contiguous copy (UnsafeView of a Clone)."""
    new_shape = _row_major_view_shape(self, shape)
    if new_shape is not None:  # a row-major tensor is contiguous: ViewBackward0
        return make_view(self, new_shape, geometry.row_major_strides(new_shape), self._offset, "ViewBackward0",
                         values=_sizes(self))
    new_shape = geometry.infer_size(sizes_arg(shape), self.numel())
    stride = geometry.view_strides(self._shape, self._stride, new_shape)
    if stride is not None:
        name = "ViewBackward0" if self.is_contiguous() else "ReshapeAliasBackward0"
        return make_view(self, new_shape, stride, self._offset, name, values=_sizes(self))
    from engine.ops.copying import clone

    copied = clone(self, contiguous=True)
    out = Tensor._make(copied._storage, 0, new_shape, geometry.contiguous_strides(new_shape), self.dtype)
    record("UnsafeViewBackward0", out, (copied,), values=_sizes(copied))
    return out


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, other._shape)


def ravel(self: Tensor) -> Tensor:
    from engine.ops.copying import contiguous

    return view(contiguous(self), -1)


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if start_dim == 0 and end_dim == -1 and len(self._shape) > 1:  # all dims: reshape to (numel,)
        return reshape(self, math.prod(self._shape))
    if self.ndim == 0:
        return reshape(self, 1)
    start = geometry.wrap_dim(start_dim, self.ndim)
    end = geometry.wrap_dim(end_dim, self.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    shape = self._shape[:start] + (math.prod(self._shape[start:end + 1]),) + self._shape[end + 1:]
    return reshape(self, shape)


def unflatten(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    dim = geometry.wrap_dim(dim, self.ndim)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(s for s in sizes if s != -1)
    if list(sizes).count(-1) <= 1 and (known == 0 or self._shape[dim] % known if -1 in sizes
                                       else known != self._shape[dim]):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({self._shape[dim]}) in the input tensor")
    inner = geometry.infer_size(tuple(sizes), self._shape[dim])
    return view(self, self._shape[:dim] + inner + self._shape[dim + 1:])


# --------------------------------------------------------------------------- dimension order
def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose(self, axis0, axis1)


def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose_(self, axis0, axis1)


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    if self.ndim == 0:
        d0 = geometry.wrap_dim(dim0, 1)
        geometry.wrap_dim(dim1, 1)
        return make_view(self, (), (), self._offset, "TransposeBackward0",
                         values={"dim0": dim0, "dim1": dim1}) if d0 == 0 else self
    d0, d1 = geometry.wrap_dim(dim0, self.ndim), geometry.wrap_dim(dim1, self.ndim)
    shape, stride = list(self._shape), list(self._stride)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return make_view(self, shape, stride, self._offset, "TransposeBackward0", values={"dim0": dim0, "dim1": dim1})


def t(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    if self.ndim < 2:
        return make_view(self, self._shape, self._stride, self._offset, "TBackward0")
    return make_view(self, self._shape[::-1], self._stride[::-1], self._offset, "TBackward0")


def permute(self: Tensor, *dims: Any) -> Tensor:
    given = sizes_arg(dims)
    order = _permutation(given, len(self._shape))
    shape, stride = self._shape, self._stride
    return make_view(self, tuple([shape[d] for d in order]), tuple([stride[d] for d in order]), self._offset,
                     "PermuteBackward0", values={"dims": given})


@functools.lru_cache(maxsize=1024)
def _permutation(given: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """permute's dims made non-negative, with torch's checks in its order: the number of dims, each
    dim's range, then duplicates. Remembered, as models permute the same way again and again."""
    if len(given) != ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match "
                           "the length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{ndim} is not equal to len(dims) = {len(given)}")
    order = tuple(geometry.wrap_dim(d, ndim) for d in given)
    if len(set(order)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return order


def movedim(self: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    """torch's movedim: the named dims go to their places, the others keep their order."""
    src = [int(source)] if isinstance(source, int) else [int(d) for d in source]
    dst = [int(destination)] if isinstance(destination, int) else [int(d) for d in destination]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    n = self.ndim
    wsrc = [geometry.wrap_dim(d, n) for d in src]
    wdst = [geometry.wrap_dim(d, n) for d in dst]
    if len(set(wsrc)) != len(wsrc):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(wdst)) != len(wdst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    if n == 0 and len(src) == 1:
        return alias(self)
    order = [0] * n
    for s_, d_ in zip(wsrc, wdst):
        order[d_] = s_
    rest_src = [d for d in range(n) if d not in wsrc]
    rest_dst = [d for d in range(n) if d not in wdst]
    for s_, d_ in zip(rest_src, rest_dst):
        order[d_] = s_
    return permute(self, order)


def T(self: Tensor) -> Tensor:  # noqa: N802 - torch's name
    """All dims reversed; deprecated (with torch's warning) for anything but a matrix."""
    if self.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning, stacklevel=3)
    elif self.ndim != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                      "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                      "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                      "tensor.", UserWarning, stacklevel=3)
    return permute(self, list(range(self.ndim))[::-1])


def _zero_dim_identity(self: Tensor, what: str, advice: str) -> Tensor:
    warnings.warn(f"{what} is deprecated on 0-D tensors. {advice}", UserWarning, stacklevel=4)
    return self


def mT(self: Tensor) -> Tensor:  # noqa: N802
    if self.ndim == 0:
        return _zero_dim_identity(self, "Tensor.mT", "This function is the identity in these cases.")
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return transpose(self, -2, -1)


def _conj(t: Tensor) -> Tensor:
    from engine.ops.complex_ops import conj

    return conj(t)


def mH(self: Tensor) -> Tensor:  # noqa: N802
    if self.ndim == 0:
        return _conj(_zero_dim_identity(self, "Tensor.mH", "Consider using x.conj()."))
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return _conj(transpose(self, -2, -1))


def adjoint(self: Tensor) -> Tensor:
    if self.ndim == 0:
        return _conj(_zero_dim_identity(self, "adjoint()", "Consider using x.conj()."))
    if self.ndim < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of matrices. "
                           f"Got {self.ndim}-D tensor.")
    return _conj(transpose(self, -2, -1))


def H(self: Tensor) -> Tensor:  # noqa: N802
    if self.ndim == 0:
        return _conj(_zero_dim_identity(self, "Tensor.H", "Consider using x.conj()."))
    if self.ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.{hint}")
    return _conj(transpose(self, 0, 1))


# --------------------------------------------------------------------------- size-1 dims and expansion
def squeeze(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    values: dict[str, Any] = _sizes(self)
    if dim is None:
        keep = [d for d, n in enumerate(self._shape) if n != 1]
        name = "SqueezeBackward0"
    else:
        dims = {geometry.wrap_dim(d, self.ndim) for d in (dim if isinstance(dim, (tuple, list)) else [dim])}
        keep = [d for d in range(self.ndim) if not (d in dims and self._shape[d] == 1)]
        name = "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"
        values["dim"] = tuple(dim) if isinstance(dim, (tuple, list)) else dim
    return make_view(self, [self._shape[d] for d in keep], [self._stride[d] for d in keep], self._offset, name,
                     values=values)


def _unsqueezed(self: Tensor, dim: int) -> tuple[list[int], list[int]]:
    d = geometry.wrap_dim(dim, self.ndim + 1)
    shape, stride = list(self._shape), list(self._stride)
    new_stride = shape[d] * stride[d] if d < self.ndim else 1
    shape.insert(d, 1)
    stride.insert(d, new_stride)
    return shape, stride


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    shape, stride = _unsqueezed(self, dim)
    return make_view(self, shape, stride, self._offset, "UnsqueezeBackward0", values={"dim": dim})


def expand(self: Tensor, *sizes: Any) -> Tensor:
    if not self._shape:
        expanded = _expand_number(self, sizes)
        if expanded is not None:
            return expanded
    target = sizes_arg(sizes)
    count, ndim = len(target), len(self._shape)
    if count < ndim:
        raise RuntimeError(
            f"expand(torch.{self.dtype.legacy}{{{errors.shape_text(self._shape)}}}, size={errors.shape_text(target)}): "
            "the number of sizes provided (%d) must be greater or equal to the number of dimensions in the "
            "tensor (%d)" % (len(target), self.ndim))
    shape, stride = _expanded_layout(self._shape, self._stride, target)
    return make_view(self, shape, stride, self._offset, "ExpandBackward0", values=_sizes(self))


@functools.lru_cache(maxsize=4096)
def _expanded_layout(old_shape: tuple[int, ...], old_stride: tuple[int, ...],
                     target: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """torch's inferExpandGeometry, innermost dim first, with its errors: the expanded shape and
    strides. Remembered, as models expand the same layouts again and again (errors are not)."""
    count = len(target)
    lead = count - len(old_shape)
    shape, stride = [0] * count, [0] * count
    for i in range(count - 1, -1, -1):
        dim = i - lead
        if dim >= 0:
            size, st = old_shape[dim], old_stride[dim]
        else:
            size, st = 1, (shape[i + 1] * stride[i + 1] if i + 1 < count else 0)
        want = target[i]
        if want == -1:
            if dim < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            want = size
        elif size != want:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size ({size}) at "
                    f"non-singleton dimension {i}.  Target sizes: {errors.shape_text(target)}.  "
                    f"Tensor sizes: {errors.shape_text(old_shape)}")
            st = 0
        shape[i], stride[i] = want, st
    if geometry.numel_overflows(shape):  # a negative size, as torch's view metadata refuses it
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(shape), tuple(stride)


def _expand_number(self: Tensor, sizes: tuple[Any, ...]) -> Tensor | None:
    """A 0-dim tensor expanded (sum's gradient): torch takes the sizes as given, each stride 0 (what
    inferExpandGeometry would give), so a negative size meets the numel check first. None for a
    negative size that passes it (`expand(0, -1)`, which torch keeps as a size and this engine's
    tensors cannot hold): expand's general checks refuse it."""
    target = sizes[0] if len(sizes) == 1 and type(sizes[0]) is tuple else sizes
    if not _plain_shape(target):
        target = sizes_arg(sizes)
        if geometry.numel_overflows(target):
            raise RuntimeError("numel: integer multiplication overflow")
        if any(n < 0 for n in target):
            return None
    return make_view(self, target, (0,) * len(target), self._offset, "ExpandBackward0", values={"self_sym_sizes": ()})


def _plain_shape(sizes: tuple[Any, ...]) -> bool:
    """Whether `sizes` is a tuple of positive Python ints whose product fits int64 (what a tensor's
    shape is, sum's gradient expanded to it): such sizes need no conversion and pass the numel check."""
    for n in sizes:
        if type(n) is not int or n <= 0:
            return False
    return math.prod(sizes) <= INT64_MAX


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return expand(self, other._shape)


def broadcast_to(self: Tensor, size: Sequence[int]) -> Tensor:
    return expand(self, tuple(size))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """Each tensor expanded to the common shape; one already of that shape comes back itself, as
    torch's expand_outplace returns it (no ExpandBackward0 node, no new view)."""
    shape = geometry.broadcast_shapes(*(t._shape for t in tensors))
    return tuple(t if tuple(t._shape) == tuple(shape) else expand(t, shape) for t in tensors)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """torch.meshgrid: each input (0-d or 1-d) viewed along its own dim and expanded to the grid, so
    every output is a view of its input; "xy" swaps the first two inputs and the first two outputs
    (not a transpose). Without `indexing` it is "ij", with torch's warning once per process."""
    from engine.warn_once import warn_once

    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warn_once("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.")
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    for t in refs:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               + printing.cpp_tensor_text(t.detach()._numpy_view(), t.dtype.legacy))
    shape = [t.numel() for t in refs]
    grids = []
    for i, t in enumerate(refs):
        view_shape = [1] * len(refs)
        view_shape[i] = -1
        grids.append(expand(view(t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def broadcast_shapes(*shapes: Any) -> Any:
    """torch.broadcast_shapes (torch._refs._broadcast_shapes): ints count as 1-d shapes."""
    from engine.tensor import Size

    given = tuple((x,) if isinstance(x, int) else x for x in shapes if x is not None)
    if not given:
        return Size(())
    for shape in given:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * max(len(shape) for shape in given)
    for arg, shape in enumerate(given):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            if shape[idx] != 1 and common[idx] != shape[idx]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! Mismatching "
                                   f"argument at index {arg} had {shape}; but expected shape should be broadcastable "
                                   f"to {common}")
    return Size(common)


def _atleast(fix: Any) -> Any:
    def op(*tensors: Any) -> Any:
        if len(tensors) == 1:
            tensors = tensors[0]
        if isinstance(tensors, Tensor):
            return fix(tensors)
        return tuple(fix(t) for t in tensors)
    return op


def _at_least_1d(t: Tensor) -> Tensor:
    return reshape(t, 1) if t.ndim == 0 else t


def _at_least_2d(t: Tensor) -> Tensor:
    return reshape(t, 1, 1) if t.ndim == 0 else unsqueeze(t, 0) if t.ndim == 1 else t


def _at_least_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return reshape(t, 1, 1, 1)
    if t.ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if t.ndim == 2 else t


atleast_1d, atleast_2d, atleast_3d = _atleast(_at_least_1d), _atleast(_at_least_2d), _atleast(_at_least_3d)


# --------------------------------------------------------------------------- selecting along a dim
def select(self: Tensor, dim: int, index: int) -> Tensor:
    """x.select(dim, index): a view without `dim` (SelectBackward0), with select's errors."""
    shape, stride = self._shape, self._stride
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim if 0 <= dim < len(shape) else geometry.wrap_dim(dim, len(shape))
    size = shape[d]
    if type(index) is not int:
        index = int(index)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{errors.shape_text(shape)} at dimension {d}")
    offset = self._offset + (index if index >= 0 else index + size) * stride[d]
    if d == 0:  # x[i], the usual select: one slice of each tuple instead of two and a concatenation
        shape, stride = shape[1:], stride[1:]
    else:
        shape, stride = shape[:d] + shape[d + 1:], stride[:d] + stride[d + 1:]
    values = {"dim": dim, "index": index, "self_sym_sizes": self._shape} if grad_mode.state.enabled and (
        self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad)) else None
    return make_view(self, shape, stride, offset, "SelectBackward0", values=values)


def slice_extent(size: int, start: int | None, stop: int | None, step: int) -> tuple[int, int]:
    """(first index, length) of x[start:stop:step] along a dim of `size`, with Python's clamping."""
    if step <= 0:
        raise ValueError("step must be greater than zero")
    # slice(start, stop, step).indices(size), written out: a slice object costs a small view more
    if start is None:
        begin = 0
    elif start < 0:
        begin = start + size if start > -size else 0
    else:
        begin = start if start < size else size
    if stop is None:
        end = size
    elif stop < 0:
        end = stop + size if stop > -size else 0
    else:
        end = stop if stop < size else size
    return begin, (end - begin + step - 1) // step if end > begin else 0


def slice_layout(layout: Layout, dim: int, start: int | None, stop: int | None, step: int = 1) -> Layout:
    """The geometry of x[start:stop:step] along `dim` of `layout`."""
    shape, stride, offset = layout
    d = dim if 0 <= dim < len(shape) else geometry.wrap_dim(dim, len(shape))
    begin, length = slice_extent(shape[d], start, stop, step)
    return (shape[:d] + (length,) + shape[d + 1:], stride[:d] + (stride[d] * step,) + stride[d + 1:],
            offset + begin * stride[d])


def slice_dim(self: Tensor, dim: int, start: int | None, stop: int | None, step: int = 1) -> Tensor:
    """x[start:stop:step] along one dim (SliceBackward0)."""
    shape, stride, offset = slice_layout((self._shape, self._stride, self._offset), dim, start, stop, step)
    values = {"dim": dim, "end": INT64_MAX if stop is None else stop, "start": 0 if start is None else start,
              "step": step, "self_sym_sizes": self._shape} if grad_mode.state.enabled and self.requires_grad else None
    return make_view(self, shape, stride, offset, "SliceBackward0", values=values)


def narrow(self: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:
    if isinstance(start, Tensor):
        if start.ndim != 0 or start.dtype.is_floating_point or start.is_complex():
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = start.item()
    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = geometry.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_dim(self, d, start, start + length)


def alias(self: Tensor) -> Tensor:
    return make_view(self, self._shape, self._stride, self._offset, "AliasBackward0")


def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = geometry.wrap_dim(dim1, self.ndim), geometry.wrap_dim(dim2, self.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        length = max(0, min(self._shape[d1], self._shape[d2] - offset))
        start = offset * self._stride[d2]
    else:
        length = max(0, min(self._shape[d1] + offset, self._shape[d2]))
        start = -offset * self._stride[d1]
    rest = [d for d in range(self.ndim) if d not in (d1, d2)]
    shape = [self._shape[d] for d in rest] + [length]
    stride = [self._stride[d] for d in rest] + [self._stride[d1] + self._stride[d2]]
    new_offset = self._offset + (start if length else 0)
    return make_view(self, shape, stride, new_offset, "DiagonalBackward0",
                     values={"dim1": dim1, "dim2": dim2, "offset": offset, **_sizes(self)})


def as_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    offset = self._offset if storage_offset is None else int(storage_offset)
    layout = (tuple(int(s) for s in size), tuple(int(s) for s in stride), offset)
    geometry.check_strided_layout(*layout, self.dtype.itemsize, self._storage.nbytes)
    return make_view(self, layout[0], layout[1], offset, "AsStridedBackward0",
                     values={"size": layout[0], "storage_offset": storage_offset, "stride": layout[1],
                             "_geometry": self._layout_key()})


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    d = geometry.wrap_dim(dimension, max(self.ndim, 1))
    have = self._shape[d] if self.ndim else 1
    if size > have:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {have} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (have - size) // step + 1
    base_stride = self._stride[d] if self.ndim else 1
    shape = list(self._shape) + [size]
    stride = list(self._stride) + [base_stride]
    if self.ndim:
        shape[d] = count
        stride[d] = base_stride * step
    else:
        shape, stride = [size], [1]
    return make_view(self, shape, stride, self._offset, "UnfoldBackward0",
                     values={"dimension": dimension, "size": size, "step": step, **_sizes(self)})


# --------------------------------------------------------------------------- multi-output views
def _split_layouts(self: Tensor, d: int, sizes: Sequence[int]) -> list[Layout]:
    layouts, start = [], 0
    for n in sizes:
        shape = self._shape[:d] + (n,) + self._shape[d + 1:]
        layouts.append((shape, self._stride, self._offset + start * self._stride[d]))
        start += n
    return layouts


def _split_sizes(self: Tensor, split_size: int, d: int) -> list[int]:
    """torch's split(int): equal pieces and a shorter last one; one piece of a zero-size dim."""
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    size = self._shape[d]
    if split_size == 0 and size:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    count = max(-(-size // split_size), 1) if split_size else 1
    return [split_size] * (count - 1) + [split_size - (split_size * count - size)]


def _checked_sizes(self: Tensor, sizes: Sequence[int], d: int) -> list[int]:
    sizes = [int(n) for n in sizes]
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sizes}")
    size = self._shape[d]
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                           f"size at dimension {d}), but got split_sizes={sizes}")
    return sizes


def _split_dim(self: Tensor, dim: int) -> int:
    if self.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    return geometry.wrap_dim(dim, self.ndim)


def split(self: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    if not isinstance(split_size_or_sections, int):
        return split_with_sizes(self, split_size_or_sections, dim)
    d = _split_dim(self, dim)
    sizes = _split_sizes(self, split_size_or_sections, d)
    return make_multi_views(self, _split_layouts(self, d, sizes), "SplitBackward0",
                            values={"dim": dim, "split_size": split_size_or_sections, **_sizes(self)})


def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    d = _split_dim(self, dim)
    sizes = _checked_sizes(self, split_sizes, d)
    return make_multi_views(self, _split_layouts(self, d, sizes), "SplitWithSizesBackward0",
                            values={"dim": dim, "split_sizes": tuple(sizes), **_sizes(self)})


def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if self.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = geometry.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    step = -(-size // chunks)
    if step == 0 and size == 0:
        return split_with_sizes(self, [0] * chunks, dim)
    return split(self, step, dim)  # the dim as given: torch's SplitBackward0 keeps it unwrapped


def _unsafe_parts(self: Tensor, d: int, sizes: list[int], name: str, values: dict[str, Any]) -> tuple[Tensor, ...]:
    """unsafe_split*: the same memory as split's pieces, but not views to autograd (no _base, a
    version counter of their own), so in-place ops on them are allowed."""
    outs = tuple(Tensor._make(self._storage, off, shape, stride, self.dtype)
                 for shape, stride, off in _split_layouts(self, d, sizes))
    record(name, outs, (self,), values={**values, **_sizes(self)})
    return outs


def unsafe_split(self: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    d = _split_dim(self, dim)
    return _unsafe_parts(self, d, _split_sizes(self, split_size, d), "UnsafeSplitBackward0",
                         {"dim": dim, "split_size": split_size})


def unsafe_split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    d = _split_dim(self, dim)
    sizes = _checked_sizes(self, split_sizes, d)
    return _unsafe_parts(self, d, sizes, "UnsafeSplitWithSizesBackward0", {"dim": dim, "split_sizes": tuple(sizes)})


def unsafe_chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if self.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = geometry.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    step = -(-size // chunks)
    if step == 0 and size == 0:
        return unsafe_split_with_sizes(self, [0] * chunks, d)
    return unsafe_split(self, step, d)


def tensor_split(self: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces made by slicing (each a SliceBackward0 view of its own): n sections as even as they can
    be, or cut at the given indices."""
    if self.ndim == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                           f"{self.ndim} dims")
    if isinstance(indices_or_sections, Tensor):
        spec = indices_or_sections
        if spec.dtype.name != "int64":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{spec.dtype.short}")
        if spec.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {spec.ndim} dims")
        indices_or_sections = spec.item() if spec.ndim == 0 else [int(v) for v in spec.tolist()]
    d = geometry.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(size, sections)
        bounds, start = [], 0
        for i in range(sections):
            n = small + 1 if i < extra else small
            bounds.append((start, start + n))
            start += n
    else:
        bounds, start = [], 0
        for end in indices_or_sections:
            bounds.append((start, int(end)))
            start = int(end)
        bounds.append((start, size))
    return tuple(_aten_slice(self, d, a, b) for a, b in bounds)


def _aten_slice(self: Tensor, d: int, start: int, end: int) -> Tensor:
    """at::slice's clamping: negative bounds count from the end, then clamp to [0, size], end >= start."""
    size = self._shape[d]
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return slice_dim(self, d, start, end)


def _split_along(name: str, dim: int, need: int) -> Any:
    def split_fn(self: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
        if self.ndim < need:
            if need == 1:
                raise RuntimeError(f"torch.{name} requires a tensor with at least 1 dimension, but got a tensor "
                                   f"with {self.ndim} dimensions!")
            raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor "
                               f"with {self.ndim} dimensions!")
        d = dim if (name != "hsplit" or self.ndim > 1) else 0
        if isinstance(indices_or_sections, int):
            size = self._shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                   f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
        return tensor_split(self, indices_or_sections, d)
    split_fn.__name__ = name
    return split_fn


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    d = geometry.wrap_dim(dim, self.ndim)
    shape = self._shape[:d] + self._shape[d + 1:]
    stride = self._stride[:d] + self._stride[d + 1:]
    layouts = [(shape, stride, self._offset + i * self._stride[d]) for i in range(self._shape[d])]
    return make_multi_views(self, layouts, "UnbindBackward0", values={"dim": dim})


# --------------------------------------------------------------------------- in-place view ops
def _inplace_layout(self: Tensor, name: str, layout: Layout, values: dict[str, Any] | None = None,
                    backward: Any = None) -> Tensor:
    """t_/transpose_/squeeze_/unsqueeze_/as_strided_: change self's own layout, bump its version.
    (`backward` is a numpy closure for the dialects' nodes outside the derivative table.)"""
    def write(_: np.ndarray) -> None:
        self._set_layout(*layout)
    return apply_inplace(self, write, name, (), backward, values=values, layout_op=True)


def t_(self: Tensor) -> Tensor:
    check_inplace_allowed(self)  # autograd's check comes before the op's own
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _inplace_layout(self, "TBackward1", (self._shape[::-1], self._stride[::-1], self._offset))


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    check_inplace_allowed(self)  # autograd's check comes before the op's own
    if self.ndim == 0:  # a 0-dim tensor takes dims 0 and -1 and stays as it is
        geometry.wrap_dim(dim0, 1)
        geometry.wrap_dim(dim1, 1)
        return _inplace_layout(self, "TransposeBackward1", self._layout_key(), backward=lambda grad, saved: (grad,))
    d0, d1 = geometry.wrap_dim(dim0, self.ndim), geometry.wrap_dim(dim1, self.ndim)
    shape, stride = list(self._shape), list(self._stride)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return _inplace_layout(self, "TransposeBackward1", (tuple(shape), tuple(stride), self._offset),
                           {"dim0": dim0, "dim1": dim1})


def squeeze_(self: Tensor, dim: int | None = None) -> Tensor:
    check_inplace_allowed(self)  # autograd's check comes before the op's own
    values: dict[str, Any] = _sizes(self)
    if dim is None:
        keep = [d for d, n in enumerate(self._shape) if n != 1]
        name = "SqueezeBackward3"
    else:
        w = geometry.wrap_dim(dim, self.ndim)
        keep = [d for d in range(self.ndim) if not (d == w and self._shape[d] == 1)]
        name = "SqueezeBackward4"
        values["dim"] = dim
    layout = (tuple(self._shape[d] for d in keep), tuple(self._stride[d] for d in keep), self._offset)
    return _inplace_layout(self, name, layout, values)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    check_inplace_allowed(self)  # autograd's check comes before the op's own
    shape, stride = _unsqueezed(self, dim)
    return _inplace_layout(self, "UnsqueezeBackward1", (tuple(shape), tuple(stride), self._offset), {"dim": dim})


def as_strided_(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    check_inplace_allowed(self)  # autograd's check comes before the op's own
    offset = self._offset if storage_offset is None else int(storage_offset)
    layout = (tuple(int(s) for s in size), tuple(int(s) for s in stride), offset)
    geometry.check_strided_layout_inplace(*layout, self.dtype.itemsize, self._storage.nbytes)
    return _inplace_layout(self, "AsStridedBackward1", layout,
                           {"size": layout[0], "storage_offset": storage_offset, "stride": layout[1],
                            "_geometry": self._layout_key()})


METHODS = {
    "view": view, "view_as": view_as, "reshape": reshape, "reshape_as": reshape_as, "flatten": flatten,
    "ravel": ravel, "unflatten": unflatten, "transpose": transpose, "swapaxes": swapaxes, "swapdims": transpose,
    "t": t, "permute": permute, "movedim": movedim, "moveaxis": movedim, "squeeze": squeeze, "unsqueeze": unsqueeze,
    "expand": expand, "expand_as": expand_as, "broadcast_to": broadcast_to, "select": select, "narrow": narrow,
    "diagonal": diagonal, "as_strided": as_strided, "unfold": unfold, "split": split,
    "split_with_sizes": split_with_sizes, "unsafe_split": unsafe_split, "unsafe_split_with_sizes":
    unsafe_split_with_sizes, "unsafe_chunk": unsafe_chunk, "tensor_split": tensor_split, "hsplit": hsplit,
    "vsplit": vsplit, "dsplit": dsplit, "chunk": chunk, "unbind": unbind, "adjoint": adjoint, "t_": t_,
    "transpose_": transpose_, "swapdims_": transpose_, "swapaxes_": swapaxes_, "squeeze_": squeeze_,
    "unsqueeze_": unsqueeze_, "as_strided_": as_strided_,
}
PROPERTIES = {"T": T, "mT": mT, "H": H, "mH": mH}
FUNCTIONS = {name: METHODS[name] for name in (
    "reshape", "flatten", "ravel", "unflatten", "transpose", "swapaxes", "swapdims", "t", "permute", "movedim",
    "moveaxis", "squeeze", "unsqueeze", "select", "narrow", "diagonal", "as_strided", "split", "split_with_sizes",
    "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk", "tensor_split", "hsplit", "vsplit", "dsplit",
    "chunk", "unbind", "broadcast_to", "adjoint")}
FUNCTIONS.update(broadcast_tensors=broadcast_tensors, broadcast_shapes=broadcast_shapes, meshgrid=meshgrid,
                 atleast_1d=atleast_1d,
                 atleast_2d=atleast_2d, atleast_3d=atleast_3d)
