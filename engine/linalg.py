"""torch.linalg: norms, inverse, determinant, solve, QR, SVD, eigh and Cholesky.

Factorisations run in numpy's LAPACK (the routines torch's CPU build calls; for SVD, see _gesdd on
where the signs of singular vectors can still differ); each is one node named as torch names it (LinalgInvExBackward0, LinalgQrBackward0 ...) with
its derivative in the table (engine/autograd/derivatives/linalg.py), written in engine ops.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from engine import dtypes, geometry
from engine.ops import reduction
from engine.ops.core import record
from engine.storage import Storage
from engine.tensor import Tensor


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (its class is named _LinAlgError in torch)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def _return_type(name: str, fields: tuple[str, ...]) -> type[tuple]:
    def __new__(cls: type, *values: Any) -> tuple:  # noqa: N807
        return tuple.__new__(cls, values)

    def __repr__(self: tuple) -> str:  # noqa: N807
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    namespace: dict[str, Any] = {"__new__": __new__, "__repr__": __repr__, "__str__": __repr__, "__slots__": (),
                                 "__module__": "torch.return_types", "_fields": fields}
    for i, field in enumerate(fields):
        namespace[field] = property(operator.itemgetter(i))
    return type(name, (tuple,), namespace)


linalg_qr = _return_type("linalg_qr", ("Q", "R"))
linalg_svd = _return_type("linalg_svd", ("U", "S", "Vh"))
linalg_eigh = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))


def _square(a: Tensor, op: str) -> np.ndarray:
    if a.ndim < 2:
        raise RuntimeError(f"linalg.{op}: The input tensor A must have at least 2 dimensions.")
    if a._shape[-1] != a._shape[-2]:
        raise RuntimeError(f"linalg.{op}: A must be batches of square matrices, but they are {a._shape[-2]} by "
                           f"{a._shape[-1]} matrices")
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"linalg.{op}: Expected a floating point or complex tensor as input. Got {a.dtype.short}")
    return a._numpy_view()


def _wrap(array: np.ndarray, like: Tensor) -> Tensor:
    """A LAPACK result as torch returns it: matrices in column-major (batched Fortran) order, with
    torch's strides for that order even along dims of size 1 (a 1 x n matrix has strides (1, 1))."""
    array = np.asarray(array, dtype=like.dtype.np)
    if array.ndim < 2 or array.size == 0:
        if array.ndim >= 2:
            array = np.swapaxes(np.ascontiguousarray(np.swapaxes(array, -1, -2)), -1, -2)
        return Tensor._wrap(np.array(array, order="C") if array.ndim < 2 else array, like.dtype)
    m, n = array.shape[-2:]
    columns = np.ascontiguousarray(np.swapaxes(array, -1, -2))  # row-major of the transpose: column-major
    batch = tuple(s * m * n for s in geometry.contiguous_strides(array.shape[:-2]))
    return Tensor._make(Storage.wrap(columns.reshape(-1)), 0, array.shape, (*batch, 1, m), like.dtype)


def _wrap_values(array: np.ndarray, like: Tensor) -> Tensor:
    """Singular values or eigenvalues: one vector per matrix, in row-major order however many matrices."""
    return Tensor._wrap(np.array(array, dtype=like.dtype.np, order="C"), like.dtype)


def _mT(x: np.ndarray) -> np.ndarray:  # noqa: N802
    return np.swapaxes(x, -1, -2)


# --------------------------------------------------------------------------- norms
def vector_norm(x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                dtype: dtypes.dtype | None = None) -> Tensor:
    return reduction.norm(x, float(ord), dim, keepdim, dtype)


