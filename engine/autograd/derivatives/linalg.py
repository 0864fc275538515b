"""Derivatives of matrix products (engine/ops/linalg.py), as torch 2.13's derivatives.yaml states them.

mm's backward computes a column-major operand's gradient transposed (`mat2.mm(grad.t()).t()`), so the
gradient of a Linear layer's transposed weight view lands in that weight's layout, as in PyTorch.
matmul needs no entry: it is composite (its graph is views around mm/mv/bmm/dot).
"""

from __future__ import annotations

from typing import Any

from engine.autograd.derivatives import rule
from engine.autograd.derivatives.pointwise import maybe_multiply
from engine.ops import backward_ops as B


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


# --------------------------------------------------------------------------- torch.linalg (engine/linalg.py)
# inv, solve, det, slogdet, svdvals (and svd's S alone) are torch's formulas op for op, so create_graph
# records torch's graph. cholesky, qr, eigh and svd's U / Vh: torch spells them with triangular solves
# (linalg_solve_triangular, which the engine does not have) and its own products; the formulas below
# are the same derivatives with inv/solve and products: values and second derivatives agree, the
# gradient's graph has other nodes.
def _eye(n: int, like: Any) -> Any:
    import engine

    return engine.eye(n, dtype=like.dtype)


def _inv(a: Any) -> Any:
    from engine import linalg

    return linalg.inv(a)


def _scalar_times_matrix(scalar: Any, matrix: Any) -> Any:
    return scalar.unsqueeze(-1).unsqueeze(-1) * matrix


def _times_eye(d: Any, n: int) -> Any:
    """torch's `d.unsqueeze(-1).expand(n).diag_embed()`: d times the n x n identity."""
    return B.diag_embed(d.unsqueeze(-1).expand(*d._shape, n))


def inv_backward(grad: Any, inverse: Any) -> Any:
    inverse_t = inverse.mT
    return -(inverse_t @ (grad @ inverse_t))


def solve_backward(c: Any, grad: Any) -> list[Any]:
    from engine import linalg

    vector = c._vector
    g = grad.unsqueeze(-1) if vector else grad
    grad_b = linalg.solve(c.A.mT, g)
    answer = c.result.unsqueeze(-1) if vector else c.result
    grad_a = -(grad_b @ answer.mT) if c.needs(0) else None
    return [grad_a, (grad_b.squeeze(-1) if vector else grad_b) if c.needs(1) else None]


def cholesky_backward(grad: Any, factor: Any, upper: bool) -> Any:
    if upper:
        factor, grad = factor.mT, grad.mT
    eye = _eye(factor._shape[-1], factor)
    phi = factor.mT @ grad
    phi = phi.tril() - phi * eye * 0.5
    inverse = _inv(factor)
    result = inverse.mT @ (phi @ inverse)
    return (result + result.mT) * 0.5


def qr_backward(grads: list[Any], q: Any, r: Any) -> Any:
    g_q, g_r = grads
    if g_q is None:
        g_q = q * 0
    if g_r is None:
        g_r = r * 0
    from engine import linalg

    m = r @ g_r.mT - g_q.mT @ q
    lower = m.tril(-1)
    copyltu = lower + lower.mT + m * _eye(m._shape[-1], m)
    return _in_column_major(linalg.solve(r, (g_q + q @ copyltu).mT).mT)


def _in_column_major(matrix: Any) -> Any:
    """The layout torch's LAPACK-backed formulas leave their gradient in."""
    return matrix.mT.contiguous().mT


def _off_diagonal_reciprocal(diff: Any) -> Any:
    """1 / diff off the diagonal, 0 on it (diff is 0 there)."""
    eye = _eye(diff._shape[-1], diff)
    return (diff + eye).reciprocal() * (1 - eye)


def eigh_backward(grads: list[Any], w: Any, v: Any) -> Any:
    g_w, g_v = grads
    eye = _eye(w._shape[-1], w)
    inner = None if g_w is None else g_w.unsqueeze(-2) * eye
    if g_v is not None:
        f = _off_diagonal_reciprocal(w.unsqueeze(-2) - w.unsqueeze(-1))
        term = f * (v.mT @ g_v)
        inner = term if inner is None else inner + term
    result = v @ (inner @ v.mT)
    return (result + result.mT) * 0.5


