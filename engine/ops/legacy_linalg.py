"""The top-level linear algebra torch kept from before torch.linalg: svd (V, not Vh; `some` for reduced
factors; zeros for U and V without compute_uv), qr (`some` for the reduced mode), cholesky (its own
CholeskyBackward0 and error prefix), slogdet and pinverse (through linalg.pinv's SVD, LinalgPinvBackward0).
The deprecated ones warn once per process, as torch's TORCH_WARN_ONCE does."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes, linalg
from engine.linalg import LinAlgError, _return_type, _wrap
from engine.ops.core import record
from engine.tensor import Tensor
from engine.warn_once import warn_once

svd_type = _return_type("svd", ("U", "S", "V"))
qr_type = _return_type("qr", ("Q", "R"))
slogdet_type = _return_type("slogdet", ("sign", "logabsdet"))

QR_DEPRECATED = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
    "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
    "Q, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch release.\n"
    "L = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
    "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
    "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.")


LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in a "
    "future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
    "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")
lu_with_info_type = _return_type("_lu_with_info", ("LU", "pivots", "info"))
linalg_lu_factor_type = _return_type("linalg_lu_factor", ("LU", "pivots"))
lu_unpack_type = _return_type("lu_unpack", ("P", "L", "U"))
linalg_lu_type = _return_type("linalg_lu", ("P", "L", "U"))
linalg_lu_factor_ex_type = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))


def _floating(a: Tensor, op: str, kernel: str) -> None:
    """LAPACK's dtypes: an integer tensor is refused by name, a half type by its missing kernel."""
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {a.dtype.short}")
    if a.dtype.itemsize == 2:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{a.dtype.short}'")


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> tuple[Tensor, Tensor, Tensor]:  # noqa: A002
    from engine.ops.factories import zeros

    if input.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {input.ndim} dimensions "
                           "instead")
    _floating(input, "linalg.svd", "linalg_svd_cpu")
    if compute_uv:
        u, s, vh = linalg.svd(input, full_matrices=not some)
    else:
        s = linalg.svdvals(input)
        m, n = input._shape[-2:]
        u = zeros(input._shape[:-1] + (m,), dtype=input.dtype).zero_()  # at::zeros: empty, then zero_
        vh = zeros(input._shape[:-2] + (n, n), dtype=input.dtype).zero_()
    return svd_type(u, s, vh.mH)


def qr(input: Tensor, some: bool = True) -> tuple[Tensor, Tensor]:  # noqa: A002
    warn_once(QR_DEPRECATED, stacklevel=4)
    if input.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    _floating(input, "linalg.qr", "geqrf_cpu")
    q, r = linalg.qr(input, "reduced" if some else "complete")
    return qr_type(q, r)


def cholesky(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    warn_once(CHOLESKY_DEPRECATED, stacklevel=4)
    if input.ndim < 2:
        raise RuntimeError("cholesky: The input tensor A must have at least 2 dimensions.")
    if input._shape[-1] != input._shape[-2]:
        raise RuntimeError(f"cholesky: A must be batches of square matrices, but they are {input._shape[-2]} by "
                           f"{input._shape[-1]} matrices")
    if not (input.dtype.is_floating_point or input.dtype.is_complex) or input.dtype.itemsize == 2:
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{input.dtype.short}'")
    x = input._numpy_view()
    try:
        lower = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        order = next(k for k in range(1, x.shape[-1] + 1) if np.any(np.linalg.det(x[..., :k, :k]) <= 0))
        raise LinAlgError(f"cholesky: The factorization could not be completed because the input is not "
                          f"positive-definite (the leading minor of order {order} is not positive-definite).") from None
    factor = np.conj(np.swapaxes(lower, -1, -2)) if upper else lower
    if out is not None:
        from engine import errors
        from engine.ops.core import needs_grad
        from engine.ops.pointwise import write_out

        if needs_grad(input, out):
            raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op="cholesky"))
        return write_out(out, np.ascontiguousarray(factor), "cholesky", (input,))
    result = _wrap(factor, input)
    record("CholeskyBackward0", result, (input,), save_outputs={"result": result}, values={"upper": upper})
    return result


def slogdet(input: Tensor) -> tuple[Tensor, Tensor]:  # noqa: A002
    if input.dtype.is_floating_point and input.dtype.itemsize == 2 and input.ndim >= 2 and \
            input._shape[-1] == input._shape[-2]:
        raise RuntimeError(f"linalg.slogdet: Low precision dtypes not supported. Got {input.dtype.short}")
    sign, logabsdet = linalg.slogdet(input)
    return slogdet_type(sign, logabsdet)


