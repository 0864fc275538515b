"""Derivatives of view ops (engine/ops/views.py), as torch 2.13's derivatives.yaml states them.

A view's gradient maps the view's gradient back onto its input's shape: the inverse view where there
is one (reshape, transpose, permute, squeeze/unsqueeze), PyTorch's dedicated backward ops where the
view drops elements (select_backward, slice_backward, diagonal_backward, unfold_backward: fresh
tensors, at version 0), and as_strided_backward's scatter into a zero "storage" tensor for the views
autograd regenerates after an in-place change (AsStridedBackward0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.autograd.derivatives import rule
from engine.ops import backward_ops as B
from engine.ops.factories import arange, zeros_like
from engine.ops.indexing import cat, stack
from engine.ops.views import slice_dim


def unsqueeze_to(grad: Any, sizes: Sequence[int], dims: Sequence[int] | None = None) -> Any:
    """Put back the size-1 dims a squeeze removed (all of them, or only those in `dims`)."""
    wanted = None if dims is None else {d % len(sizes) for d in dims}
    for d, size in enumerate(sizes):
        if size == 1 and (wanted is None or d in wanted):
            grad = grad.unsqueeze(d)
    return grad


def permute_backwards(grad: Any, dims: Sequence[int]) -> Any:
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return grad.permute(inverse)


def split_with_sizes_backward(grads: list[Any], sizes: Sequence[int], dim: int, self_sizes: Sequence[int]) -> Any:
    dim %= len(self_sizes)
    defined = []
    for g, length in zip(grads, sizes):
        if g is None:
            shape = list(self_sizes)
            shape[dim] = length
            g = B.new_zeros(_like(grads), shape)
        defined.append(g)
    return cat(defined, dim)


def split_backward(grads: list[Any], split_size: int, dim: int, self_sizes: Sequence[int]) -> Any:
    dim %= len(self_sizes)
    count = len(grads)
    sizes = [split_size] * count
    sizes[-1] = split_size - (split_size * count - self_sizes[dim])
    return split_with_sizes_backward(grads, sizes, dim, self_sizes)


def unbind_backward(grads: list[Any], dim: int) -> Any:
    first = _like(grads)
    filled = [g if g is not None else B.new_zeros(first, ()).expand(first._shape) for g in grads]
    return stack(filled, dim)


def _like(grads: list[Any]) -> Any:
    return next(g for g in grads if g is not None)


def _maybe_overlapping(sizes: list[int], strides: list[int]) -> bool:
    reach = 0
    for i in sorted(range(len(sizes)), key=lambda k: strides[k]):
        if strides[i] <= reach:
            return True
        reach += strides[i] * (sizes[i] - 1)
    return False


def _min_storage_size(sizes: list[int], strides: list[int], offset: int) -> int:
    size = offset + 1
    for n, st in zip(sizes, strides):
        if n == 0:
            return offset
        size += (n - 1) * st
    return size


def as_strided_backward(grad: Any, geometry: tuple[tuple[int, ...], tuple[int, ...], int], sizes: Sequence[int],
                        strides: Sequence[int], storage_offset: int | None) -> Any:
    """Scatter the view's gradient into a zero 'storage' by position, then read it back with the
    input's geometry (dividing where the input sees one element several times)."""
    inp_shape, inp_stride, inp_offset = geometry
    offset = inp_offset if storage_offset is None else storage_offset
    out_sizes: list[int] = []
    out_strides: list[int] = []
    for i in range(grad.ndim - 1, -1, -1):
        size_i, stride_i = sizes[i], strides[i]
        if size_i == 0:
            return B.new_zeros(grad, inp_shape)
        if size_i == 1:
            grad = grad.squeeze(i)
        elif stride_i == 0:
            grad = grad.sum(i, keepdim=False)
        else:
            out_sizes.insert(0, size_i)
            out_strides.insert(0, stride_i)
    out_overlap = _maybe_overlapping(out_sizes, out_strides)
    inp_sizes: list[int] = []
    inp_strides: list[int] = []
    for size_i, stride_i in zip(reversed(inp_shape), reversed(inp_stride)):
        if size_i == 0:
            return B.new_zeros(grad, inp_shape)
        if size_i != 1:
            inp_sizes.insert(0, size_i)
            inp_strides.insert(0, stride_i)
    inp_overlap = _maybe_overlapping(inp_sizes, inp_strides)
    shared = min(inp_offset, offset)
    inp_effective, out_effective = inp_offset - shared, offset - shared
    base = max(_min_storage_size(inp_sizes, inp_strides, inp_effective),
               _min_storage_size(out_sizes, out_strides, out_effective))
    storage = B.new_zeros(grad, (base,))
    indices = arange(0, base) if inp_overlap or out_overlap else None
    if out_overlap:
        out_indices = indices.as_strided(out_sizes, out_strides, out_effective)
        storage.index_add_(0, out_indices.reshape(-1), grad.reshape(-1))
    else:
        storage.as_strided(out_sizes, out_strides, out_effective).copy_(grad)
    if inp_overlap:
        count = zeros_like(storage)
        inp_indices = indices.as_strided(inp_sizes, inp_strides, inp_effective).reshape(-1)
        count.index_add_(0, inp_indices, B.new_zeros(grad, (1,)).add_(1).expand_as(inp_indices))
        storage.div_(count)
    return storage.as_strided(inp_shape, inp_stride, inp_effective)


def _as_strided(c: Any, grad: Any) -> Any:
    return as_strided_backward(grad, c._geometry, c.size, c.stride, c.storage_offset)