def matrix_norm(a: Tensor, ord: Any = "fro", dim: tuple[int, int] = (-2, -1), keepdim: bool = False, *,  # noqa: A002
                dtype: dtypes.dtype | None = None) -> Tensor:
    if ord == "fro":
        return reduction.norm(a, 2, dim, keepdim, dtype)
    if ord == "nuc":
        return reduction.sum(svdvals(a), -1)
    if ord in (1, -1, math.inf, -math.inf):  # ATen: the max (min) of the column (row) 1-norms
        along, across = (dim[0], dim[1]) if ord in (1, -1) else (dim[1], dim[0])
        along, across = along % a.ndim, across % a.ndim
        sums = reduction.norm(a, 1.0, along, keepdim)
        if not keepdim and across > along:
            across -= 1
        pick = reduction.amax if ord > 0 else reduction.amin
        return pick(sums, across, keepdim)
    if ord in (2, -2):
        values = svdvals(a)
        return reduction.amax(values, -1) if ord == 2 else reduction.amin(values, -1)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(a: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
         dtype: dtypes.dtype | None = None) -> Tensor:
    """The vector 2-norm by default; with ord, a matrix norm for 2-D input (or a 2-tuple dim)."""
    if ord is None:
        return reduction.norm(a, 2, dim, keepdim, dtype)
    matrix = (dim is None and a.ndim == 2) or (isinstance(dim, (tuple, list)) and len(dim) == 2)
    if matrix:
        return matrix_norm(a, ord, tuple(dim) if dim is not None else (-2, -1), keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Order {ord} not supported.")
    return reduction.norm(a, float(ord), dim, keepdim, dtype)


def dist(a: Tensor, b: Tensor, p: float = 2) -> Tensor:
    """torch.dist: the p-norm of a - b, one DistBackward0 node."""
    diff = np.broadcast_arrays(a._numpy_view(), b._numpy_view())
    delta = (diff[0] - diff[1]).astype(np.float64)
    value = reduction._vector_norm(delta, float(p), tuple(range(delta.ndim)), False)
    result = _wrap(np.asarray(value), a)
    record("DistBackward0", result, (a, b), save={"self": a, "other": b}, save_outputs={"result": result},
           values={"p": p})
    return result


# --------------------------------------------------------------------------- inverse, determinant, solve
def _singular(op: str, a: np.ndarray) -> LinAlgError:
    lu_diag = np.abs(np.diag(np.linalg.qr(a)[1]))
    index = int(np.argmin(lu_diag)) + 1
    return LinAlgError(f"linalg.{op}: The diagonal element {index} is zero, the {'inversion' if op == 'inv' else 'solve'}"
                       f" could not be completed because the input matrix is singular.")


def inv(a: Tensor, *, out: Tensor | None = None) -> Tensor:
    x = _square(a, "inv")
    try:
        result = _wrap(np.linalg.inv(x), a)
    except np.linalg.LinAlgError:
        raise _singular("inv", x) from None

    record("LinalgInvExBackward0", result, (a,), save_outputs={"inverse": result})
    return result


def det(a: Tensor) -> Tensor:
    x = _square(a, "det")
    result = _wrap(np.asarray(np.linalg.det(x)), a)

    record("LinalgDetBackward0", result, (a,), save={"A": a}, save_outputs={"result": result})
    return result


def slogdet(a: Tensor) -> tuple[Tensor, Tensor]:
    x = _square(a, "slogdet")
    sign, logabs = np.linalg.slogdet(x)
    sign_t, log_t = _wrap(np.asarray(sign), a), _wrap(np.asarray(logabs), a)

    record("LinalgSlogdetBackward0", (sign_t, log_t), (a,), save={"A": a}, save_outputs={"sign": sign_t})
    return linalg_slogdet(sign_t, log_t)


def solve(a: Tensor, b: Tensor, *, left: bool = True) -> Tensor:
    x = _square(a, "solve")
    rhs = b._numpy_view()
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b._shape == a._shape[:-1])
    try:
        solution = np.linalg.solve(x, rhs[..., None])[..., 0] if vector else np.linalg.solve(x, rhs)
    except np.linalg.LinAlgError:
        raise _singular("solve", x) from None
    result = _wrap(solution, a)

    record("LinalgSolveExBackward0", result, (a, b), save={"A": a}, save_outputs={"result": result},
           values={"left": left, "_vector": vector})
    return result


def solve_triangular(a: Tensor, b: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """X with A X = B (X A = B when not left), reading only A's upper or lower triangle (its diagonal
    taken as ones when unitriangular); the result column-major, as LAPACK's trsm leaves it."""
    x = _square(a, "solve_triangular")
    rhs = b._numpy_view()
    n = x.shape[-1]
    if b.ndim < 2 or (rhs.shape[-2] if left else rhs.shape[-1]) != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation {equation} "
                           f"({'x'.join(map(str, a._shape[-2:]))} and {'x'.join(map(str, b._shape[-2:]))})")
    triangle = np.triu(x) if upper else np.tril(x)
    if unitriangular:
        triangle = triangle.copy()
        triangle[..., np.arange(n), np.arange(n)] = 1
    solution = np.linalg.solve(triangle, rhs) if left else _mT(np.linalg.solve(_mT(triangle), _mT(rhs)))
    result = _wrap(np.asfortranarray(solution) if solution.ndim == 2 else solution, a)
    record("LinalgSolveTriangularBackward0", result, (a, b), save={"self": a}, save_outputs={"result": result},
           values={"left": left, "unitriangular": unitriangular, "upper": upper})
    return result


# --------------------------------------------------------------------------- factorisations
def qr(a: Tensor, mode: str = "reduced") -> Any:
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    q, r = np.linalg.qr(a._numpy_view(), mode="complete" if mode == "complete" else "reduced")
    q_t = _wrap(q, a) if mode != "r" else Tensor._wrap(np.zeros(0, a.dtype.np), a.dtype)
    r_t = _wrap(r, a)

    record("LinalgQrBackward0", (q_t, r_t), (a,), save_outputs={"Q": q_t, "R": r_t}, values={"mode": mode})
    return linalg_qr(q_t, r_t)


