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
from engine.autograd.node import RAW_OUTPUT, unpack_raw
from engine.ops import backward_ops as B
from engine.ops.factories import zeros_like
from engine.ops.pointwise import where
from engine.tensor import Tensor


def _conj(x: Any) -> Any:
    """A formula's `x.conj()`: a complex operand's conjugate (a view); a real one, or a number, as it is."""
    if isinstance(x, complex):
        return x.conjugate()
    return x.conj() if hasattr(x, "_vc") and x.dtype.is_complex else x


def maybe_multiply(t: Any, s: Any) -> Any:
    return t if s == 1 else B.mul_scalar(t, s)


def _add_direct(node: Any, grad: Any, mask: tuple[bool, ...]) -> list[Any] | None:
    """AddBackward0's formulas for a plain pass (the table's `direct`), `other`'s first."""
    values = node._values
    if values is None or len(mask) != 2 or "alpha" not in values:
        return None
    alpha = values["alpha"]
    other = (grad if alpha == 1 else B.mul_scalar(grad, alpha)) if mask[1] else None  # maybe_multiply
    return [grad if mask[0] else None, other]


def _mul_direct(node: Any, grad: Any, mask: tuple[bool, ...]) -> list[Any] | None:
    """MulBackward0's formulas for a plain pass (the table's `direct`): both saves checked first (as
    unpack_raw checks them: there, as saved, and an input not a leaf still having its history),
    then `other`'s formula, then `self`'s. A field the op did not keep reads as None, as from the
    Context."""
    raw = node._raw
    if raw is None or len(mask) != 2:
        return None
    x = y = None
    for field, tensor, version, kind in raw:
        if tensor is None or kind is RAW_OUTPUT or tensor._vc.value != version or (tensor._fn is None and not kind):
            return None  # the formulas' unpack says why (or makes the alias of a saved output)
        if field == "self":
            x = tensor
        elif field == "other":
            y = tensor
        else:
            return None
    other = grad * (x if type(x) is Tensor and not x.dtype.is_complex else _conj(x)) if mask[1] else None
    return [grad * (y if type(y) is Tensor and not y.dtype.is_complex else _conj(y)) if mask[0] else None, other]


def _sigmoid_direct(node: Any, grad: Any, mask: tuple[bool, ...]) -> list[Any] | None:
    """SigmoidBackward0's formula for a plain pass (the table's `direct`). The result saved as its
    layout (not yet read) is read through the numpy view it came with, unchanged since (its version
    as saved), without making the alias unpack would make."""
    raw = node._raw
    if raw is None or len(mask) != 1 or len(raw) != 1:
        return None
    payload = raw[0][1]
    if type(payload) is tuple and type(grad) is Tensor:
        storage, _, shape, _, dtype, counter, bits, cache = payload
        if counter.value == raw[0][2] and grad.dtype is dtype and not bits and cache is not None and \
                cache[0] is storage.data:
            return [B.sigmoid_backward_values(grad, cache[1], shape, dtype) if mask[0] else None]
    saved: dict[str, Any] = {}
    if not unpack_raw(node, saved):
        return None
    return [B.sigmoid_backward(grad, saved.get("result")) if mask[0] else None]


def zeros(c: Any, grad: Any) -> Any:
    return zeros_like(grad)


def info_zeros(grad: Any, shape: tuple[int, ...]) -> Any:
    """`zeros_like(x)` of an input x the node does not save (torch keeps its TypeAndSize): at::zeros,
    whose zero_() leaves the new tensor at version 1."""
    t = B.new_zeros(grad, shape)
    t._bump_version()
    return t


def _one_minus(x: Any) -> Any:
    """C++'s `1 - x`: a sub whose first operand is a wrapped number (SubBackward0 with no edge for it)."""
    from engine.ops.factories import scalar_tensor
    from engine.ops.pointwise import sub

    return sub(scalar_tensor(1.0, dtype=x.dtype), x)


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


def atan2_backward(c: Any, grad: Any) -> list[Any]:
    """torch's atan2_backward: both operands' gradients share one reciprocal, zero where it is infinite (at 0, 0)."""
    recip = (c.self * c.self + c.other * c.other).reciprocal()
    recip = recip.masked_fill(recip.isinf(), 0)
    mask = c.grad_input_mask
    return [grad * c.other * recip if mask[0] else None, grad * -c.self * recip if mask[1] else None]