DERIVATIVES = {
    "ViewBackward0": rule("self", keeps="self_sym_sizes", self=lambda c, grad: grad.reshape(c.self_sym_sizes)),
    "ReshapeAliasBackward0": rule("self", keeps="self_sym_sizes",
                                  self=lambda c, grad: grad.reshape(c.self_sym_sizes)),
    "UnsafeViewBackward0": rule("self", keeps="self_sym_sizes", self=lambda c, grad: grad.reshape(c.self_sym_sizes)),
    "AliasBackward0": rule("self", self=lambda c, grad: grad),
    "TransposeBackward0": rule("self", keeps="dim0, dim1", self=lambda c, grad: grad.transpose(c.dim0, c.dim1)),
    "TransposeBackward1": rule("self", keeps="dim0, dim1", self=lambda c, grad: grad.transpose(c.dim0, c.dim1)),
    "TBackward0": rule("self", self=lambda c, grad: grad.t()),
    "TBackward1": rule("self", self=lambda c, grad: grad.t()),
    "PermuteBackward0": rule("self", keeps="dims", self=lambda c, grad: permute_backwards(grad, c.dims)),
    "SqueezeBackward0": rule("self", keeps="self_sym_sizes", self=lambda c, grad: unsqueeze_to(grad, c.self_sym_sizes)),
    "SqueezeBackward1": rule("self", keeps="dim, self_sym_sizes",
                             self=lambda c, grad: unsqueeze_to(grad, c.self_sym_sizes, (c.dim,))),
    "SqueezeBackward2": rule("self", keeps="dim, self_sym_sizes",
                             self=lambda c, grad: unsqueeze_to(grad, c.self_sym_sizes, c.dim)),
    "SqueezeBackward3": rule("self", keeps="self_sym_sizes", self=lambda c, grad: unsqueeze_to(grad, c.self_sym_sizes)),
    "SqueezeBackward4": rule("self", keeps="dim, self_sym_sizes",
                             self=lambda c, grad: unsqueeze_to(grad, c.self_sym_sizes, (c.dim,))),
    "UnsqueezeBackward0": rule("self", keeps="dim", self=lambda c, grad: grad.squeeze(c.dim)),
    "UnsqueezeBackward1": rule("self", keeps="dim", self=lambda c, grad: grad.squeeze(c.dim)),
    "ExpandBackward0": rule("self", keeps="self_sym_sizes", self=lambda c, grad: B.sum_to_size(grad, c.self_sym_sizes)),
    "SelectBackward0": rule("self", keeps="dim, index, self_sym_sizes",
                            self=lambda c, grad: B.select_backward(grad, c.self_sym_sizes, c.dim, c.index)),
    "SliceBackward0": rule("self", keeps="dim, end, self_sym_sizes, start, step",
                           self=lambda c, grad: B.slice_backward(grad, c.self_sym_sizes, c.dim, c.start, c.end, c.step)),
    "DiagonalBackward0": rule("self", keeps="dim1, dim2, offset, self_sym_sizes",
                              self=lambda c, grad: B.diagonal_backward(grad, c.self_sym_sizes, c.offset, c.dim1,
                                                                       c.dim2)),
    "UnfoldBackward0": rule("self", keeps="dimension, self_sym_sizes, size, step",
                            self=lambda c, grad: B.unfold_backward(grad, c.self_sym_sizes, c.dimension, c.size,
                                                                   c.step)),
    "AsStridedBackward0": rule("self", keeps="size, storage_offset, stride", self=_as_strided),
    "AsStridedBackward1": rule("self", keeps="size, storage_offset, stride", self=_as_strided),
    "SplitBackward0": rule("self", keeps="dim, self_sym_sizes, split_size", grads_list=True,
                           self=lambda c, grads: split_backward(grads, c.split_size, c.dim, c.self_sym_sizes)),
    "SplitWithSizesBackward0": rule("self", keeps="dim, self_sym_sizes, split_sizes", grads_list=True,
                                    self=lambda c, grads: split_with_sizes_backward(grads, c.split_sizes, c.dim,
                                                                                     c.self_sym_sizes)),
    "UnsafeSplitBackward0": rule("self", keeps="dim, self_sym_sizes, split_size", grads_list=True,
                                 self=lambda c, grads: split_backward(grads, c.split_size, c.dim, c.self_sym_sizes)),
    "UnsafeSplitWithSizesBackward0": rule("self", keeps="dim, self_sym_sizes, split_sizes", grads_list=True,
                                          self=lambda c, grads: split_with_sizes_backward(grads, c.split_sizes, c.dim,
                                                                                           c.self_sym_sizes)),
    "UnbindBackward0": rule("self", keeps="dim", grads_list=True,
                            self=lambda c, grads: unbind_backward(grads, c.dim)),
    "SelectBackwardBackward0": rule("grad_output", keeps="dim, index",
                                    grad_output=lambda c, grad: grad.select(c.dim, c.index)),
    "SliceBackwardBackward0": rule("grad_output", keeps="dim, end, start, step",
                                   grad_output=lambda c, grad: slice_dim(grad, c.dim, c.start, c.end, c.step)),
    "DiagonalBackwardBackward0": rule("grad_output", keeps="dim1, dim2, offset",
                                      grad_output=lambda c, grad: grad.diagonal(c.offset, c.dim1, c.dim2)),
    "UnfoldBackwardBackward0": rule("grad_output", keeps="dim, size, step",
                                    grad_output=lambda c, grad: grad.unfold(c.dim, c.size, c.step)),
}

