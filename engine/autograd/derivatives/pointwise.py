"""Derivatives of elementwise ops (engine/ops/pointwise.py), as torch 2.13's derivatives.yaml states them.

Each formula mirrors PyTorch's, op for op, because with create_graph=True the ops it calls are the
gradient's history: `grad * 2.0` written in C++ is `mul.Scalar` (MulBackward1 here: B.mul_scalar),
`2.0 / sqrt(pi) * exp(-self.pow(2)) * grad` is MulBackward1, NegBackward0, PowBackward0... A gradient
summed back to an operand's broadcast shape is left to the engine (PyTorch's validate_outputs).
"""

from __future__ import annotations

import math
from typing import Any

from engine.autograd.derivatives import rule
from engine.ops import backward_ops as B
from engine.ops.factories import zeros_like
from engine.ops.pointwise import where


def maybe_multiply(t: Any, s: Any) -> Any:
    return t if s == 1 else B.mul_scalar(t, s)


def zeros(c: Any, grad: Any) -> Any:
    return zeros_like(grad)


def _scalar_zero(grad: Any) -> Any:
    from engine.ops.core import scalar_tensor

    return scalar_tensor(0.0, grad.dtype)


def pow_backward(grad: Any, self: Any, exponent: Any) -> Any:
    if exponent == 0:
        return zeros_like(self)
    return grad * B.mul_scalar(self.pow(float(exponent) - 1), float(exponent))


def pow_backward_self(grad: Any, self: Any, exponent: Any) -> Any:
    return where(exponent == 0.0, _scalar_zero(grad), grad * (exponent * self.pow(B.sub_scalar(exponent, 1))))


def pow_backward_exponent(grad: Any, self: Any, exponent: Any, result: Any) -> Any:
    from engine.ops.core import result_type

    cond = (self == 0) & (exponent >= 0)
    self_ = self.to(result_type(self, exponent))
    return grad * where(cond, _scalar_zero(grad), result * self_.log())


def pow_backward_scalar_base(grad: Any, base: Any, exponent: Any, result: Any) -> Any:
    log_base = math.log(base) if base > 0 else (-math.inf if base == 0 else math.nan)
    if base == 0:
        return grad * where(exponent >= 0, _scalar_zero(grad), B.mul_scalar(result, log_base))
    return grad * B.mul_scalar(result, log_base)


def clamp_backward(grad: Any, self: Any, low: Any, high: Any) -> Any:
    if low is not None and high is not None:
        return where((self >= low).logical_and(self <= high), grad, _scalar_zero(grad))
    if low is not None:
        return where(self >= low, grad, _scalar_zero(grad))
    if high is not None:
        return where(self <= high, grad, _scalar_zero(grad))
    return grad


def sgn_backward(self: Any, grad: Any, sgn: Any) -> Any:
    """torch's sgn_backward for real input: (g - sgn * (g * sgn)) / |x|, i.e. 0 away from 0."""
    magnitude = self.abs()
    return ((grad - sgn * (grad * sgn)) / magnitude).masked_fill_(magnitude == 0.0, 0.0)


def gelu_double_backward(ggi: Any, go: Any, x: Any, approximate: str) -> Any:
    """d(gelu_backward)/d(self), as torch's gelu_double_backward."""
    if approximate == "tanh":
        beta = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5
        kappa = 0.044715
        inner = B.mul_scalar(x + B.mul_scalar(x.pow(3), kappa), beta)
        tanh_inner = inner.tanh()
        sech_inner = B.scalar_div(2, inner.exp() + (-inner).exp())
        f = B.mul_scalar(x, 0.5)
        g = B.scalar_rsub(1, tanh_inner * tanh_inner)
        h = B.mul_scalar(B.add_scalar(B.mul_scalar(x * x, 3 * kappa), 1), beta)
        f_prime_gh = B.mul_scalar(g, 0.5) * h
        g_prime = (B.mul_scalar(sech_inner, 2) * (-sech_inner * tanh_inner)) * h
        g_prime_fh = f * h * g_prime
        h_prime = B.mul_scalar(x, 6 * kappa * beta)
        h_prime_fg = f * g * h_prime
        return ggi * go * (B.mul_scalar(f_prime_gh, 2) + g_prime_fh + h_prime_fg)
    beta = (2 / math.sqrt(math.pi)) * math.sqrt(0.5) * 0.5
    x_sq = x * x
    pdf = B.mul_scalar(B.mul_scalar(x_sq, -0.5).exp(), beta)
    return ggi * go * (B.mul_scalar(pdf, 2) - x_sq * pdf)


