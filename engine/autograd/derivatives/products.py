"""Derivatives of the products and matrix builders added beside matmul (engine.ops.products,
engine.ops.matrix_builders, engine.ops.cdist): vdot, block_diag, diag_embed, cdist."""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule
from engine.autograd.derivatives.reduction import signed
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