def _tolerance(value: Any) -> np.ndarray:
    """atol / rtol, a number or a tensor (one per matrix), in double."""
    return np.asarray(value._numpy_view() if isinstance(value, Tensor) else value, dtype=np.float64)


def pinv(input: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:  # noqa: A002
    """torch.linalg.pinv: the singular values (or |eigenvalues| when hermitian) above max(atol, rtol *
    the largest) inverted, the rest dropped (rtol defaults to eps * max(m, n), or 0 given only atol)."""
    if input.ndim < 2 or not (input.dtype.is_floating_point or input.dtype.is_complex) or input.dtype.itemsize == 2:
        raise RuntimeError(f"linalg.pinv({input.dtype.short}{{{list(input._shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    x = input._numpy_view()
    m, n = x.shape[-2:]
    if rtol is None:
        given_atol = atol is not None and bool(np.any(_tolerance(atol) > 0))
        rtol = 0.0 if given_atol else float(np.finfo(x.dtype).eps) * max(m, n)
    atol = 0.0 if atol is None else atol
    if x.size == 0:
        value = np.zeros(x.shape[:-2] + (n, m), dtype=x.dtype)
    else:
        if hermitian:
            s, u = np.linalg.eigh(x)
            largest = np.abs(s).max(axis=-1, keepdims=True)
            vh, u_h = np.conj(np.swapaxes(u, -1, -2)), u
        else:
            u, s, vh = np.linalg.svd(x, full_matrices=False)
            largest = s[..., :1]
            u_h = np.conj(np.swapaxes(vh, -1, -2))
        tol = np.maximum(_tolerance(atol)[..., None], _tolerance(rtol)[..., None] * largest)
        keep = (np.abs(s) if hermitian else s) > tol
        with np.errstate(divide="ignore"):
            inverse = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(x.dtype)
        value = (u_h * inverse[..., None, :]) @ (vh if hermitian else np.conj(np.swapaxes(u, -1, -2)))
    result = Tensor._wrap(np.ascontiguousarray(value, dtype=x.dtype), input.dtype)
    record("LinalgPinvBackward0", result, (input,), save={"self": input}, save_outputs={"result": result})
    return result


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    """linalg.pinv with rcond as the relative tolerance (and no absolute one)."""
    return pinv(input, atol=0.0, rtol=rcond)


def _getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """LAPACK's getrf on one matrix: partial pivoting (the first largest magnitude in the column), the
    column scaled by the pivot's reciprocal (getf2's dscal), the multipliers below the unit diagonal of L,
    U above; 1-based pivots; info, the first zero pivot (1-based). The pivots are LAPACK's; the values
    can differ from MKL's blocked kernels in the last bit."""
    lu = a.copy()
    m, n = lu.shape
    k = min(m, n)
    pivots = np.empty(k, dtype=np.int32)
    info = 0
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + int(np.argmax(np.abs(lu[j:, j])))
            pivots[j] = p + 1
            if lu[p, j] == 0:
                info = info or j + 1
                continue
            if p != j:
                lu[[j, p]] = lu[[p, j]]
            lu[j + 1:, j] *= lu.dtype.type(1) / lu[j, j]
            lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, pivots, info


def _factor(A: Tensor, pivot: bool) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803 - torch's name
    """linalg.lu_factor_ex: LU (column-major, as LAPACK leaves it), int32 pivots and each matrix's info."""
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A._shape)} instead")
    if not (A.dtype.is_floating_point or A.dtype.is_complex) or A.dtype.itemsize == 2:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype.short}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    x = A._numpy_view()
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    flat = x.reshape((math.prod(batch), m, n))
    factors = np.empty_like(flat)
    pivots = np.empty((flat.shape[0], min(m, n)), dtype=np.int32)
    infos = np.zeros(flat.shape[0], dtype=np.int32)
    for i, matrix in enumerate(flat):
        factors[i], pivots[i], infos[i] = _getrf(matrix)
    lu_t = _wrap(factors.reshape(x.shape), A)
    pivots_t = Tensor._wrap(pivots.reshape(batch + (min(m, n),)), dtypes.int32)
    info_t = Tensor._wrap(infos.reshape(batch), dtypes.int32)
    record("LinalgLuFactorExBackward0", lu_t, (A,), save_outputs={"LU": lu_t},
           save={"pivots": pivots_t}, values={"pivot": pivot})
    return lu_t, pivots_t, info_t


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple[Tensor, ...]:  # noqa: N803 - torch's name
    """torch.lu: linalg.lu_factor_ex's factors, with the infos on request (a singular matrix is no error)."""
    warn_once(LU_DEPRECATED, stacklevel=4)
    lu_t, pivots_t, info_t = _factor(A, pivot)
    return lu_with_info_type(lu_t, pivots_t, info_t) if get_infos else (lu_t, pivots_t)


