"""Derivatives of indexing, gathers, scatters and joins (engine/ops/indexing.py), as torch 2.13 has them.

Where PyTorch builds a gradient by writing into zeros (index: `zeros._index_put_impl_(...)`,
index_select: `zeros.index_add_`, gather: `new_zeros.scatter_add_`), the formula does the same in
place, so the gradient comes out at the version PyTorch's has (1: one write) and, with create_graph,
with the history PyTorch's has (IndexPutImplBackward0, IndexAddBackward0, ScatterAddBackward0).
"""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule
from engine.autograd.derivatives.pointwise import maybe_multiply
from engine.autograd.derivatives.reduction import signed
from engine.ops import backward_ops as B
from engine.ops import flat_index
from engine.ops import indexing as ix
from engine.ops.factories import zeros_like
from engine.tensor import Tensor


def index_backward(grad: Any, sizes: tuple[int, ...], indices: tuple[Any, ...]) -> Any:
    return ix.index_put_impl_(B.new_zeros(grad, sizes), indices, grad, True)


def index_put_values(c: Any, grad: Any) -> Any:
    return ix.getitem(grad, tuple(slice(None) if i is None else i for i in c.indices))


def index_put_self(c: Any, grad: Any) -> Any:
    if c.accumulate:
        return grad
    zeros = Tensor._empty(c._values_shape, c._values_dtype)
    zeros._storage.data.fill(0)
    return ix.index_put(grad, c.indices, zeros, False)


def masked_select_backward(grad: Any, inp: Any, mask: Any) -> Any:
    from engine import geometry

    shape = geometry.broadcast_shapes(inp._shape, mask._shape)
    return zeros_like(inp.expand(shape)).masked_scatter_(mask, grad)


def gather_backward(grad: Any, self: Any, dim: int, index: Any) -> Any:
    return B.new_zeros(grad, self._shape).scatter_add_(dim, index, grad)


def index_source_backward(grad: Any, dim: int, index: Any, source: Any, source_dim: int) -> Any:
    if source_dim > 0:
        return grad.index_select(dim, index).expand_as(source)
    return grad.index_select(dim, index.squeeze(0))


def cat_tensors_backward(c: Any, grad: Any) -> list[Any]:
    grads: list[Any] = []
    start = 0
    for shape in c._sizes:
        if shape == (0,):
            grads.append(B.new_zeros(grad, (0,)))
            continue
        size = shape[c._d]
        grads.append(grad.narrow(c._d, start, size))
        start += size
    return grads


def repeat_backward(grad: Any, repeats: tuple[int, ...], input_shape: tuple[int, ...]) -> Any:
    if 0 in repeats:
        return B.new_zeros(grad, input_shape)
    for _ in range(grad.ndim - len(input_shape)):
        grad = grad.sum(0, keepdim=False)
    lead = len(repeats) - len(input_shape)
    grad_size: list[int] = []
    sum_dims: list[int] = []
    for dim, size in enumerate(input_shape):
        repeat = repeats[dim + lead]
        if repeat != 1:
            grad_size.append(repeat)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(size)
    if sum_dims:
        grad = grad.reshape(grad_size).sum(sum_dims)
    return grad


def _unique(index: Any) -> Any:
    import numpy as np

    return Tensor._wrap(np.unique(index._numpy_view()))


def take_backward(grad: Any, self: Any, index: Any) -> Any:
    return B.new_zeros(grad, self._shape).put_(index, grad, True)