def copysign_tensor_self_backward(grad: Any, self: Any, result: Any) -> Any:
    ratio = result / self
    ratio.masked_fill_(self == 0, 0)
    return grad * ratio


def clamp_backward(grad: Any, self: Any, low: Any, high: Any) -> Any:
    if low is not None and high is not None:
        return where((self >= low).logical_and_(self <= high), grad, _scalar_zero(grad))
    if low is not None:
        return where(self >= low, grad, _scalar_zero(grad))
    if high is not None:
        return where(self <= high, grad, _scalar_zero(grad))
    return grad


def clamp_tensors_backward(c: Any, grad: Any) -> list[Any]:
    """ClampBackward0 (tensor bounds): self's as clamp_backward; a bound's where it wins, torch's
    clamp_backward_min_max (min where self < min < max, max where self > max or max < min)."""
    mask, self, low, high = c.grad_input_mask, c.self, c.min, c.max
    zero = _scalar_zero(grad)
    g_min = g_max = None
    if low is not None and high is not None:
        if mask[1]:
            g_min = where((self < low).logical_and(low < high), grad, zero)
        if mask[2]:
            g_max = where((self > high).logical_or(high < low), grad, zero)
    elif low is not None and mask[1]:
        g_min = where(self < low, grad, zero)
    elif high is not None and mask[2]:
        g_max = where(self > high, grad, zero)
    return [clamp_backward(grad, self, low, high) if mask[0] else None, g_min, g_max]


def sgn_backward(self: Any, grad: Any, sgn: Any) -> Any:
    """torch's sgn_backward (complex input): (g - sgn * sgn * conj(g)) / (2 |x|), 0 where x is 0."""
    magnitude = self.abs()
    return ((grad - (sgn * sgn) * grad.conj()) / B.mul_scalar(magnitude, 2.0)).masked_fill_(magnitude == 0.0, 0.0)


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


def silu_backward(grad: Any, self: Any) -> Any:
    """infinitely_differentiable_silu_backward: grad * s * (1 + x * (1 - s)), s = sigmoid(x)."""
    sigmoid = self.sigmoid()
    return grad * sigmoid * B.add_scalar(self * B.scalar_rsub(1, sigmoid), 1)


def mish_backward(grad: Any, self: Any) -> Any:
    """infinitely_differentiable_mish_backward: grad * (t + x * s * (1 - t * t)), t = tanh(softplus(x))."""
    sigmoid = self.sigmoid()
    tanh_softplus = self.exp().log1p().tanh()
    return grad * (tanh_softplus + self * sigmoid * B.scalar_rsub(1, tanh_softplus * tanh_softplus))


def softplus_double_backward(grad: Any, self: Any, beta: float, threshold: float) -> Any:
    x = B.mul_scalar(self, beta)
    return B.mul_scalar(B.sigmoid_backward(grad, x.sigmoid()) * (x < threshold).to(grad.dtype), beta)


def elu_double_backward(grad: Any, grad_output: Any, alpha: float, scale: float, input_scale: float,
                        is_result: bool, self_or_result: Any) -> Any:
    negative = (self_or_result < 0).to(grad.dtype)
    if is_result:
        return B.mul_scalar(grad * grad_output, input_scale) * negative
    return B.elu_backward(B.mul_scalar(grad * grad_output, input_scale), alpha, scale, input_scale, is_result,
                          self_or_result) * negative


def hardswish_double_backward(grad: Any, grad_output: Any, self: Any) -> Any:
    inside = (self > -3.0).logical_and(self < 3.0)
    return where(inside, B.div_scalar(grad * grad_output, 3.0), _scalar_zero(grad))


def log_sigmoid_double_backward(grad: Any, self: Any) -> Any:
    z = self.sigmoid()
    return grad * B.sub_scalar(z, 1) * z


def glu_double_backward_grad_output(grad: Any, self: Any, dim: int) -> Any:
    from engine.ops.factories import full

    sizes = list(self.shape)
    sizes[dim] //= 2
    tmp = grad * B.glu_backward(full(sizes, 1.0, dtype=self.dtype), self, dim)
    return tmp.narrow(dim, 0, sizes[dim]) + tmp.narrow(dim, sizes[dim], sizes[dim])


