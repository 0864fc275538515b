"""View ops: new shape/stride/offset over the same storage and version counter, never a copy.

Each op computes its layout and records its node with the fields its derivative needs (the
derivatives are in engine/autograd/derivatives/views.py): the gradient of a view is mapped back onto
the layout of its input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import errors, geometry
from engine.ops.core import apply_inplace, make_multi_views, make_view, needs_grad, record
from engine.tensor import Tensor

Layout = tuple[tuple[int, ...], tuple[int, ...], int]


def sizes_arg(args: Sequence[Any]) -> tuple[int, ...]:
    """`view(2, 3)`, `view((2, 3))`, `view([2, 3])` and `view(torch.Size(...))` all mean (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(int(a) for a in args)


INT64_MAX = (1 << 63) - 1


def _sizes(t: Tensor) -> dict[str, Any]:
    return {"self_sym_sizes": t._shape}


# --------------------------------------------------------------------------- reshaping
def view(self: Tensor, *shape: Any) -> Tensor:
    new_shape = geometry.infer_size(sizes_arg(shape), self.numel())
    stride = geometry.view_strides(self._shape, self._stride, new_shape)
    if stride is None:
        raise RuntimeError(errors.VIEW_STRIDE)
    return make_view(self, new_shape, stride, self._offset, "ViewBackward0", values=_sizes(self))


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return view(self, other._shape)


def reshape(self: Tensor, *shape: Any) -> Tensor:
    """A view when the layout allows one, else a contiguous copy (UnsafeView of a Clone)."""
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


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if self.ndim == 0:
        return reshape(self, 1)
    start = geometry.wrap_dim(start_dim, self.ndim)
    end = geometry.wrap_dim(end_dim, self.ndim)
    if start == end:
        return self
    shape = self._shape[:start] + (math.prod(self._shape[start:end + 1]),) + self._shape[end + 1:]
    return reshape(self, shape)


def unflatten(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    dim = geometry.wrap_dim(dim, self.ndim)
    inner = geometry.infer_size(tuple(sizes), self._shape[dim])
    return view(self, self._shape[:dim] + inner + self._shape[dim + 1:])


# --------------------------------------------------------------------------- dimension order
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
    order = tuple(geometry.wrap_dim(d, self.ndim) for d in sizes_arg(dims))
    if sorted(order) != list(range(self.ndim)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match "
                           "the length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{self.ndim} is not equal to len(dims) = {len(order)}")
    return make_view(self, [self._shape[d] for d in order], [self._stride[d] for d in order], self._offset,
                     "PermuteBackward0", values={"dims": tuple(int(d) for d in sizes_arg(dims))})


def movedim(self: Tensor, source: int, destination: int) -> Tensor:
    src, dst = geometry.wrap_dim(source, self.ndim), geometry.wrap_dim(destination, self.ndim)
    order = [d for d in range(self.ndim) if d != src]
    order.insert(dst, src)
    return permute(self, order)


def T(self: Tensor) -> Tensor:  # noqa: N802 - torch's name
    return permute(self, list(range(self.ndim))[::-1])


def mT(self: Tensor) -> Tensor:  # noqa: N802
    if self.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(self, -2, -1)


# --------------------------------------------------------------------------- size-1 dims and expansion
def squeeze(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    values: dict[str, Any] = _sizes(self)
    if dim is None:
        keep = [d for d in range(self.ndim) if self._shape[d] != 1]
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
    target = sizes_arg(sizes)
    if len(target) < self.ndim:
        raise RuntimeError(
            f"expand(torch.{self.dtype.legacy}{{{errors.shape_text(self._shape)}}}, size={errors.shape_text(target)}): "
            "the number of sizes provided (%d) must be greater or equal to the number of dimensions in the "
            "tensor (%d)" % (len(target), self.ndim))
    lead = len(target) - self.ndim
    shape, stride = [0] * len(target), [0] * len(target)
    for i in range(len(target) - 1, -1, -1):  # torch's inferExpandGeometry, innermost dim first
        dim = i - lead
        if dim >= 0:
            size, st = self._shape[dim], self._stride[dim]
        else:
            size, st = 1, (shape[i + 1] * stride[i + 1] if i + 1 < len(target) else 0)
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
                    f"Tensor sizes: {errors.shape_text(self._shape)}")
            st = 0
        shape[i], stride[i] = want, st
    if geometry.numel_overflows(shape):  # a negative size, as torch's view metadata refuses it
        raise RuntimeError("numel: integer multiplication overflow")
    return make_view(self, shape, stride, self._offset, "ExpandBackward0", values=_sizes(self))


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return expand(self, other._shape)


def broadcast_to(self: Tensor, size: Sequence[int]) -> Tensor:
    return expand(self, tuple(size))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    shape = geometry.broadcast_shapes(*(t._shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


# --------------------------------------------------------------------------- selecting along a dim
def select_layout(layout: Layout, dim: int, index: int) -> Layout:
    """The geometry of select(dim, index) on `layout` (shape, stride, offset), with select's errors."""
    shape, stride, offset = layout
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim if 0 <= dim < len(shape) else geometry.wrap_dim(dim, len(shape))
    size = shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{errors.shape_text(shape)} at dimension {d}")
    index %= size
    return shape[:d] + shape[d + 1:], stride[:d] + stride[d + 1:], offset + index * stride[d]


def select(self: Tensor, dim: int, index: int) -> Tensor:
    shape, stride, offset = select_layout((self._shape, self._stride, self._offset), dim, index)
    values = {"dim": dim, "index": int(index), "self_sym_sizes": self._shape} if needs_grad(self) else None
    return make_view(self, shape, stride, offset, "SelectBackward0", values=values)


def slice_layout(layout: Layout, dim: int, start: int | None, stop: int | None, step: int = 1) -> Layout:
    """The geometry of x[start:stop:step] along `dim` of `layout`, with Python's clamping of the bounds."""
    shape, stride, offset = layout
    if step <= 0:
        raise ValueError("step must be greater than zero")
    d = dim if 0 <= dim < len(shape) else geometry.wrap_dim(dim, len(shape))
    begin, end, _ = slice(start, stop, step).indices(shape[d])
    length = max(0, (end - begin + step - 1) // step)
    return (shape[:d] + (length,) + shape[d + 1:], stride[:d] + (stride[d] * step,) + stride[d + 1:],
            offset + begin * stride[d])


def slice_dim(self: Tensor, dim: int, start: int | None, stop: int | None, step: int = 1) -> Tensor:
    """x[start:stop:step] along one dim (SliceBackward0)."""
    shape, stride, offset = slice_layout((self._shape, self._stride, self._offset), dim, start, stop, step)
    values = {"dim": dim, "end": INT64_MAX if stop is None else stop, "start": 0 if start is None else start,
              "step": step, "self_sym_sizes": self._shape} if needs_grad(self) else None
    return make_view(self, shape, stride, offset, "SliceBackward0", values=values)


def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    d = geometry.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    start = int(start)
    if start < 0:
        start += size
    if not 0 <= start <= size or start + length > size:
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


def split(self: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    d = geometry.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sizes = [min(step, size - i) for i in range(0, size, step)] if step > 0 else [size]
        if size == 0:
            sizes = [0]
        name, values = "SplitBackward0", {"dim": dim, "split_size": step, **_sizes(self)}
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={list(sizes)}")
        name, values = "SplitWithSizesBackward0", {"dim": dim, "split_sizes": tuple(sizes), **_sizes(self)}
    return make_multi_views(self, _split_layouts(self, d, sizes), name, values=values)


def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    d = geometry.wrap_dim(dim, self.ndim)
    step = -(-self._shape[d] // chunks) if self._shape[d] else 1
    return split(self, max(step, 1), d)


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
    return apply_inplace(self, write, name, (), backward, values=values)


def t_(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _inplace_layout(self, "TBackward1", (self._shape[::-1], self._stride[::-1], self._offset))


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = geometry.wrap_dim(dim0, self.ndim), geometry.wrap_dim(dim1, self.ndim)
    shape, stride = list(self._shape), list(self._stride)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return _inplace_layout(self, "TransposeBackward1", (tuple(shape), tuple(stride), self._offset),
                           {"dim0": dim0, "dim1": dim1})


def squeeze_(self: Tensor, dim: int | None = None) -> Tensor:
    values: dict[str, Any] = _sizes(self)
    if dim is None:
        keep = [d for d in range(self.ndim) if self._shape[d] != 1]
        name = "SqueezeBackward3"
    else:
        w = geometry.wrap_dim(dim, self.ndim)
        keep = [d for d in range(self.ndim) if not (d == w and self._shape[d] == 1)]
        name = "SqueezeBackward4"
        values["dim"] = dim
    layout = (tuple(self._shape[d] for d in keep), tuple(self._stride[d] for d in keep), self._offset)
    return _inplace_layout(self, name, layout, values)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    shape, stride = _unsqueezed(self, dim)
    return _inplace_layout(self, "UnsqueezeBackward1", (tuple(shape), tuple(stride), self._offset), {"dim": dim})


def as_strided_(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    offset = self._offset if storage_offset is None else int(storage_offset)
    layout = (tuple(int(s) for s in size), tuple(int(s) for s in stride), offset)
    geometry.check_strided_layout_inplace(*layout, self.dtype.itemsize, self._storage.nbytes)
    return _inplace_layout(self, "AsStridedBackward1", layout,
                           {"size": layout[0], "storage_offset": storage_offset, "stride": layout[1],
                            "_geometry": self._layout_key()})


METHODS = {
    "view": view, "view_as": view_as, "reshape": reshape, "reshape_as": reshape_as, "flatten": flatten,
    "unflatten": unflatten, "transpose": transpose, "swapaxes": transpose, "swapdims": transpose, "t": t,
    "permute": permute, "movedim": movedim, "moveaxis": movedim, "squeeze": squeeze, "unsqueeze": unsqueeze,
    "expand": expand, "expand_as": expand_as, "broadcast_to": broadcast_to, "select": select, "narrow": narrow, "diagonal": diagonal,
    "as_strided": as_strided, "unfold": unfold, "split": split, "chunk": chunk, "unbind": unbind, "t_": t_,
    "transpose_": transpose_, "squeeze_": squeeze_, "unsqueeze_": unsqueeze_, "as_strided_": as_strided_,
}
PROPERTIES = {"T": T, "mT": mT}
FUNCTIONS = {name: METHODS[name] for name in (
    "reshape", "flatten", "unflatten", "transpose", "swapaxes", "swapdims", "t", "permute", "movedim",
    "moveaxis", "squeeze", "unsqueeze", "select", "narrow", "diagonal", "as_strided", "split", "chunk",
    "unbind", "broadcast_to")}
FUNCTIONS["broadcast_tensors"] = broadcast_tensors
