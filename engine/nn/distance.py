"""Distances and normalisation: F.normalize, F.cosine_similarity, F.pairwise_distance.

All three are composites in torch (Python for normalize, ATen for the other two), so they are composed
of the same ops here and record the same nodes: normalize divides by a clamped linalg_vector_norm,
cosine_similarity divides each operand by its own (cloned, then clamped without grad) norm before the
product, and pairwise_distance takes at::norm of x1 - x2 + eps (NormBackward1, whose rule is in
engine/autograd/derivatives/reduction.py).
"""

from __future__ import annotations

import numpy as np

from engine import geometry
from engine.ops import backward_ops as B
from engine.ops import pointwise as pw
from engine.ops import reduction, views
from engine.ops.core import record, result_type
from engine.tensor import Tensor

__all__ = ["cosine_similarity", "normalize", "pairwise_distance"]


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,  # noqa: A002 - torch's names
              out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p along dim, eps)."""
    if out is None:
        denom = views.expand_as(pw.clamp_min(reduction.norm(input, p, dim, keepdim=True), eps), input)
        return pw.div(input, denom)
    denom = views.expand_as(pw.clamp_min_(reduction.norm(input, p, dim, keepdim=True), eps), input)
    return pw.div(input, denom, out=out)


def _expanded(x1: Tensor, x2: Tensor) -> tuple[Tensor, Tensor]:
    """ATen's expand_outplace: both operands expanded (both ExpandBackward0) unless their shapes agree."""
    if x1._shape == x2._shape:
        return x1, x2
    shape = geometry.broadcast_shapes(x1._shape, x2._shape)
    return views.expand(x1, shape), views.expand(x2, shape)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    from engine.autograd import grad_mode
    from engine.ops.copying import clone

    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common.short}")
    x1, x2 = (t.to(common) if not t.dtype.is_floating_point else t for t in (x1, x2))
    x1, x2 = _expanded(x1, x2)
    x1_norm = clone(reduction.norm(x1, 2, dim, keepdim=True))
    x2_norm = clone(reduction.norm(x2, 2, dim, keepdim=True))
    with grad_mode.no_grad():
        pw.clamp_min_(x1_norm, eps)
        pw.clamp_min_(x2_norm, eps)
    right = pw.div(x2, x2_norm)  # ATen's `(x1 / n1) * (x2 / n2)` evaluates its right operand first
    return pw.mul(pw.div(x1, x1_norm), right).sum(dim)


def _at_norm(self: Tensor, p: float, dim: int, keepdim: bool) -> Tensor:
    """at::norm(self, p, dim, keepdim): a vector norm recorded as NormBackward1."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {self.dtype.short} "
                           "instead.")
    dims = (geometry.wrap_dim(dim, max(self.ndim, 1)),) if self.ndim else ()
    value = reduction._vector_norm(self._numpy_view().astype(np.float64), float(p), dims, keepdim)
    out = Tensor._wrap(np.array(value, dtype=self.dtype.np, order="C"), self.dtype)
    record("NormBackward1", out, (self,), save={"self": self}, save_outputs={"result": out},
           values={"dim": reduction.saved_dims((dim,)), "keepdim": keepdim, "p": float(p)})
    return out


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p over the last dim."""
    innermost = max(x1.ndim, x2.ndim) - 1
    difference = B.add_scalar(pw.sub(x1, x2), eps)
    return _at_norm(difference, p, innermost, keepdim)