def glu_double_backward(grad: Any, grad_output: Any, self: Any, dim: int) -> Any:
    from engine.ops.indexing import cat

    half = self.shape[dim] // 2
    first_half, second_half = self.narrow(dim, 0, half), self.narrow(dim, half, half)
    sig_second_half = second_half.sigmoid()
    one_sub_sig_second_half = B.scalar_rsub(1, sig_second_half)
    sig_one_sub_sig = sig_second_half * one_sub_sig_second_half
    gg_first_half, gg_second_half = grad.narrow(dim, 0, half), grad.narrow(dim, half, half)
    gi_first_half = gg_second_half * grad_output * sig_one_sub_sig
    second_order_sh = sig_one_sub_sig * one_sub_sig_second_half - sig_second_half * sig_one_sub_sig
    gi_second_half = (gg_second_half * first_half * grad_output * second_order_sh
                      + gg_first_half * grad_output * sig_one_sub_sig)
    return cat([gi_first_half, gi_second_half], dim)


def prelu_double_backward(c: Any, grads: list[Any]) -> list[Any]:
    """_prelu_kernel_backward's derivatives (the weight's has self's shape; the engine sums it to the weight's)."""
    g_input, g_weight = grads
    self, weight, grad_output = c.self, c.weight, c.grad_output
    mask = c.grad_input_mask
    positive = self >= 0
    zero = _scalar_zero(grad_output)
    go = gs = gw = None
    if mask[0]:
        if g_input is not None:
            negative = g_input * weight if g_weight is None else g_input * weight + g_weight * self
            go = where(positive, g_input, negative)
        else:
            go = where(positive, zero, g_weight * self)
    if mask[1]:
        gs = where(positive, zero, grad_output * g_weight) if g_weight is not None else zeros_like(self)
    if mask[2]:
        gw = where(positive, zero, grad_output * g_input) if g_input is not None else zeros_like(self)
    return [go, gs, gw]


def _xlogy(x: Any, y: Any) -> Any:
    from engine.ops.special import xlogy

    return xlogy(x, y)


def logit_backward(grad: Any, self: Any, eps: float | None) -> Any:
    """torch's infinitely_differentiable_logit_backward (create_graph), else its logit_backward kernel, with
    the same values: grad / (x (1 - x)) inside [eps, 1 - eps] (0 outside), or inside [0, 1] (NaN outside)
    without eps. The kernel takes a negative eps for none; the composite takes it at its word."""
    from engine.autograd import grad_mode
    from engine.ops.core import scalar_tensor

    if eps is not None and (eps >= 0 or grad_mode.state.enabled):
        low, high, outside = eps, 1.0 - eps, 0.0
    else:
        low, high, outside = 0.0, 1.0, math.nan
    inside = (self >= low).logical_and(self <= high)
    return where(inside, grad / (self * _one_minus(self)), scalar_tensor(outside, self.dtype))


def _polygamma(n: int, x: Any) -> Any:
    from engine.ops.gamma import polygamma

    return polygamma(n, x)


def _pow2(exponent: Any) -> Any:
    from engine.ops.pointwise import pow as power

    return power(2, exponent)


def _cross(a: Any, b: Any, dim: int) -> Any:
    from engine.ops.special import linalg_cross

    return linalg_cross(a, b, dim=dim)


def not_implemented(c: Any, grad: Any) -> Any:
    raise RuntimeError(f"derivative for aten::{c._op} is not implemented")


