"""Derivatives of matrix products (engine/ops/linalg.py), as torch 2.13's derivatives.yaml states them.

mm's backward computes a column-major operand's gradient transposed (`mat2.mm(grad.t()).t()`), so the
gradient of a Linear layer's transposed weight view lands in that weight's layout, as in PyTorch.
matmul needs no entry: it is composite (its graph is views around mm/mv/bmm/dot).
"""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule
from engine.autograd.derivatives.pointwise import maybe_multiply


def _column_major(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    return strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(grad: Any, mat2: Any, sizes: tuple[int, ...], strides: tuple[int, ...], alpha: Any) -> Any:
    if _column_major(sizes, strides):
        return maybe_multiply(mat2.mm(grad.t()).t(), alpha)
    return maybe_multiply(grad.mm(mat2.t()), alpha)


def mm_mat2_backward(grad: Any, mat1: Any, sizes: tuple[int, ...], strides: tuple[int, ...], alpha: Any) -> Any:
    if _column_major(sizes, strides):
        return maybe_multiply(grad.t().mm(mat1).t(), alpha)
    return maybe_multiply(mat1.t().mm(grad), alpha)


DERIVATIVES = {
    "MmBackward0": rule("self, mat2", saves={"mat2": "self", "self": "mat2"},
                        keeps="mat2_sym_sizes, mat2_sym_strides, self_sym_sizes, self_sym_strides",
                        self=lambda c, grad: mm_mat1_backward(grad, c.mat2, c.self_sym_sizes, c.self_sym_strides, 1),
                        mat2=lambda c, grad: mm_mat2_backward(grad, c.self, c.mat2_sym_sizes, c.mat2_sym_strides, 1)),
    "AddmmBackward0": rule("self, mat1, mat2", saves={"mat1": "mat2", "mat2": "mat1"},
                           keeps="alpha, beta, mat1_sym_sizes, mat1_sym_strides, mat2_sym_sizes, mat2_sym_strides",
                           self=lambda c, grad: maybe_multiply(grad, c.beta),
                           mat1=lambda c, grad: mm_mat1_backward(grad, c.mat2, c.mat1_sym_sizes, c.mat1_sym_strides,
                                                                 c.alpha),
                           mat2=lambda c, grad: mm_mat2_backward(grad, c.mat1, c.mat2_sym_sizes, c.mat2_sym_strides,
                                                                 c.alpha)),
    "BmmBackward0": rule("self, mat2", saves={"mat2": "self", "self": "mat2"},
                         self=lambda c, grad: grad.bmm(c.mat2.transpose(1, 2)),
                         mat2=lambda c, grad: c.self.transpose(1, 2).bmm(grad)),
    "DotBackward0": rule("self, tensor", saves={"self": "tensor", "tensor": "self"},
                         self=lambda c, grad: grad * c.tensor,
                         tensor=lambda c, grad: grad * c.self),
    "MvBackward0": rule("self, vec", saves={"self": "vec", "vec": "self"},
                        self=lambda c, grad: grad.outer(c.vec),
                        vec=lambda c, grad: c.self.t().mv(grad)),
}
