"""Derivatives of the statistics with nodes of their own (engine.ops.statistics): logcumsumexp's, as
ATen's logcumsumexp_backward writes it, through reversed running log-sum-exps of the gradient's
positive and negative parts."""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule


def logcumsumexp_backward(grad: Any, self: Any, result: Any, dim: int) -> Any:
    import engine

    if grad.ndim == 0 or grad.numel() == 0:
        return grad
    lowest = engine.finfo(grad.dtype).min
    grad_min = engine.scalar_tensor(lowest, dtype=grad.dtype)

    def reverse_logcumsumexp(x: Any) -> Any:
        return engine.flip(engine.logcumsumexp(engine.flip(x, [dim]), dim), [dim])

    log_abs_grad = grad.abs().log()
    log_grad_positive = engine.where(grad > 0, log_abs_grad, grad_min)
    log_grad_negative = engine.where(grad < 0, log_abs_grad, grad_min)
    output_pos = (reverse_logcumsumexp(log_grad_positive - result) + self).exp()
    output_neg = (reverse_logcumsumexp(log_grad_negative - result) + self).exp()
    return output_pos - output_neg


DERIVATIVES = {
    "LogcumsumexpBackward0": rule("self", saves="self, result", keeps="dim",
                                  self=lambda c, grad: logcumsumexp_backward(grad, c.self, c.result, c.dim)),
}
