"""Derivatives of copies, casts and writes (engine/ops/copying.py, the in-place random ops).

A write that replaces all of self (fill_, zero_, normal_...) passes no gradient to self's old value;
copy_ passes its gradient to the source, cast back to the source's dtype and device, as PyTorch's
CopyBackwards does.
"""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule
from engine.autograd.derivatives.pointwise import zeros
from engine.ops.backward_ops import new_zeros


def _to(grad: Any, dtype: Any, device: Any) -> Any:
    """The gradient in the source's dtype and device; a complex gradient flowing to a real source is
    its real part (torch's _to_copy_backward)."""
    if grad.dtype.is_complex and not dtype.is_complex:
        grad = grad.real
    return grad.to(device, dtype)


DERIVATIVES = {
    "CloneBackward0": rule("self", self=lambda c, grad: grad),
    "ToCopyBackward0": rule("self", self=lambda c, grad: _to(grad, c._dtype, c._device)),
    "CopyBackwards": rule("self, src",
                          self=lambda c, grad: new_zeros(grad, grad._shape),
                          src=lambda c, grad: _to(grad, c._dtype, c._device)),
    "FillBackward2": rule("self", self=zeros),
    "FillBackward3": rule("self, value", self=zeros, value=lambda c, grad: grad.sum()),
    "ZeroBackward0": rule("self", self=zeros),
    "NormalBackward0": rule("self", self=zeros),
    "UniformBackward0": rule("self", self=zeros),
    "BernoulliBackward1": rule("self", self=zeros),  # bernoulli_.Tensor
    "BernoulliBackward2": rule("self", self=zeros),  # bernoulli_.float
    "RandomBackward0": rule("self", self=zeros),  # random_.from
    "RandomBackward1": rule("self", self=zeros),  # random_.to
    "RandomBackward2": rule("self", self=zeros),  # random_()
    "ExponentialBackward0": rule("self", self=zeros),
}
