"""View ops: new shape/stride/offset over the same storage and version counter, never a copy.

Each op computes its layout, then its backward right beside it. The backward of a view maps the
gradient of the view back onto the layout of its input.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import errors, geometry
from engine.autograd.engine import written_in_place
from engine.ops.core import apply_inplace, make_multi_views, make_view, record
from engine.tensor import Tensor

Layout = tuple[tuple[int, ...], tuple[int, ...], int]


def sizes_arg(args: Sequence[Any]) -> tuple[int, ...]:
    """`view(2, 3)`, `view((2, 3))`, `view([2, 3])` and `view(torch.Size(...))` all mean (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(int(a) for a in args)


def as_strided_backward(input_layout: Layout, view_layout: Layout, written: bool = True) -> Any:
    """torch's as_strided_backward: scatter the view's gradient onto the storage positions it covers,
    divide by how many input elements share each position (an expanded input), then read it back in
    the input's geometry; positions the input does not cover are dropped. `written` marks the result
    as built in place (as_strided's own backward is; diagonal's and unfold's are not)."""
    def backward(grad: np.ndarray, saved: dict) -> tuple[np.ndarray]:
        inputs = geometry.storage_indices(*input_layout).reshape(-1)
        outputs = geometry.storage_indices(*view_layout).reshape(-1)
        if inputs.size == 0:
            return (np.zeros(input_layout[0], dtype=grad.dtype),)
        low = int(min(inputs.min(), outputs.min(initial=inputs.min())))
        high = int(max(inputs.max(), outputs.max(initial=inputs.max())))
        storage = np.zeros(high - low + 1, dtype=grad.dtype)
        np.add.at(storage, outputs - low, grad.reshape(-1))
        count = np.bincount(inputs - low, minlength=storage.size)
        if count.max(initial=0) > 1:
            np.divide(storage, count, out=storage, where=count > 0)
        result = storage[inputs - low].reshape(input_layout[0])
        return (written_in_place(result) if written else result,)
    return backward


def _reshape_backward(shape: tuple[int, ...]) -> Any:
    return lambda grad, saved: (grad.reshape(shape),)


# --------------------------------------------------------------------------- reshaping
def view(self: Tensor, *shape: Any) -> Tensor:
    new_shape = geometry.infer_size(sizes_arg(shape), self.numel())
    stride = geometry.view_strides(self._shape, self._stride, new_shape)
    if stride is None:
        raise RuntimeError(errors.VIEW_STRIDE)
    return make_view(self, new_shape, stride, self._offset, "ViewBackward0", _reshape_backward(self._shape))


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return view(self, other._shape)


def reshape(self: Tensor, *shape: Any) -> Tensor:
    """A view when the layout allows one, else a contiguous copy (UnsafeView of a Clone)."""
    new_shape = geometry.infer_size(sizes_arg(shape), self.numel())
    stride = geometry.view_strides(self._shape, self._stride, new_shape)
    if stride is not None:
        name = "ViewBackward0" if self.is_contiguous() else "ReshapeAliasBackward0"
        return make_view(self, new_shape, stride, self._offset, name, _reshape_backward(self._shape))
    from engine.ops.copying import clone

    copied = clone(self, contiguous=True)
    out = Tensor._make(copied._storage, 0, new_shape, geometry.contiguous_strides(new_shape), self.dtype)
    record("UnsafeViewBackward0", out, (copied,), _reshape_backward(copied._shape))
    return out


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, other._shape)


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
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
    inner = geometry.infer_size(tuple(sizes), self._shape[dim])
    return view(self, self._shape[:dim] + inner + self._shape[dim + 1:])


# --------------------------------------------------------------------------- dimension order
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    if self.ndim == 0:
        d0 = geometry.wrap_dim(dim0, 1)
        geometry.wrap_dim(dim1, 1)
        return make_view(self, (), (), self._offset, "TransposeBackward0", lambda g, s: (g,)) if d0 == 0 else self
    d0, d1 = geometry.wrap_dim(dim0, self.ndim), geometry.wrap_dim(dim1, self.ndim)
    shape, stride = list(self._shape), list(self._stride)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return make_view(self, shape, stride, self._offset, "TransposeBackward0",
                     lambda grad, saved: (grad.swapaxes(d0, d1),))


