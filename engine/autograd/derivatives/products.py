"""Derivatives of the products and matrix builders added beside matmul (engine.ops.products,
engine.ops.matrix_builders, engine.ops.cdist, engine.ops.legacy_linalg): vdot, block_diag,
diag_embed, cdist, the old top-level cholesky and pinverse."""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule
from engine.autograd.derivatives.linalg import cholesky_backward
from engine.autograd.derivatives.reduction import signed
from engine.autograd.derivatives.selection import not_implemented
from engine.ops.cdist import _cdist_backward
from engine.ops.matrix_builders import block_sizes

DERIVATIVES = {
    "VdotBackward0": rule("self, other", saves={"other": "self", "self": "other"},
                          self=lambda c, grad: grad.conj() * c.other,
                          other=lambda c, grad: grad * c.self),
}


def block_diag_backward(c: Any, grad: Any) -> list[Any]:
    """Each input's block of the gradient, shaped back as torch's block_diag_backward and sum_to do:
    a vector's row summed over its one row, then viewed as the vector; a 0-dim block squeezed."""
    grads = []
    row = col = 0
    for shape in c._sizes:
        if shape == (0,):
            grads.append(grad.new_zeros((0,)))
            continue
        rows, cols = block_sizes(shape)
        block = grad[row:row + rows, col:col + cols]
        if len(shape) == 1:
            block = block.squeeze(-1)
            if block.ndim == 2:
                block = block.sum([0], keepdim=True).view(shape)
        elif not shape:
            block = block.squeeze(-1).squeeze(-1)
        grads.append(block)
        row, col = row + rows, col + cols
    return grads


DERIVATIVES.update({
    "BlockDiagBackward0": rule("tensors", block_diag_backward),
    "DiagEmbedBackward0": rule("self", keeps="offset, dim1, dim2",
                               self=lambda c, grad: grad.diagonal(signed(c.offset), signed(c.dim1), signed(c.dim2))),
})


def _euclidean_dist_backward(c: Any, grad: Any) -> list[Any]:
    """ATen's _euclidean_dist_backward: both inputs' gradients from one ratio grad / result (0 where
    the distance is 0)."""
    ratio = grad / c.result
    ratio.masked_fill_(c.result == 0, 0)
    return [c.x1 * ratio.sum(-1, True) - ratio.matmul(c.x2),
            c.x2 * ratio.sum(-2, False).unsqueeze(-1) - ratio.mT.matmul(c.x1)]


DERIVATIVES.update({
    "CdistBackward0": rule(
        "x1, x2", saves="x1, x2, result", keeps="p",
        x1=lambda c, grad: _cdist_backward(grad.contiguous(), c.x1, c.x2, c.p, c.result),
        x2=lambda c, grad: _cdist_backward(grad.mT.contiguous(), c.x2, c.x1, c.p, c.result.mT.contiguous())),
    "CdistBackwardBackward0": rule("grad, x1, x2, cdist", x1=not_implemented("_cdist_backward"),
                                   x2=not_implemented("_cdist_backward"), grad=not_implemented("_cdist_backward"),
                                   cdist=not_implemented("_cdist_backward")),
    "EuclideanDistBackward0": rule("x1, x2", _euclidean_dist_backward, saves="x1, x2, result"),
})


def pinv_backward(grad: Any, pinv: Any, a: Any) -> Any:
    """ATen's pinv_backward, its products ordered to keep the matrices small."""
    m, n = a._shape[-2:]
    pinv_h = pinv.mH
    grad_h = grad.mH
    if m <= n:
        k = grad_h.matmul(pinv)
        k_pinv_h = k.matmul(pinv_h)
        return (-(pinv.matmul(k)).mH + k_pinv_h - (a.matmul(pinv)).matmul(k_pinv_h)
                + (pinv_h.matmul(pinv)).matmul(grad_h - k.matmul(a)))
    k = pinv.matmul(grad_h)
    pinv_h_k = pinv_h.matmul(k)
    return (-(k.matmul(pinv)).mH + (grad_h - a.matmul(k)).matmul(pinv).matmul(pinv_h) + pinv_h_k
            - pinv_h_k.matmul(pinv).matmul(a))


DERIVATIVES.update({
    "CholeskyBackward0": rule("self", saves="result", keeps="upper",
                              self=lambda c, grad: cholesky_backward(grad, c.result, c.upper)),
    "LinalgPinvBackward0": rule("self", saves="self, result", self=lambda c, grad: pinv_backward(grad, c.result, c.self)),
})
