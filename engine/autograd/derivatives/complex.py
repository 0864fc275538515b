"""Derivatives of complex views and conversions (engine/ops/complex_ops.py), as torch 2.13's
derivatives.yaml states them: a conjugate or negative view's gradient is the same view of the
gradient, view_as_real's is view_as_complex of it (and back), complex() and polar() split a complex
gradient into real ones."""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule
from engine.ops import backward_ops as B


def polar_backward(c: Any, grad: Any) -> list[Any]:
    """torch's polar_backward: |z|'s gradient is real(conj(g) * sgn(z)), the angle's real(conj(g) * z * 1j)."""
    from engine.ops.complex_ops import real

    grad_conj = grad.conj()
    mask = c.grad_input_mask
    grad_abs = real(grad_conj * c.result.sgn()) if mask[0] else None
    grad_angle = real(grad_conj * B.mul_scalar(c.result, 1j)) if mask[1] else None
    return [grad_abs, grad_angle]


def _view_as_complex(t: Any) -> Any:
    from engine.ops.complex_ops import view_as_complex

    return view_as_complex(t)


def _view_as_real(t: Any) -> Any:
    from engine.ops.complex_ops import view_as_real

    return view_as_real(t)


def _real(t: Any) -> Any:
    from engine.ops.complex_ops import real

    return real(t)


def _imag(t: Any) -> Any:
    from engine.ops.complex_ops import imag

    return imag(t)


DERIVATIVES = {
    "ConjBackward0": rule("self", self=lambda c, grad: grad.conj()),
    "NegViewBackward0": rule("self", self=lambda c, grad: grad.neg()),
    "ConjPhysicalBackward0": rule("self", self=lambda c, grad: grad.conj_physical()),
    "ConjPhysicalBackward1": rule("self", self=lambda c, grad: grad.conj_physical()),
    "ViewAsRealBackward0": rule("self", self=lambda c, grad: _view_as_complex(grad.contiguous())),
    "ViewAsComplexBackward0": rule("self", self=lambda c, grad: _view_as_real(grad.contiguous().resolve_conj())),
    "ComplexBackward0": rule("real, imag", real=lambda c, grad: _real(grad), imag=lambda c, grad: _imag(grad)),
    "PolarBackward0": rule("abs, angle", polar_backward, saves="result"),
}
