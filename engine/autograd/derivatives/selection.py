"""Derivatives of the ordering ops (engine.ops.selection): sort and topk put the gradient back where
each value came from; unique has no derivative in PyTorch, and says so when backward reaches it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.autograd.derivatives import rule
from engine.autograd.derivatives.reduction import signed, value_selecting_reduction_backward


def not_implemented(op: str) -> Callable[[Any, Any], Any]:
    """derivatives.yaml's `not_implemented("op")`: backward through the node raises."""
    def formula(c: Any, grad: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{op}' is not implemented.")
    return formula


def _put_back(c: Any, grad: Any) -> Any:
    return value_selecting_reduction_backward(grad, signed(c.dim), c.indices, c.self_sym_sizes, True)


DERIVATIVES = {
    "SortBackward0": rule("self", saves="indices", keeps="dim, self_sym_sizes", self=_put_back),
    "TopkBackward0": rule("self", saves="indices", keeps="dim, self_sym_sizes", self=_put_back),
    "Unique2Backward0": rule("self", self=not_implemented("_unique2")),
    "UniqueDimBackward0": rule("self", self=not_implemented("unique_dim")),
    "UniqueConsecutiveBackward0": rule("self", self=not_implemented("unique_consecutive")),
}