def _gesdd(x: np.ndarray, full_matrices: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """gesdd as torch's CPU build (MKL) runs it. numpy's LAPACK factors a tall m x n matrix through a QR
    step first from m >= 11n/6 on; MKL does so from m >= 1.5n on, and the two paths give the singular
    vectors different signs. Between those bounds the QR path is taken here by hand (Q R, then R's SVD),
    so a tall real matrix gets torch's signs (measured: float64 agrees wherever m >= n). A wide matrix
    with n >= 11m/6, and float32 from n = 4 on, still get other signs in about a third of cases: MKL's
    own kernels there are not reference LAPACK's."""
    m, n = x.shape[-2:]
    if not (n < m < int(11 * n / 6) and m >= int(1.5 * n)) or np.iscomplexobj(x):
        return np.linalg.svd(x, full_matrices=full_matrices)
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    ur, s, vh = np.linalg.svd(r[..., :n, :], full_matrices=False)
    if full_matrices:
        u = q.copy()
        u[..., :, :n] = q[..., :, :n] @ ur
    else:
        u = q @ ur
    return u, s, vh


def svd(a: Tensor, full_matrices: bool = True) -> Any:
    u, s, vh = _gesdd(a._numpy_view(), full_matrices)
    u_t, s_t, vh_t = _wrap(u, a), _wrap_values(s, a), _wrap(vh, a)

    record("LinalgSvdBackward0", (u_t, s_t, vh_t), (a,), save_outputs={"U": u_t, "S": s_t, "Vh": vh_t},
           values={"full_matrices": full_matrices})
    return linalg_svd(u_t, s_t, vh_t)


def svdvals(a: Tensor) -> Tensor:
    u, s, vh = _gesdd(a._numpy_view(), False)
    s_t = _wrap_values(s, a)
    u_t, vh_t = _wrap(u, a), _wrap(vh, a)

    # torch's svdvals is _linalg_svd's S: one node with the three outputs, U and Vh kept for backward
    record("LinalgSvdBackward0", (u_t, s_t, vh_t), (a,), save_outputs={"U": u_t, "S": s_t, "Vh": vh_t},
           values={"full_matrices": False})
    return s_t


def eigh(a: Tensor, UPLO: str = "L") -> Any:  # noqa: N803
    x = _square(a, "eigh")
    values, vectors = np.linalg.eigh(x, UPLO=UPLO)
    w_t, v_t = _wrap_values(values, a), _wrap(vectors, a)

    record("LinalgEighBackward0", (w_t, v_t), (a,), save_outputs={"eigenvalues": w_t, "eigenvectors": v_t})
    return linalg_eigh(w_t, v_t)


def eigvalsh(a: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    return eigh(a, UPLO)[0]


def cholesky(a: Tensor, *, upper: bool = False) -> Tensor:
    x = _square(a, "cholesky")
    try:
        lower = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        order = next(k for k in range(1, x.shape[-1] + 1) if np.linalg.det(x[..., :k, :k]) <= 0)
        raise LinAlgError(f"linalg.cholesky: The factorization could not be completed because the input is not "
                          f"positive-definite (the leading minor of order {order} is not positive-definite).") from None
    result = _wrap(_mT(lower) if upper else lower, a)

    record("LinalgCholeskyExBackward0", result, (a,), save_outputs={"L": result}, values={"upper": upper})
    return result


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002 - torch's names
    from engine.ops.special import linalg_cross

    return linalg_cross(input, other, dim=dim)


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:  # noqa: N803
    from engine.ops.legacy_linalg import pinv as pseudo_inverse

    return pseudo_inverse(A, atol=atol, rtol=rtol, hermitian=hermitian)


def lu(A: Tensor, *, pivot: bool = True) -> Any:  # noqa: N803
    from engine.ops.legacy_linalg import linalg_lu

    return linalg_lu(A, pivot=pivot)


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:  # noqa: N803
    from engine.ops.legacy_linalg import lu_factor as factor

    return factor(A, pivot=pivot)


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:  # noqa: N803
    from engine.ops.legacy_linalg import lu_factor_ex as factor_ex

    return factor_ex(A, pivot=pivot, check_errors=check_errors)


def matrix_power(A: Tensor, n: int, *, out: Tensor | None = None) -> Tensor:  # noqa: N803 - torch's name
    from engine.ops.composites import matrix_power as power

    if out is not None:
        raise NotImplementedError("torch.linalg.matrix_power with out= is not supported by this engine")
    return power(A, n)


__all__ = ["LinAlgError", "cholesky", "cross", "det", "eigh", "eigvalsh", "inv", "matrix_norm", "matrix_power", "norm",
           "qr", "slogdet",
           "solve", "solve_triangular", "svd", "svdvals", "vector_norm",
           "lu", "lu_factor", "lu_factor_ex", "pinv"]