def t(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    if self.ndim < 2:
        return make_view(self, self._shape, self._stride, self._offset, "TBackward0", lambda g, s: (g,))
    return make_view(self, self._shape[::-1], self._stride[::-1], self._offset, "TBackward0",
                     lambda grad, saved: (grad.T,))


def permute(self: Tensor, *dims: Any) -> Tensor:
    order = tuple(geometry.wrap_dim(d, self.ndim) for d in sizes_arg(dims))
    if sorted(order) != list(range(self.ndim)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match "
                           "the length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{self.ndim} is not equal to len(dims) = {len(order)}")
    inverse = tuple(int(i) for i in np.argsort(order))
    return make_view(self, [self._shape[d] for d in order], [self._stride[d] for d in order], self._offset,
                     "PermuteBackward0", lambda grad, saved: (grad.transpose(inverse),))


def movedim(self: Tensor, source: int, destination: int) -> Tensor:
    src, dst = geometry.wrap_dim(source, self.ndim), geometry.wrap_dim(destination, self.ndim)
    order = [d for d in range(self.ndim) if d != src]
    order.insert(dst, src)
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


def mT(self: Tensor) -> Tensor:  # noqa: N802
    if self.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(self, -2, -1)


# --------------------------------------------------------------------------- size-1 dims and expansion
def squeeze(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    if dim is None:
        keep = [d for d in range(self.ndim) if self._shape[d] != 1]
        name = "SqueezeBackward0"
    else:
        dims = {geometry.wrap_dim(d, self.ndim) for d in (dim if isinstance(dim, (tuple, list)) else [dim])}
        keep = [d for d in range(self.ndim) if not (d in dims and self._shape[d] == 1)]
        name = "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"
    return make_view(self, [self._shape[d] for d in keep], [self._stride[d] for d in keep], self._offset, name,
                     _reshape_backward(self._shape))


def _unsqueezed(self: Tensor, dim: int) -> tuple[list[int], list[int]]:
    d = geometry.wrap_dim(dim, self.ndim + 1)
    shape, stride = list(self._shape), list(self._stride)
    new_stride = shape[d] * stride[d] if d < self.ndim else 1
    shape.insert(d, 1)
    stride.insert(d, new_stride)
    return shape, stride


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    shape, stride = _unsqueezed(self, dim)
    return make_view(self, shape, stride, self._offset, "UnsqueezeBackward0", _reshape_backward(self._shape))


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
    in_shape = self._shape

    def backward(grad: np.ndarray, saved: dict) -> tuple[np.ndarray]:
        from engine.ops.core import unbroadcast

        return (unbroadcast(grad, in_shape),)

    return make_view(self, shape, stride, self._offset, "ExpandBackward0", backward)


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return expand(self, other._shape)


def broadcast_to(self: Tensor, size: Sequence[int]) -> Tensor:
    return expand(self, tuple(size))


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    shape = geometry.broadcast_shapes(*(t._shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


# --------------------------------------------------------------------------- selecting along a dim
def select(self: Tensor, dim: int, index: int) -> Tensor:
    if self.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = geometry.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{errors.shape_text(self._shape)} at dimension {d}")
    index %= size
    in_shape = self._shape

    def backward(grad: np.ndarray, saved: dict) -> tuple[np.ndarray]:
        result = np.zeros(in_shape, dtype=grad.dtype)
        result[(slice(None),) * d + (index,)] = grad
        return (result,)

    return make_view(self, self._shape[:d] + self._shape[d + 1:], self._stride[:d] + self._stride[d + 1:],
                     self._offset + index * self._stride[d], "SelectBackward0", backward)


def slice_dim(self: Tensor, dim: int, start: int | None, stop: int | None, step: int = 1) -> Tensor:
    """x[start:stop:step] along one dim (SliceBackward0), with Python's clamping of the bounds."""
    if step <= 0:
        raise ValueError("step must be greater than zero")
    d = geometry.wrap_dim(dim, self.ndim)
    begin, end, _ = slice(start, stop, step).indices(self._shape[d])
    length = max(0, (end - begin + step - 1) // step)
    shape = self._shape[:d] + (length,) + self._shape[d + 1:]
    stride = self._stride[:d] + (self._stride[d] * step,) + self._stride[d + 1:]
    offset = self._offset + begin * self._stride[d]
    in_shape = self._shape
    region = (slice(None),) * d + (slice(begin, begin + length * step, step),)

    def backward(grad: np.ndarray, saved: dict) -> tuple[np.ndarray]:
        result = np.zeros(in_shape, dtype=grad.dtype)
        result[region] = grad
        return (result,)

    return make_view(self, shape, stride, offset, "SliceBackward0", backward)


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
    return make_view(self, self._shape, self._stride, self._offset, "AliasBackward0", lambda g, s: (g,))


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
                     as_strided_backward(self._layout_key(), (tuple(shape), tuple(stride), new_offset), written=False))


def _checked_layout(size: Sequence[int], stride: Sequence[int], offset: int) -> Layout:
    """as_strided's argument checks, worded as torch words them."""
    layout = (tuple(int(s) for s in size), tuple(int(s) for s in stride), offset)
    if any(s < 0 for s in layout[1]):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{errors.shape_text(layout[1])}")
    if any(s < 0 for s in layout[0]):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={errors.shape_text(layout[0])} and "
                           f"strides={errors.shape_text(layout[1])}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    return layout


def as_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    offset = self._offset if storage_offset is None else int(storage_offset)
    layout = _checked_layout(size, stride, offset)
    needed = offset + sum((n - 1) * st for n, st in zip(layout[0], layout[1])) + 1 if 0 not in layout[0] else 0
    if needed * self.dtype.itemsize > self._storage.nbytes:
        raise RuntimeError(
            f"setStorage: sizes {errors.shape_text(layout[0])}, strides {errors.shape_text(layout[1])}, "
            f"storage offset {offset}, and itemsize {self.dtype.itemsize} requiring a storage size of "
            f"{needed * self.dtype.itemsize} are out of bounds for storage of size {self._storage.nbytes}")
    return make_view(self, layout[0], layout[1], offset, "AsStridedBackward0",
                     as_strided_backward(self._layout_key(), layout))


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
    layout = (tuple(shape), tuple(stride), self._offset)
    return make_view(self, shape, stride, self._offset, "UnfoldBackward0",
                     as_strided_backward(self._layout_key(), layout, written=False))


# --------------------------------------------------------------------------- multi-output views
def _split_layouts(self: Tensor, d: int, sizes: Sequence[int]) -> list[Layout]:
    layouts, start = [], 0
    for n in sizes:
        shape = self._shape[:d] + (n,) + self._shape[d + 1:]
        layouts.append((shape, self._stride, self._offset + start * self._stride[d]))
        start += n
    return layouts


def _concat_backward(in_shape: tuple[int, ...], d: int, sizes: Sequence[int]) -> Any:
    def backward(grads: list[np.ndarray], saved: dict) -> tuple[np.ndarray]:
        return (np.concatenate(grads, axis=d) if grads else np.zeros(in_shape),)
    return backward


def split(self: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    d = geometry.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sizes = [min(step, size - i) for i in range(0, size, step)] if step > 0 else [size]
        if size == 0:
            sizes = [0]
        name = "SplitBackward0"
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={list(sizes)}")
        name = "SplitWithSizesBackward0"
    return make_multi_views(self, _split_layouts(self, d, sizes), name, _concat_backward(self._shape, d, sizes))


def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    d = geometry.wrap_dim(dim, self.ndim)
    step = -(-self._shape[d] // chunks) if self._shape[d] else 1
    return split(self, max(step, 1), d)


def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    d = geometry.wrap_dim(dim, self.ndim)
    shape = self._shape[:d] + self._shape[d + 1:]
    stride = self._stride[:d] + self._stride[d + 1:]
    layouts = [(shape, stride, self._offset + i * self._stride[d]) for i in range(self._shape[d])]

    def backward(grads: list[np.ndarray], saved: dict) -> tuple[np.ndarray]:
        return (np.stack(grads, axis=d),)

    return make_multi_views(self, layouts, "UnbindBackward0", backward)


# --------------------------------------------------------------------------- in-place view ops
def _inplace_layout(self: Tensor, name: str, layout: Layout, backward: Any) -> Tensor:
    """t_/transpose_/squeeze_/unsqueeze_/as_strided_: change self's own layout, bump its version."""
    def write(_: np.ndarray) -> None:
        self._set_layout(*layout)
    return apply_inplace(self, write, name, (), backward)


def t_(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _inplace_layout(self, "TBackward1", (self._shape[::-1], self._stride[::-1], self._offset),
                           lambda grad, saved: (grad.T,))


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = geometry.wrap_dim(dim0, self.ndim), geometry.wrap_dim(dim1, self.ndim)
    shape, stride = list(self._shape), list(self._stride)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return _inplace_layout(self, "TransposeBackward1", (tuple(shape), tuple(stride), self._offset),
                           lambda grad, saved: (grad.swapaxes(d0, d1),))


def squeeze_(self: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        keep = [d for d in range(self.ndim) if self._shape[d] != 1]
        name = "SqueezeBackward3"
    else:
        w = geometry.wrap_dim(dim, self.ndim)
        keep = [d for d in range(self.ndim) if not (d == w and self._shape[d] == 1)]
        name = "SqueezeBackward4"
    old = self._shape
    layout = (tuple(self._shape[d] for d in keep), tuple(self._stride[d] for d in keep), self._offset)
    return _inplace_layout(self, name, layout, _reshape_backward(old))


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    shape, stride = _unsqueezed(self, dim)
    return _inplace_layout(self, "UnsqueezeBackward1", (tuple(shape), tuple(stride), self._offset),
                           _reshape_backward(self._shape))


def as_strided_(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    offset = self._offset if storage_offset is None else int(storage_offset)
    layout = _checked_layout(size, stride, offset)
    return _inplace_layout(self, "AsStridedBackward1", layout, as_strided_backward(self._layout_key(), layout))


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
