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
