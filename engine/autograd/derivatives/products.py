"""Derivatives of the products and matrix builders added beside matmul (engine.ops.products,
engine.ops.matrix_builders, engine.ops.cdist, engine.ops.legacy_linalg): vdot, block_diag,
diag_embed, cdist, the old top-level cholesky, pinverse and lu."""

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


def _lu_unpack(lu: Any, pivots: Any) -> tuple[Any, Any, Any]:
    """P, L and U of a packed LU factorisation, L and U in engine ops (their graph records under
    create_graph), P a constant."""
    import engine
    from engine.ops.legacy_linalg import unpacked

    m, n = lu._shape[-2:]
    k = min(m, n)
    lower = lu[..., :, :k].tril(-1) + engine.eye(m, k, dtype=lu.dtype)
    upper = lu[..., :k, :].triu()
    return engine.tensor(unpacked(lu._numpy_view(), pivots._numpy_view())[0]), lower, upper


def linalg_lu_backward(l_grad: Any, u_grad: Any, p: Any, lower: Any, upper: Any) -> Any:
    """ATen's linalg_lu_backward (with pivoting): square, wide (m < n) and tall (m > n) cases (an output
    without a gradient counts as a zero one)."""
    import engine

    l_grad = engine.zeros_like(lower) if l_grad is None else l_grad
    u_grad = engine.zeros_like(upper) if u_grad is None else u_grad
    solve = engine.linalg.solve_triangular
    m, n = lower._shape[-2], upper._shape[-1]
    k = min(m, n)
    if m == n:
        grad = lower.mH.matmul(l_grad).tril(-1) + u_grad.matmul(upper.mH).triu()
        grad = solve(upper.mH, grad, upper=False, left=False)
        grad = solve(lower.mH, grad, upper=True, left=True, unitriangular=True)
        return p.matmul(grad)
    if m < n:
        u1, u1_grad, u2_grad = upper.narrow(-1, 0, k), u_grad.narrow(-1, 0, k), u_grad.narrow(-1, k, n - k)
        grad = lower.mH.matmul(l_grad) - u_grad.triu().matmul(upper.mH)
        grad = solve(u1.mH, grad.tril(-1), upper=False, left=False)
        grad = engine.cat([grad + u1_grad.triu(), u2_grad], -1)
        grad = solve(lower.mH, grad, upper=True, left=True, unitriangular=True)
        return p.matmul(grad)
    l1, l1_grad, l2_grad = lower.narrow(-2, 0, k), l_grad.narrow(-2, 0, k), l_grad.narrow(-2, k, m - k)
    grad = u_grad.matmul(upper.mH) - lower.mH.matmul(l_grad.tril(-1))
    grad = solve(l1.mH, grad.triu(), upper=True, left=True, unitriangular=True)
    grad = engine.cat([grad + l1_grad.tril(-1), l2_grad], -2)
    grad = solve(upper.mH, grad, upper=False, left=False)
    return p.matmul(grad)


def lu_factor_ex_backward(c: Any, grad: Any) -> Any:
    p, lower, upper = _lu_unpack(c.LU, c.pivots)
    m, n = c.LU._shape[-2:]
    k = min(m, n)
    return linalg_lu_backward(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), p, lower, upper)


def lu_unpack_backward(c: Any, grads: list[Any]) -> Any:
    """ATen's lu_unpack_backward: L's gradient below the diagonal, U's on and above it, in LU's shape."""
    import engine

    l_grad, u_grad = grads
    m, n = c.LU_data_sym_argsize_minus_2, c.LU_data_sym_argsize_minus_1
    k = min(m, n)
    l_grad = engine.zeros(l_grad_shape(grads, m, k)) if l_grad is None else l_grad
    u_grad = engine.zeros(u_grad_shape(grads, k, n)) if u_grad is None else u_grad
    if m == n:
        return l_grad.tril(-1) + u_grad.triu()
    if m < n:
        return engine.cat([l_grad.tril(-1) + u_grad.narrow(-1, 0, k).triu(), u_grad.narrow(-1, k, n - k)], -1)
    return engine.cat([l_grad.narrow(-2, 0, k).tril(-1) + u_grad.triu(), l_grad.narrow(-2, k, m - k)], -2)


def l_grad_shape(grads: list[Any], m: int, k: int) -> tuple[int, ...]:
    other = grads[1]
    return (*other._shape[:-2], m, k)


def u_grad_shape(grads: list[Any], k: int, n: int) -> tuple[int, ...]:
    other = grads[0]
    return (*other._shape[:-2], k, n)


DERIVATIVES["LinalgLuFactorExBackward0"] = rule("A", saves="LU, pivots", keeps="pivot", A=lu_factor_ex_backward)
DERIVATIVES["LinalgLuBackward0"] = rule("A", saves="P, L, U", keeps="pivot", grads_list=True,
                                        A=lambda c, grads: linalg_lu_backward(grads[0], grads[1], c.P, c.L, c.U))
DERIVATIVES["LuUnpackBackward0"] = rule("LU_data", keeps="LU_data_sym_argsize_minus_1, LU_data_sym_argsize_minus_2",
                                        grads_list=True, LU_data=lu_unpack_backward)