DERIVATIVES = {
    "IndexBackward0": rule("self", saves="indices", lists="indices", keeps="self_sym_sizes",
                           self=lambda c, grad: index_backward(grad, c.self_sym_sizes, c.indices)),
    "IndexPutBackward0": rule("self, values", saves="indices", lists="indices", keeps="accumulate",
                              self=index_put_self, values=index_put_values),
    "IndexPutImplBackward0": rule("self, values", saves="indices", lists="indices", keeps="accumulate",
                                  self=index_put_self, values=index_put_values),
    "IndexSelectBackward0": rule("self", saves="index", keeps="dim, self_sym_sizes",
                                 self=lambda c, grad: B.new_zeros(grad, c.self_sym_sizes).index_add_(c.dim, c.index,
                                                                                                     grad)),
    "MaskedSelectBackward0": rule("self", saves="mask, self",
                                  self=lambda c, grad: masked_select_backward(grad, c.self, c.mask)),
    "MaskedScatterBackward0": rule("self, source", saves="mask", keeps="source_sym_sizes",
                                   self=lambda c, grad: grad.masked_fill(c.mask, 0),
                                   source=lambda c, grad: B.masked_scatter_backward(grad, c.mask,
                                                                                    c.source_sym_sizes)),
    "MaskedScatterBackwardBackward0": rule("grad_output", saves="mask", keeps="_grad_output_info",
                                           grad_output=lambda c, grad: B.new_zeros(grad, c._grad_output_info)
                                           .masked_scatter(c.mask, grad)),
    "GatherBackward0": rule("self", saves="index, self", keeps="dim, sparse_grad",
                            self=lambda c, grad: gather_backward(grad, c.self, c.dim, c.index)),
    "ScatterBackward0": rule("self, src", saves="index", keeps="dim",
                             self=lambda c, grad: grad.scatter(c.dim, c.index, 0),
                             src=lambda c, grad: grad.gather(c.dim, c.index)),
    "ScatterBackward1": rule("self", saves="index", keeps="dim",
                             self=lambda c, grad: grad.scatter(c.dim, c.index, 0)),
    "ScatterAddBackward0": rule("self, src", saves="index", keeps="dim",
                                self=lambda c, grad: grad,
                                src=lambda c, grad: grad.gather(c.dim, c.index)),
    "IndexAddBackward0": rule("self, source", saves={"index": "source", "source": "source"},
                              keeps="alpha, dim, source_dim",
                              self=lambda c, grad: grad,
                              source=lambda c, grad: maybe_multiply(
                                  index_source_backward(grad, c.dim, c.index, c.source, c.source_dim), c.alpha)),
    "IndexCopyBackward0": rule("self, source", saves={"index": "self, source", "source": "source"},
                               keeps="dim, source_dim",
                               self=lambda c, grad: grad.index_fill(c.dim, c.index, 0),
                               source=lambda c, grad: index_source_backward(grad, c.dim, c.index, c.source,
                                                                            c.source_dim)),
    "IndexFillBackward0": rule("self", saves="index", keeps="dim",
                               self=lambda c, grad: grad.index_fill(c.dim, c.index, 0)),
    "IndexFillBackward1": rule("self, value", saves="index", keeps="dim",
                               self=lambda c, grad: grad.index_fill(c.dim, c.index, 0),
                               value=lambda c, grad: grad.index_select(c.dim, _unique(c.index)).sum()),
    "MaskedFillBackward0": rule("self", saves="mask", self=lambda c, grad: grad.masked_fill(c.mask, 0)),
    "MaskedFillBackward1": rule("self, value", saves="mask",
                                self=lambda c, grad: grad.masked_fill(c.mask, 0),
                                value=lambda c, grad: grad.masked_select(c.mask).sum()),
    "PutBackward0": rule("self, source", saves="index, source", keeps="accumulate, _source_info",
                         self=lambda c, grad: grad if c.accumulate else flat_index.put(
                             grad, c.index, B.new_zeros(grad, c._source_info), False),
                         source=lambda c, grad: grad.take(c.index).reshape_as(c.source)),
    "TakeBackward0": rule("self", saves="index, self", self=lambda c, grad: take_backward(grad, c.self, c.index)),
    "CatBackward0": rule("tensors", cat_tensors_backward, keeps="dim"),
    "StackBackward0": rule("tensors", lambda c, grad: [grad.select(c.dim, i) for i in range(c._count)],
                           keeps="dim"),
    "RepeatBackward0": rule("self", keeps="repeats, self_sym_sizes",
                            self=lambda c, grad: repeat_backward(grad, c.repeats, c.self_sym_sizes)),
    "FlipBackward0": rule("self", keeps="dims", self=lambda c, grad: grad.flip(c.dims)),
    "RollBackward0": rule("self", keeps="dims, shifts",
                          self=lambda c, grad: grad.roll(tuple(-s for s in reversed(c.shifts)),
                                                         tuple(reversed(c.dims)) or None)),
    "TrilBackward0": rule("self", keeps="diagonal", self=lambda c, grad: grad.tril(c.diagonal)),
    "TriuBackward0": rule("self", keeps="diagonal", self=lambda c, grad: grad.triu(c.diagonal)),
    "DiagEmbedBackward0": rule("self", keeps="dim1, dim2, offset",
                               self=lambda c, grad: grad.diagonal(c.offset, signed(c.dim1), signed(c.dim2))),
}
