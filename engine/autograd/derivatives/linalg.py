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
    """grad @ mat2^H (conj() is the tensor itself for a real mat2, as in torch: no node)."""
    if _column_major(sizes, strides):
        return maybe_multiply(mat2.conj().mm(grad.t()).t(), alpha)
    return maybe_multiply(grad.mm(mat2.t().conj()), alpha)


def mm_mat2_backward(grad: Any, mat1: Any, sizes: tuple[int, ...], strides: tuple[int, ...], alpha: Any) -> Any:
    """mat1^H @ grad."""
    if _column_major(sizes, strides):
        return maybe_multiply(grad.t().mm(mat1.conj()).t(), alpha)
    return maybe_multiply(mat1.t().conj().mm(grad), alpha)


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
                         self=lambda c, grad: grad.bmm(c.mat2.transpose(1, 2).conj()),
                         mat2=lambda c, grad: c.self.transpose(1, 2).conj().bmm(grad)),
    "DotBackward0": rule("self, tensor", saves={"self": "tensor", "tensor": "self"},
                         self=lambda c, grad: grad * c.tensor.conj(),
                         tensor=lambda c, grad: grad * c.self.conj()),
    "MvBackward0": rule("self, vec", saves={"self": "vec", "vec": "self"},
                        self=lambda c, grad: grad.outer(c.vec.conj()),
                        vec=lambda c, grad: c.self.conj().t().mv(grad)),
}


# --------------------------------------------------------------------------- torch.linalg (engine/linalg.py)
# Every formula here is torch's (FunctionsManual's inv, solve, solve_triangular, det, slogdet,
# cholesky, qr, eigh and svd backwards), op for op, so create_graph records torch's graph: a second
# derivative, and the graph pane, show the nodes torch shows.
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


def solve_triangular_backward(c: Any, grad: Any) -> list[Any]:
    """torch's linalg_solve_triangular_backward: gB = A^-H gX (a triangular solve), gA = -gB X^H in A's triangle."""
    from engine import linalg

    a, x, upper, left, unit = c.self, c.result, c.upper, c.left, c.unitriangular
    mask = c.grad_input_mask
    g_b = linalg.solve_triangular(a.mT, grad, upper=not upper, left=left, unitriangular=unit)
    g_a = None
    if mask[0]:
        g_a = -(g_b @ x.mT) if left else -(x.mT @ g_b)
        g_a = g_a.triu(int(unit)) if upper else g_a.tril(-int(unit))
    return [g_a, g_b if mask[1] else None]


def cholesky_backward(grad: Any, factor: Any, upper: bool) -> Any:
    """torch's cholesky_backward (Murray, arXiv 1602.07527): two triangular solves around tril(L^H gL)."""
    from engine import linalg

    if upper:
        factor, grad = factor.mT, grad.mT
    g_a = (factor.mT @ grad).tril()
    g_a = B.mul_scalar(g_a + g_a.tril(-1).mT, 0.5)
    g_a = linalg.solve_triangular(factor.mT, g_a, upper=True, left=True)
    return linalg.solve_triangular(factor, g_a, upper=False, left=False)


def qr_backward(grads: list[Any], q: Any, r: Any) -> Any:
    """torch's linalg_qr_backward for A with at least as many rows as columns, op for op: the
    symmetric part of gR R^H - Q^H gQ (built from its upper triangle, diagonal halved) brought back
    by Q, then a triangular solve with R^H from the right."""
    from engine import linalg

    g_q, g_r = grads
    if q._shape[-2] < r._shape[-1]:
        return _wide_qr_backward(g_q, g_r, q, r)
    if g_q is not None:
        g_a = g_r @ r.mT - q.mT @ g_q if g_r is not None else -(q.mT @ g_q)
    else:
        g_a = g_r @ r.mT
    upper = g_a.triu()
    g_a = upper + upper.mT
    B.mul_scalar_(g_a.diagonal(0, -2, -1), 0.5)
    g_a = q @ g_a
    if g_q is not None:
        g_a = g_a + g_q
    return linalg.solve_triangular(r.mT, g_a, upper=False, left=False)


