"""Derivatives of the order statistics (engine.ops.order_statistics): aminmax shares each extreme's
gradient among its ties; kthvalue and mode put the gradient back at the picked index."""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule
from engine.autograd.derivatives.reduction import (
    restore_reduced_dims,
    scale_grad_by_count,
    signed,
    value_selecting_reduction_backward,
)


def aminmax_backward(c: Any, grads: list[Any]) -> Any:
    """Each defined output gradient spread evenly over the elements equal to its extreme."""
    dims = () if c.dim is None else (signed(c.dim),)
    gradient = None
    for grad, extreme in zip(grads, (c.min, c.max)):
        if grad is None:
            continue
        term = scale_grad_by_count(restore_reduced_dims(grad, dims, c.keepdim),
                                   restore_reduced_dims(extreme, dims, c.keepdim) == c.self, dims)
        gradient = term if gradient is None else gradient.add_(term)  # ATen adds the second in place
    return gradient


def _put_back(c: Any, grad: Any) -> Any:
    return value_selecting_reduction_backward(grad, signed(c.dim), c.indices, c.self_sym_sizes, c.keepdim)


DERIVATIVES = {
    "AminmaxBackward0": rule("self", saves="self, min, max", keeps="dim, keepdim", grads_list=True,
                             self=aminmax_backward),
    "KthvalueBackward0": rule("self", saves="indices", keeps="dim, keepdim, self_sym_sizes", self=_put_back),
    "ModeBackward0": rule("self", saves="indices", keeps="dim, keepdim, self_sym_sizes", self=_put_back),
}


def scatter_reduce_backward(c: Any, grad: Any) -> list[Any]:
    """ATen's scatter_reduce_backward: self's and src's gradients for each reduction (the extremes share
    the gradient among ties; prod divides the result by each factor, counting zeros apart)."""
    import engine

    dim, index, self, src, result = c.dim, c.index, c.self, c.src, c.result
    if c.reduce == "sum":
        grad_self, grad_src = grad, grad.gather(dim, index)
    elif c.reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, "prod", include_self=c.include_self)
        grad_self = grad * masked_self_result / masked_self
        src_zero = src == 0
        src_num_zeros = engine.zeros_like(self).scatter_add(dim, index, src_zero.to(self.dtype)).gather(dim, index)
        src_single_zero = engine.bitwise_and(src_zero, src_num_zeros == 1)
        masked_src = src.masked_fill(src_single_zero, 1)
        masked_src_result = self.scatter_reduce(dim, index, masked_src, "prod", include_self=c.include_self)
        grad_src = engine.where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                                (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    elif c.reduce == "mean":
        count = engine.ones_like(grad) if c.include_self else engine.zeros_like(grad)
        count = count.scatter_add(dim, index, engine.ones_like(src))
        count.masked_fill_(count == 0, 1)
        grad_self = grad / count
        grad_src = grad.gather(dim, index) / count.gather(dim, index)
    else:
        value = result.gather(dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        shared_by = self_is_result.scatter_add(dim, index, src_is_result)
        grad_distributed = grad / shared_by
        grad_self = (self == result) * grad_distributed
        grad_src = (src == value) * grad_distributed.gather(dim, index)
    if not c.include_self:
        grad_self = grad_self.scatter(dim, index, 0)
    return [grad_self, grad_src]


DERIVATIVES["ScatterReduceBackward0"] = rule("self, src", scatter_reduce_backward, saves="self, src, index, result",
                                             keeps="dim, reduce, include_self")