def svd_backward(grads: list[Any], u: Any, s: Any, vh: Any, full_matrices: bool) -> Any:
    """The gradient of A = U diag(S) Vh for real matrices with distinct singular values."""
    g_u, g_s, g_vh = grads
    k = s._shape[-1]
    if g_u is None and g_vh is None:  # singular values only: torch's U diag(gS) Vh, spelled as its svd_backward
        if full_matrices:
            u, vh = u.narrow(-1, 0, k), vh.narrow(-2, 0, k)
        if u._shape[-2] >= vh._shape[-1]:
            return u @ (g_s.unsqueeze(-1) * vh)
        return (u * g_s.unsqueeze(-2)) @ vh
    eye = _eye(k, s)
    u, v = u[..., :k], vh.mT[..., :k]
    inner = None if g_s is None else g_s.unsqueeze(-2) * eye
    sigma = s.unsqueeze(-2) * eye
    f = _off_diagonal_reciprocal(s.unsqueeze(-2) ** 2 - s.unsqueeze(-1) ** 2)
    outside = []  # a non-square A: the parts of gU (gV) outside U's (V's) column span
    if g_u is not None:
        g_u = g_u[..., :k]
        j = f * (u.mT @ g_u)
        term = (j + j.mT) @ sigma
        inner = term if inner is None else inner + term
        if u._shape[-2] > k:
            outside.append(((g_u - u @ (u.mT @ g_u)) / s.unsqueeze(-2)) @ v.mT)
    if g_vh is not None:
        g_v = g_vh.mT[..., :k]
        kk = f * (v.mT @ g_v)
        term = sigma @ (kk + kk.mT)
        inner = term if inner is None else inner + term
        if v._shape[-2] > k:
            outside.append(u @ ((g_v - v @ (v.mT @ g_v)) / s.unsqueeze(-2)).mT)
    result = u @ (inner @ v.mT)
    for term in outside:
        result = result + term
    return result


def _det_backward(c: Any, grad: Any) -> Any:
    """torch's linalg_det_backward for an invertible A (under create_graph): solve(A^H, (g det) I)."""
    from engine import linalg

    return linalg.solve(c.A.mT, _times_eye(grad * c.result, c.A._shape[-1]).mT)


def _slogdet_backward(c: Any, grads: list[Any]) -> Any:
    """torch's slogdet_backward for real A: solve(A^H, g_logabsdet I)."""
    from engine import linalg

    if grads[1] is None:
        return None
    return linalg.solve(c.A.mT, _times_eye(grads[1], c.A._shape[-1]).mT)


def _dist_backward(c: Any, grad: Any) -> Any:
    from engine.autograd.derivatives.reduction import norm_backward

    diff = c.self - c.other
    return norm_backward(grad, diff, float(c.p), c.result, (), True)  # a 0-dim result broadcasts as it is


DERIVATIVES.update({
    "DistBackward0": rule("self, other", saves="other, result, self", keeps="p",
                          self=_dist_backward, other=lambda c, grad: -_dist_backward(c, grad)),
    "LinalgInvExBackward0": rule("A", saves="inverse", A=lambda c, grad: inv_backward(grad, c.inverse)),
    "LinalgDetBackward0": rule("A", saves="A, result", A=_det_backward),
    "LinalgSlogdetBackward0": rule("A", saves="A, sign", grads_list=True, A=_slogdet_backward),
    "LinalgSolveExBackward0": rule("A, B", solve_backward, saves="A, result", keeps="left"),
    "LinalgCholeskyExBackward0": rule("A", saves="L", keeps="upper",
                                      A=lambda c, grad: cholesky_backward(grad, c.L, c.upper)),
    "LinalgQrBackward0": rule("A", saves="Q, R", keeps="mode", grads_list=True,
                              A=lambda c, grads: qr_backward(grads, c.Q, c.R)),
    "LinalgEighBackward0": rule("A", saves="eigenvalues, eigenvectors", grads_list=True,
                                A=lambda c, grads: eigh_backward(grads, c.eigenvalues, c.eigenvectors)),
    "LinalgSvdBackward0": rule("A", saves="S, U, Vh", keeps="full_matrices", grads_list=True,
                               A=lambda c, grads: svd_backward(grads, c.U, c.S, c.Vh, c.full_matrices)),
})


def trace_backward(grad: Any, sizes: tuple[int, ...]) -> Any:
    """torch's trace_backward: zeros, the diagonal's positions filled with grad, viewed as the matrix."""
    import engine

    flat = engine.zeros(sizes[0] * sizes[1], dtype=grad.dtype)
    flat._bump_version()  # at::zeros in a C++ formula is empty().zero_(): version 1, as measured
    positions = engine.arange(0, min(sizes) * (sizes[1] + 1), sizes[1] + 1)  # the diagonal's flat positions
    return flat.index_fill_(0, positions, grad).view(sizes)


DERIVATIVES.update({
    "BaddbmmBackward0": rule("self, batch1, batch2", saves={"batch1": "batch2", "batch2": "batch1"},
                             keeps="alpha, beta",
                             self=lambda c, grad: maybe_multiply(grad, c.beta),
                             batch1=lambda c, grad: maybe_multiply(grad.bmm(c.batch2.transpose(1, 2)), c.alpha),
                             batch2=lambda c, grad: maybe_multiply(c.batch1.transpose(1, 2).bmm(grad), c.alpha)),
    "TraceBackward0": rule("self", keeps="self_sym_sizes", self=lambda c, grad: trace_backward(grad, c.self_sym_sizes)),
})