DERIVATIVES = {
    # ------------------------------------------------------------------ arithmetic
    "AddBackward0": rule("self, other", keeps="alpha",
                         self=lambda c, grad: grad,
                         other=lambda c, grad: maybe_multiply(grad, c.alpha), direct=_add_direct),
    "AddBackward1": rule("self", self=lambda c, grad: grad),
    "SubBackward0": rule("self, other", keeps="alpha",
                         self=lambda c, grad: grad,
                         other=lambda c, grad: maybe_multiply(-grad, c.alpha)),
    "SubBackward1": rule("self", self=lambda c, grad: grad),
    "RsubBackward0": rule("self, other", keeps="alpha",
                          self=lambda c, grad: maybe_multiply(-grad, c.alpha),
                          other=lambda c, grad: grad),
    "RsubBackward1": rule("self", keeps="alpha", self=lambda c, grad: maybe_multiply(-grad, c.alpha)),
    # the .conj() of a complex operand (a real tensor is its own conjugate: no node, no copy)
    "MulBackward0": rule("self, other", saves={"other": "self", "self": "other"},
                         self=lambda c, grad: grad * _conj(c.other),
                         other=lambda c, grad: grad * _conj(c.self), direct=_mul_direct),
    "MulBackward1": rule("self", keeps="other", self=lambda c, grad: B.mul_scalar(grad, _conj(c.other))),
    "DivBackward0": rule("self, other", saves={"other": "self, other", "self": "other"},
                         self=lambda c, grad: grad / _conj(c.other),
                         other=lambda c, grad: -grad * _conj((c.self / c.other) / c.other)),
    "DivBackward1": rule("self", keeps="other", self=lambda c, grad: B.div_scalar(grad, c.other)),
    "DivBackward2": rule("self, other", saves={"other": "self, other", "self": "other"}, keeps="rounding_mode",
                         self=lambda c, grad: zeros(c, grad) if c.rounding_mode is not None else grad / c.other,
                         other=lambda c, grad: zeros(c, grad) if c.rounding_mode is not None
                         else -grad * ((c.self / c.other) / c.other)),
    "PowBackward0": rule("self", saves="self", keeps="exponent",
                         self=lambda c, grad: pow_backward(grad, c.self, c.exponent)),
    "PowBackward1": rule("self, exponent", saves={"exponent": "self, exponent", "result": "exponent",
                                                  "self": "self, exponent"},
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
    "FmodBackward0": rule("self", self=lambda c, grad: grad),
    "FmodBackward1": rule("self, other", saves={"other": "other", "self": "other"},
                          self=lambda c, grad: grad,
                          other=lambda c, grad: -grad * c.self.div(c.other, rounding_mode="trunc")),
    "Atan2Backward0": rule("self, other", atan2_backward, saves="other, self"),
    "HypotBackward0": rule("self, other", saves={"other": "other", "result": "self, other", "self": "self"},
                           self=lambda c, grad: grad * c.self / c.result,
                           other=lambda c, grad: grad * c.other / c.result),
    "FmaxBackward0": rule("self, other", saves="other, self",
                          self=lambda c, grad: grad.masked_fill(~(c.self >= c.other).logical_or_(c.other.isnan()), 0),
                          other=lambda c, grad: grad.masked_fill((c.self >= c.other).logical_or_(c.other.isnan()), 0)),
    "FminBackward0": rule("self, other", saves="other, self",
                          self=lambda c, grad: grad.masked_fill(~(c.self <= c.other).logical_or_(c.other.isnan()), 0),
                          other=lambda c, grad: grad.masked_fill((c.self <= c.other).logical_or_(c.other.isnan()), 0)),
    "CopysignBackward0": rule("self, other", saves={"result": "self", "self": "self"}, keeps="_other_info",
                              self=lambda c, grad: copysign_tensor_self_backward(grad, c.self, c.result),
                              other=lambda c, grad: info_zeros(grad, c._other_info)),
    "CopysignBackward1": rule("self", saves="result, self",
                              self=lambda c, grad: copysign_tensor_self_backward(grad, c.self, c.result)),
    "NotImplemented": rule("self, other", not_implemented),
    # comparisons written in place (x.lt_(y)): 0/1 in self's dtype, flat almost everywhere
    **{f"{op}Backward0": rule("self", self=lambda c, grad: info_zeros(grad, grad._shape))
       for op in ("Eq", "Ne", "Lt", "Le", "Gt", "Ge")},
    **{f"{op}Backward1": rule("self, other", keeps="_other_info", self=lambda c, grad: info_zeros(grad, grad._shape),
                              other=lambda c, grad: info_zeros(grad, c._other_info))
       for op in ("Eq", "Ne", "Lt", "Le", "Gt", "Ge")},
    "WhereBackward0": rule("self, other", saves="condition",
                           self=lambda c, grad: where(c.condition, grad, 0),
                           other=lambda c, grad: where(c.condition, 0, grad)),
    "LerpBackward0": rule("self, end", keeps="weight",
                          self=lambda c, grad: B.mul_scalar(grad, 1 - c.weight),
                          end=lambda c, grad: B.mul_scalar(grad, c.weight)),
    "LerpBackward1": rule("self, end, weight", saves={"end": "weight", "self": "weight", "weight": "self, end"},
                          self=lambda c, grad: grad * _one_minus(c.weight),
                          end=lambda c, grad: grad * c.weight,
                          weight=lambda c, grad: grad * (c.end - c.self)),
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
    "AsinBackward0": rule("self", saves="self", self=lambda c, grad: grad * B.add_scalar(-c.self * c.self, 1).rsqrt()),
    "AcosBackward0": rule("self", saves="self",
                          self=lambda c, grad: grad * -B.add_scalar(-c.self * c.self, 1).rsqrt()),
    "AtanBackward0": rule("self", saves="self", self=lambda c, grad: grad / B.add_scalar(c.self * c.self, 1)),
    "SinhBackward0": rule("self", saves="self", self=lambda c, grad: grad * c.self.cosh()),
    "CoshBackward0": rule("self", saves="self", self=lambda c, grad: grad * c.self.sinh()),
    "AsinhBackward0": rule("self", saves="self", self=lambda c, grad: grad * B.add_scalar(c.self.pow(2), 1).rsqrt()),
    "AcoshBackward0": rule("self", saves="self", self=lambda c, grad: grad * B.sub_scalar(c.self * c.self, 1).rsqrt()),
    "AtanhBackward0": rule("self", saves="self", self=lambda c, grad: B.mul_scalar(grad, 1) / _one_minus(c.self.pow(2))),
    "ErfcBackward0": rule("self", saves="self",
                          self=lambda c, grad: B.mul_scalar((-c.self.pow(2)).exp(), -2.0 / math.sqrt(math.pi)) * grad),
    "Exp2Backward0": rule("self", saves="result", self=lambda c, grad: B.mul_scalar(grad * c.result, math.log(2))),
    "FracBackward0": rule("self", self=lambda c, grad: grad),
    "SignBackward0": rule("self", self=zeros),
    "RoundBackward1": rule("self", self=zeros),  # round(decimals=)
    "FloorBackward0": rule("self", self=zeros),
    "CeilBackward0": rule("self", self=zeros),
    "RoundBackward0": rule("self", self=zeros),
    "TruncBackward0": rule("self", self=zeros),
    "ClampBackward1": rule("self", saves="self", keeps="max, min",
                           self=lambda c, grad: clamp_backward(grad, c.self, c.min, c.max)),
    "ClampBackward0": rule("self, min, max", clamp_tensors_backward, saves="max, min, self"),
    "ClampMinBackward1": rule("self, min", saves="min, self",
                              self=lambda c, grad: where(c.self >= c.min, grad, _scalar_zero(grad)),
                              min=lambda c, grad: where(c.self < c.min, grad, _scalar_zero(grad))),
    "ClampMaxBackward1": rule("self, max", saves="max, self",
                              self=lambda c, grad: where(c.self <= c.max, grad, _scalar_zero(grad)),
                              max=lambda c, grad: where(c.self > c.max, grad, _scalar_zero(grad))),
    "ClampMinBackward0": rule("self", saves="self", keeps="min",
                              self=lambda c, grad: clamp_backward(grad, c.self, c.min, None)),
    "ClampMaxBackward0": rule("self", saves="self", keeps="max",
                              self=lambda c, grad: clamp_backward(grad, c.self, None, c.max)),
    # ------------------------------------------------------------------ activations, and their backward ops
    "TanhBackward0": rule("self", saves="result", self=lambda c, grad: B.tanh_backward(grad, c.result)),
    "SigmoidBackward0": rule("self", saves="result", self=lambda c, grad: B.sigmoid_backward(grad, c.result),
                             direct=_sigmoid_direct),
    "ReluBackward0": rule("self", saves="result", self=lambda c, grad: B.threshold_backward(grad, c.result, 0)),
    "LeakyReluBackward0": rule("self", saves="self", keeps="negative_slope",
                               self=lambda c, grad: B.leaky_relu_backward(grad, c.self, c.negative_slope, False)),
    "LeakyReluBackward1": rule("self", saves="result", keeps="negative_slope",
                               self=lambda c, grad: B.leaky_relu_backward(grad, c.result, c.negative_slope, True)),
    "GeluBackward0": rule("self", saves="self", keeps="approximate",
                          self=lambda c, grad: B.gelu_backward(grad, c.self, c.approximate)),
    "HardtanhBackward0": rule("self", saves="self", keeps="max_val, min_val",  # hardtanh_ saves a clone of self
                              self=lambda c, grad: B.hardtanh_backward(grad, c.self, c.min_val, c.max_val)),
    "HardtanhBackwardBackward0": rule("grad_output, self", saves="self", keeps="max_val, min_val",
                                      grad_output=lambda c, grad: B.hardtanh_backward(grad, c.self, c.min_val,
                                                                                      c.max_val),
                                      self=zeros),
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
    # ------------------------------------------------------------------ more activations (engine/nn/activations.py)
    "SiluBackward0": rule("self", saves="self", self=lambda c, grad: silu_backward(grad, c.self)),
    "MishBackward0": rule("self", saves="self", self=lambda c, grad: mish_backward(grad, c.self)),
    "SoftplusBackward0": rule("self", saves="self", keeps="beta, threshold",
                              self=lambda c, grad: B.softplus_backward(grad, c.self, c.beta, c.threshold)),
    "SoftplusBackwardBackward0": rule(
        "grad_output, self", saves={"grad_output": "self", "self": "grad_output, self"}, keeps="beta, threshold",
        grad_output=lambda c, grad: B.softplus_backward(grad, c.self, c.beta, c.threshold),
        self=lambda c, grad: softplus_double_backward(grad * c.grad_output, c.self, c.beta, c.threshold)),
    "EluBackward0": rule("self", saves="self", keeps="alpha, input_scale, scale",
                         self=lambda c, grad: B.elu_backward(grad, c.alpha, c.scale, c.input_scale, False, c.self)),
    "EluBackward1": rule("self", saves="result", keeps="alpha, input_scale, scale",
                         self=lambda c, grad: B.elu_backward(grad, c.alpha, c.scale, c.input_scale, True, c.result)),
    "CeluBackward0": rule("self", saves="self", keeps="alpha",
                          self=lambda c, grad: B.elu_backward(grad, c.alpha, 1, 1.0 / c.alpha, False, c.self)),
    "CeluBackward1": rule("self", saves="result", keeps="alpha",
                          self=lambda c, grad: B.elu_backward(grad, c.alpha, 1, 1.0 / c.alpha, True, c.result)),
    "EluBackwardBackward0": rule(
        "grad_output, self_or_result", saves={"grad_output": "self_or_result", "self_or_result": "grad_output, self_or_result"},
        keeps="alpha, input_scale, is_result, scale",
        grad_output=lambda c, grad: B.elu_backward(grad, c.alpha, c.scale, c.input_scale, c.is_result,
                                                   c.self_or_result),
        self_or_result=lambda c, grad: elu_double_backward(grad, c.grad_output, c.alpha, c.scale, c.input_scale,
                                                           c.is_result, c.self_or_result)),
    "HardswishBackward0": rule("self", saves="self", self=lambda c, grad: B.hardswish_backward(grad, c.self)),
    "HardswishBackwardBackward0": rule(
        "grad_output, self", saves={"grad_output": "self", "self": "grad_output, self"},
        grad_output=lambda c, grad: B.hardswish_backward(grad, c.self),
        self=lambda c, grad: hardswish_double_backward(grad, c.grad_output, c.self)),
    # hardsigmoid_backward's own derivative is not implemented in torch (its node is NotImplemented)
    "HardsigmoidBackward0": rule("self", saves="self", self=lambda c, grad: B.hardsigmoid_backward(grad, c.self)),
    "LogSigmoidBackward0": rule("self", saves="self, buffer",
                                self=lambda c, grad: B.log_sigmoid_backward(grad, c.self, c.buffer)),
    "LogSigmoidBackwardBackward0": rule(
        "grad_output, self", saves="buffer, grad_output, self",
        grad_output=lambda c, grad: B.log_sigmoid_backward(grad, c.self, c.buffer),
        self=lambda c, grad: log_sigmoid_double_backward(grad * c.grad_output, c.self)),
    "GluBackward0": rule("self", saves="self", keeps="dim", self=lambda c, grad: B.glu_backward(grad, c.self, c._dim)),
    "GluBackwardBackward0": rule(
        "grad_output, self", saves="grad_output, self", keeps="dim",
        grad_output=lambda c, grad: glu_double_backward_grad_output(grad, c.self, c._dim),
        self=lambda c, grad: glu_double_backward(grad, c.grad_output, c.self, c._dim)),
    "PreluKernelBackward0": rule("self, weight", lambda c, grad: B.prelu_kernel_backward(grad, c.self, c.weight),
                                 saves="self, weight"),
    "PreluKernelBackwardBackward0": rule("grad_output, self, weight", prelu_double_backward,
                                         saves="grad_output, self, weight"),
    # ------------------------------------------------------------------ special functions (engine/ops/special.py)
    "XlogyBackward0": rule("self, other", saves="other, self",
                           self=lambda c, grad: _xlogy(grad, c.other).masked_fill((c.self == 0.0) & (c.other <= 0.0), 0.0),
                           other=lambda c, grad: grad * c.self / c.other),
    "XlogyBackward1": rule("other", saves="other", keeps="self",
                           other=lambda c, grad: B.mul_scalar(grad, c.self) / c.other),
    "XlogyBackward2": rule("self", saves="self", keeps="other",
                           self=lambda c, grad: _xlogy(grad, c.other) if c.other > 0
                           else _xlogy(grad, c.other).masked_fill(c.self == 0.0, 0.0)),
    "LogaddexpBackward0": rule("self, other", saves="other, self",
                               self=lambda c, grad: grad / B.add_scalar((c.other - c.self).exp(), 1),
                               other=lambda c, grad: grad / B.add_scalar((c.self - c.other).exp(), 1)),
    "Logaddexp2Backward0": rule("self, other", saves="other, self",
                                self=lambda c, grad: grad / B.add_scalar(_pow2(c.other - c.self), 1),
                                other=lambda c, grad: grad / B.add_scalar(_pow2(c.self - c.other), 1)),
    "NanToNumBackward0": rule("self", saves="self", self=lambda c, grad: grad * c.self.isfinite()),
    "LogitBackward0": rule("self", saves="self", keeps="eps", self=lambda c, grad: logit_backward(grad, c.self, c.eps)),
    "LinalgCrossBackward0": rule("self, other", saves={"other": "self", "self": "other"}, keeps="dim",
                                 self=lambda c, grad: _cross(c.other, grad, c.dim),
                                 other=lambda c, grad: _cross(grad, c.self, c.dim)),
    "ErfinvBackward0": rule("self", saves="self",
                            self=lambda c, grad: B.mul_scalar(c.self.erfinv().pow(2).exp(), 0.5 * math.sqrt(math.pi))
                            * grad),
    "LgammaBackward0": rule("self", saves="self", self=lambda c, grad: grad * c.self.digamma()),
    "DigammaBackward0": rule("self", saves="self", self=lambda c, grad: grad * _polygamma(1, c.self)),
    "PolygammaBackward0": rule("self", saves="self", keeps="n", self=lambda c, grad: grad * _polygamma(c.n + 1, c.self)),
    "HardshrinkBackward0": rule("self", saves="self", keeps="lambd",
                                self=lambda c, grad: B.shrink_backward(grad, c.self, c.lambd,
                                                                       "HardshrinkBackwardBackward0")),
    "SoftshrinkBackward0": rule("self", saves="self", keeps="lambd",
                                self=lambda c, grad: B.shrink_backward(grad, c.self, c.lambd,
                                                                       "SoftshrinkBackwardBackward0")),
    "HardshrinkBackwardBackward0": rule(
        "grad_out, self", saves={"self": "grad_out"}, keeps="lambd", self=zeros,
        grad_out=lambda c, grad: B.shrink_backward(grad, c.self, c.lambd, "HardshrinkBackwardBackward0")),
    "SoftshrinkBackwardBackward0": rule(
        "grad_output, self", saves={"self": "grad_output"}, keeps="lambd", self=zeros,
        grad_output=lambda c, grad: B.shrink_backward(grad, c.self, c.lambd, "SoftshrinkBackwardBackward0")),
}