def _check_singular(A: Tensor, info: Tensor, op: str) -> None:  # noqa: N803
    """torch's _linalg_check_errors for an LU: the first matrix with a zero pivot, named by its batch index."""
    infos = info._numpy_view().reshape(-1)
    bad = np.flatnonzero(infos > 0)
    if bad.size:
        where = f"(Batch element {int(bad[0])}): " if A.ndim > 2 else ""
        k = int(infos[bad[0]])
        raise RuntimeError(f"{op}: {where}U[{k},{k}] is zero and using it on lu_solve would result in a division by "
                           "zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) "
                           "or linalg.lu_factor_ex(A, pivot)")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
    lu_t, pivots_t, info_t = _factor(A, pivot)
    if check_errors:
        _check_singular(A, info_t, "torch.linalg.lu_factor_ex")
    return linalg_lu_factor_ex_type(lu_t, pivots_t, info_t)


def lu_factor(A: Tensor, *, pivot: bool = True) -> tuple[Tensor, Tensor]:  # noqa: N803
    lu_t, pivots_t, info_t = _factor(A, pivot)
    _check_singular(A, info_t, "torch.linalg.lu_factor")
    return linalg_lu_factor_type(lu_t, pivots_t)


def unpacked(lu_values: np.ndarray, pivots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P, L and U of packed LU factors (A = P L U): L's unit diagonal below, U on and above it, P the
    permutation the 1-based row swaps make."""
    m, n = lu_values.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu_values[..., :, :k], -1) + np.eye(m, k, dtype=lu_values.dtype)
    upper = np.triu(lu_values[..., :k, :])
    order = np.broadcast_to(np.arange(m), pivots.shape[:-1] + (m,)).copy()
    swaps = pivots.astype(np.int64) - 1
    for index in np.ndindex(*swaps.shape[:-1]):
        row = order[index]
        for j, p in enumerate(swaps[index]):
            row[j], row[p] = row[p], row[j]
    permutation = np.zeros(order.shape + (m,), dtype=lu_values.dtype)
    np.put_along_axis(permutation, order[..., None], 1, axis=-1)
    return np.ascontiguousarray(np.swapaxes(permutation, -1, -2)), lower, upper


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,  # noqa: N803 - torch's names
              unpack_pivots: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    p, lower, upper = unpacked(LU_data._numpy_view(), LU_pivots._numpy_view())
    empty = np.zeros(0, LU_data.dtype.np)
    p_t = Tensor._wrap(p if unpack_pivots else empty.copy(), LU_data.dtype)
    lower_t = Tensor._wrap(np.array(lower if unpack_data else empty, order="C"), LU_data.dtype)
    upper_t = Tensor._wrap(np.array(upper if unpack_data else empty, order="C"), LU_data.dtype)
    record("LuUnpackBackward0", (lower_t, upper_t), (LU_data,),
           values={"LU_data_sym_argsize_minus_1": LU_data._shape[-1], "LU_data_sym_argsize_minus_2": LU_data._shape[-2]})
    return lu_unpack_type(p_t, lower_t, upper_t)


def linalg_lu(A: Tensor, *, pivot: bool = True) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
    """torch.linalg.lu: the factorisation unpacked (LinalgLuBackward0, which saves P, L and U)."""
    from engine.autograd import grad_mode

    with grad_mode.no_grad():
        lu_t, pivots_t, _ = _factor(A, pivot)
    p, lower, upper = unpacked(lu_t._numpy_view(), pivots_t._numpy_view())
    p_t, lower_t, upper_t = (Tensor._wrap(np.array(x, order="C"), A.dtype) for x in (p, lower, upper))
    record("LinalgLuBackward0", (lower_t, upper_t), (A,), save={"P": p_t}, save_outputs={"L": lower_t, "U": upper_t},
           values={"pivot": pivot})
    return linalg_lu_type(p_t, lower_t, upper_t)


def _cholesky_method(self: Tensor, upper: bool = False) -> Tensor:
    return cholesky(self, upper)


_cholesky_method.__name__ = _cholesky_method.__qualname__ = "cholesky"  # as a TypeError names it


FUNCTIONS: dict[str, Callable[..., Any]] = {"svd": svd, "qr": qr, "cholesky": cholesky, "slogdet": slogdet,
                                            "pinverse": pinverse, "lu": lu, "lu_unpack": lu_unpack}
METHODS: dict[str, Callable[..., Any]] = dict(FUNCTIONS, cholesky=_cholesky_method)
