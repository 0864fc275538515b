"""Gradient clipping and parameter vectors, as torch's CPU (foreach) path does them: every
gradient is scaled (or clamped) in place, so each clip bumps each gradient's version."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from engine.autograd import grad_mode
from engine.ops import indexing, pointwise, reduction, views
from engine.ops.factories import tensor as make_tensor
from engine.tensor import Tensor


def _as_list(parameters: Any) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the norms of each tensor (0 when there are none)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return make_tensor(0.0)
    with grad_mode.no_grad():
        norms = [reduction.norm(t, norm_type) for t in tensors]
        total = reduction.norm(indexing.stack(norms), norm_type)
    if error_if_nonfinite and (math.isnan(total.item()) or math.isinf(total.item())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Scale all gradients by min(1, max_norm / (total norm + 1e-6)); returns the total norm."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if grads:
        with grad_mode.no_grad():
            coefficient = pointwise.clamp(pointwise.rdiv(pointwise.add(total, 1e-6), float(max_norm)), max=1.0)
            for g in grads:
                g.mul_(coefficient)
    return total


def clip_grad_value_(parameters: Any, clip_value: float, foreach: bool | None = None) -> None:
    clip_value = float(clip_value)
    with grad_mode.no_grad():
        grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
        for g in grads:
            g.clamp_(min=-clip_value)
        for g in grads:
            g.clamp_(max=clip_value)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    return indexing.cat([views.view(p, -1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Each parameter's .data becomes its slice of vec (no copy: they share vec's memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        count = param.numel()
        param.data = views.view_as(vec[pointer: pointer + count], param).data
        pointer += count