def not_implemented(c: Any, grad: Any) -> Any:
    raise RuntimeError(f"derivative for aten::{c._op} is not implemented")


DERIVATIVES = {
    # ------------------------------------------------------------------ arithmetic
    "AddBackward0": rule("self, other", keeps="alpha",
                         self=lambda c, grad: grad,
                         other=lambda c, grad: maybe_multiply(grad, c.alpha)),
    "AddBackward1": rule("self", self=lambda c, grad: grad),
    "SubBackward0": rule("self, other", keeps="alpha",
                         self=lambda c, grad: grad,
                         other=lambda c, grad: maybe_multiply(-grad, c.alpha)),
    "SubBackward1": rule("self", self=lambda c, grad: grad),
    "RsubBackward0": rule("self, other", keeps="alpha",
                          self=lambda c, grad: maybe_multiply(-grad, c.alpha),
                          other=lambda c, grad: grad),
    "RsubBackward1": rule("self", keeps="alpha", self=lambda c, grad: maybe_multiply(-grad, c.alpha)),
    "MulBackward0": rule("self, other", saves={"other": "self", "self": "other"},
                         self=lambda c, grad: grad * c.other,
                         other=lambda c, grad: grad * c.self),
    "MulBackward1": rule("self", keeps="other", self=lambda c, grad: B.mul_scalar(grad, c.other)),
    "DivBackward0": rule("self, other", saves={"other": "self, other", "self": "other"},
                         self=lambda c, grad: grad / c.other,
                         other=lambda c, grad: -grad * ((c.self / c.other) / c.other)),
    "DivBackward1": rule("self", keeps="other", self=lambda c, grad: B.div_scalar(grad, c.other)),
    "DivBackward2": rule("self, other", saves={"other": "self, other", "self": "other"}, keeps="rounding_mode",
                         self=lambda c, grad: zeros(c, grad) if c.rounding_mode is not None else grad / c.other,
                         other=lambda c, grad: zeros(c, grad) if c.rounding_mode is not None
                         else -grad * ((c.self / c.other) / c.other)),
    "PowBackward0": rule("self", saves="self", keeps="exponent",
                         self=lambda c, grad: pow_backward(grad, c.self, c.exponent)),
    "PowBackward1": rule("self, exponent", saves={"exponent": "self, exponent", "self": "self, exponent"},
                         self=lambda c, grad: pow_backward_self(grad, c.self, c.exponent),
                         exponent=lambda c, grad: pow_backward_exponent(grad, c.self, c.exponent, c.result)),
    "PowBackward2": rule("exponent", saves="exponent", keeps="self",
                         exponent=lambda c, grad: pow_backward_scalar_base(grad, c.self, c.exponent, c.result)),
    "RemainderBackward0": rule("self", self=lambda c, grad: grad),
    "RemainderBackward1": rule("self, other", saves={"other": "other", "self": "other"},
                               self=lambda c, grad: grad,
                               other=lambda c, grad: -grad * c.self.div(c.other, rounding_mode="floor")),
    "MaximumBackward0": rule("self, other", saves="other, self",
                             self=lambda c, grad: where(c.self == c.other, B.div_scalar(grad, 2), grad)
                             .masked_fill_(c.self < c.other, 0),
                             other=lambda c, grad: where(c.self == c.other, B.div_scalar(grad, 2), grad)
                             .masked_fill_(c.self > c.other, 0)),
    "MinimumBackward0": rule("self, other", saves="other, self",
                             self=lambda c, grad: where(c.self == c.other, B.div_scalar(grad, 2), grad)
                             .masked_fill_(c.self > c.other, 0),
                             other=lambda c, grad: where(c.self == c.other, B.div_scalar(grad, 2), grad)
                             .masked_fill_(c.self < c.other, 0)),
    "NotImplemented": rule("self, other", not_implemented),
    "WhereBackward0": rule("self, other", saves="condition",
                           self=lambda c, grad: where(c.condition, grad, 0),
                           other=lambda c, grad: where(c.condition, 0, grad)),
    "LerpBackward0": rule("self, end", keeps="weight",
                          self=lambda c, grad: B.mul_scalar(grad, 1 - c.weight),
                          end=lambda c, grad: B.mul_scalar(grad, c.weight)),
    "AddcmulBackward0": rule("self, tensor1, tensor2", saves={"tensor1": "tensor2", "tensor2": "tensor1"},
                             keeps="value",
                             self=lambda c, grad: grad,
                             tensor1=lambda c, grad: grad * B.mul_scalar(c.tensor2, c.value),
                             tensor2=lambda c, grad: grad * B.mul_scalar(c.tensor1, c.value)),
    "AddcdivBackward0": rule("self, tensor1, tensor2", saves={"tensor1": "tensor2", "tensor2": "tensor1, tensor2"},
                             keeps="value",
                             self=lambda c, grad: grad,
                             tensor1=lambda c, grad: grad * B.scalar_div(c.value, c.tensor2),
                             tensor2=lambda c, grad: -grad * (B.mul_scalar(c.tensor1, c.value)
                                                              / (c.tensor2 * c.tensor2))),
    # ------------------------------------------------------------------ unary math
    "NegBackward0": rule("self", self=lambda c, grad: grad.neg()),
    "ExpBackward0": rule("self", saves="result", self=lambda c, grad: grad * c.result),
    "Expm1Backward0": rule("self", saves="result", self=lambda c, grad: grad * B.add_scalar(c.result, 1)),
    "LogBackward0": rule("self", saves="self", self=lambda c, grad: grad.div(c.self)),
    "Log2Backward0": rule("self", saves="self", self=lambda c, grad: grad / B.mul_scalar(c.self, 0.6931471805599453)),
    "Log10Backward0": rule("self", saves="self",
                           self=lambda c, grad: grad / B.mul_scalar(c.self, 2.3025850929940456)),
    "Log1PBackward0": rule("self", saves="self", self=lambda c, grad: grad / B.add_scalar(c.self, 1)),
    "SqrtBackward0": rule("self", saves="result", self=lambda c, grad: grad / B.mul_scalar(c.result, 2)),
    "RsqrtBackward0": rule("self", saves="result", self=lambda c, grad: B.mul_scalar(grad, -0.5) * c.result.pow(3)),
    "ReciprocalBackward0": rule("self", saves="result", self=lambda c, grad: -grad * (c.result * c.result)),
    "AbsBackward0": rule("self", saves="self", self=lambda c, grad: grad * c.self.sgn()),
    # real inputs: torch returns an efficient zero tensor (no graph, no memory); the engine a zeros_like
    "SgnBackward0": rule("self", saves="self, result",
                         self=lambda c, grad: sgn_backward(c.self, grad, c.result) if c.self.dtype.is_complex
                         else zeros_like(c.self)),
    "SinBackward0": rule("self", saves="self", self=lambda c, grad: grad * c.self.cos()),
    "CosBackward0": rule("self", saves="self", self=lambda c, grad: grad * -c.self.sin()),
    "TanBackward0": rule("self", saves="result", self=lambda c, grad: grad * B.add_scalar(c.result.pow(2), 1)),
    "ErfBackward0": rule("self", saves="self",
                         self=lambda c, grad: B.mul_scalar((-c.self.pow(2)).exp(), 2.0 / math.sqrt(math.pi)) * grad),
    "SignBackward0": rule("self", self=zeros),
    "RoundBackward1": rule("self", self=zeros),  # round(decimals=)
    "FloorBackward0": rule("self", self=zeros),
    "CeilBackward0": rule("self", self=zeros),
    "RoundBackward0": rule("self", self=zeros),
    "TruncBackward0": rule("self", self=zeros),
    "ClampBackward1": rule("self", saves="self", keeps="max, min",
                           self=lambda c, grad: clamp_backward(grad, c.self, c.min, c.max)),
    "ClampMinBackward0": rule("self", saves="self", keeps="min",
                              self=lambda c, grad: clamp_backward(grad, c.self, c.min, None)),
    "ClampMaxBackward0": rule("self", saves="self", keeps="max",
                              self=lambda c, grad: clamp_backward(grad, c.self, None, c.max)),
    # ------------------------------------------------------------------ activations, and their backward ops
    "TanhBackward0": rule("self", saves="result", self=lambda c, grad: B.tanh_backward(grad, c.result)),
    "SigmoidBackward0": rule("self", saves="result", self=lambda c, grad: B.sigmoid_backward(grad, c.result)),
    "ReluBackward0": rule("self", saves="result", self=lambda c, grad: B.threshold_backward(grad, c.result, 0)),
    "LeakyReluBackward0": rule("self", saves="self", keeps="negative_slope",
                               self=lambda c, grad: B.leaky_relu_backward(grad, c.self, c.negative_slope, False)),
    "LeakyReluBackward1": rule("self", saves="result", keeps="negative_slope",
                               self=lambda c, grad: B.leaky_relu_backward(grad, c.result, c.negative_slope, True)),
    "GeluBackward0": rule("self", saves="self", keeps="approximate",
                          self=lambda c, grad: B.gelu_backward(grad, c.self, c.approximate)),
    "ThresholdBackward0": rule("self", saves="self", keeps="threshold",
                               self=lambda c, grad: B.threshold_backward(grad, c.self, c.threshold)),
    "ThresholdBackward1": rule("self", saves="self", keeps="threshold",  # threshold_ keeps self from before
                               self=lambda c, grad: B.threshold_backward(grad, c.self, c.threshold)),
    "ThresholdBackwardBackward0": rule("grad_output, self", saves={"self": "grad_output"}, keeps="threshold",
                                       grad_output=lambda c, grad: B.threshold_backward(grad, c.self, c.threshold),
                                       self=zeros),
    "SigmoidBackwardBackward0": rule(
        "grad_output, output", saves={"grad_output": "output", "output": "grad_output, output"},
        grad_output=lambda c, grad: B.sigmoid_backward(grad, c.output),
        output=lambda c, grad: grad * c.grad_output * B.add_scalar(B.mul_scalar(c.output, -2), 1)),
    "TanhBackwardBackward0": rule(
        "grad_output, output", saves={"grad_output": "output", "output": "grad_output, output"},
        grad_output=lambda c, grad: B.tanh_backward(grad, c.output),
        output=lambda c, grad: grad * (B.mul_scalar(c.output, -2) * c.grad_output)),
    "GeluBackwardBackward0": rule(
        "grad_output, self", saves={"grad_output": "self", "self": "grad_output, self"}, keeps="approximate",
        grad_output=lambda c, grad: B.gelu_backward(grad, c.self, c.approximate),
        self=lambda c, grad: gelu_double_backward(grad, c.grad_output, c.self, c.approximate)),
    "LeakyReluBackwardBackward0": rule(
        "grad_output, self", saves={"self": "grad_output"}, keeps="negative_slope",
        grad_output=lambda c, grad: B.leaky_relu_backward(grad, c.self, c.negative_slope, False),
        self=zeros),
}