def _wide_qr_backward(g_q: Any, g_r: Any, q: Any, r: Any) -> Any:
    """torch's linalg_qr_backward for A = Q [X Y] with fewer rows than columns: X's part through a
    triangular solve with X^H, then Q gR added for the whole of A."""
    from engine import linalg
    from engine.ops.indexing import cat

    m, n = q._shape[-2], r._shape[-1]
    if g_q is not None:
        g_a = g_r @ r.mT - q.mT @ g_q if g_r is not None else -(q.mT @ g_q)
    else:
        g_a = g_r @ r.mT
    x = -g_a
    g_a = q @ (x - x.mT).tril()
    g_a = linalg.solve_triangular(r.narrow(-1, 0, m).mT, g_a, upper=False, left=False)
    g_a = cat([g_a, B.new_zeros(g_a, (*g_a._shape[:-1], n - m))], -1)
    return g_a + q @ g_r if g_r is not None else g_a


def eigh_backward(grads: list[Any], w: Any, v: Any) -> Any:
    """torch's linalg_eig_backward for a real symmetric A (is_hermitian), op for op."""
    g_w, g_v = grads
    if g_v is None:  # eigvalsh: V diag(gL) V^H
        return (v * g_w.unsqueeze(-2)) @ v.mT
    vhgv = v.mT @ g_v
    vhgv = B.mul_scalar(vhgv - vhgv.mT, 0.5)  # onto the skew-symmetric matrices
    econj = w.unsqueeze(-2) - w.unsqueeze(-1)
    econj.diagonal(0, -2, -1).fill_(1.0)
    g_a = vhgv.div_(econj)
    if g_w is not None:
        g_a.diagonal(0, -2, -1).copy_(g_w)
    return v @ (g_a @ v.mT)


def svd_backward(grads: list[Any], u: Any, s: Any, vh: Any, full_matrices: bool) -> Any:
    """torch's svd_backward for real A with distinct singular values, op for op (full_matrices: the
    first k columns of U, rows of Vh and of their gradients, as _linalg_svd's entry narrows them)."""
    g_u, g_s, g_vh = grads
    k = s._shape[-1]
    if full_matrices:
        u, vh = u.narrow(-1, 0, k), vh.narrow(-2, 0, k)
        g_u = g_u.narrow(-1, 0, k) if g_u is not None else None
        g_vh = g_vh.narrow(-2, 0, k) if g_vh is not None else None
    m, n = u._shape[-2], vh._shape[-1]
    if g_u is None and g_vh is None:  # svdvals: U diag(gS) Vh
        return u @ (g_s.unsqueeze(-1) * vh) if m >= n else (u * g_s.unsqueeze(-2)) @ vh
    uhgu = _skew(u.mT @ g_u) if g_u is not None else None
    vhgv = _skew(vh @ g_vh.mT) if g_vh is not None else None
    s2 = s * s
    e = s2.unsqueeze(-2) - s2.unsqueeze(-1)
    e.diagonal(0, -2, -1).fill_(1)
    if g_u is not None and g_vh is not None:
        g_a = (uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv) / e
    elif g_u is not None:
        g_a = (uhgu / e) * s.unsqueeze(-2)
    else:
        g_a = s.unsqueeze(-1) * (vhgv / e)
    if g_s is not None:
        g_a = g_a + B.diag_embed(g_s)
    if m > n and g_u is not None:  # U gA + (I - U U^H) gU S^-1, then V^H
        g_a = u @ g_a
        gu_sinv = g_u / s.unsqueeze(-2)
        g_a = g_a + gu_sinv - u @ (u.mT @ gu_sinv)
        return g_a @ vh
    if m < n and g_vh is not None:  # U [gA V^H + S^-1 gVh (I - V V^H)]
        g_a = g_a @ vh
        sinv_gvh = g_vh / s.unsqueeze(-1)
        g_a = g_a + sinv_gvh - (sinv_gvh @ vh.mT) @ vh
        return u @ g_a
    return u @ (g_a @ vh) if m >= n else (u @ g_a) @ vh


def _skew(a: Any) -> Any:
    return a - a.mT


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
    "LinalgSolveTriangularBackward0": rule("self, B", solve_triangular_backward, saves="result, self",
                                           keeps="left, unitriangular, upper"),
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
