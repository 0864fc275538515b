"""torch.cdist: the p-norm distance between each row of x1 and each row of x2, batched.

ATen takes one of two roads, and so does this module. Its distance kernel (CdistBackward0) sums each
pair's |a - b|^p column by column in the input's dtype, one scalar at a time, so numpy reproduces it
to the bit when it adds the columns in the same order. For p = 2 with more than 25 rows on either
side (or compute_mode='use_mm_for_euclid_dist') it instead expands |a|^2 - 2ab + |b|^2 into one
matmul (_euclidean_dist, EuclideanDistBackward0, under a ViewBackward0): faster, less exact, and
differentiated by its own formula. The kernel's backward (_cdist_backward) runs down each column,
adding the pairs' terms in row order; under create_graph it records CdistBackwardBackward0, whose own
derivative torch does not implement.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import geometry
from engine.autograd import grad_mode
from engine.ops.core import record
from engine.tensor import Tensor

_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


def _batch(x1: Tensor, x2: Tensor) -> tuple[int, ...]:
    return geometry.broadcast_shapes(x1._shape[:-2], x2._shape[:-2])


def _rows(x: Tensor, batch: tuple[int, ...]) -> np.ndarray:
    """x broadcast to the batch and flattened to (batch, rows, columns)."""
    values = np.broadcast_to(x._numpy_view(), batch + x._shape[-2:])
    return values.reshape((math.prod(batch),) + x._shape[-2:])


def _fused_square_add(agg: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """fma(diff, diff, agg) rounded once to the dtype: float32 through long double (its 64-bit
    mantissa holds the square exactly), float64 by error-free transformations (Dekker's product and
    Knuth's sum, then one rounding; a last-bit difference is possible in rare near-ties)."""
    if agg.dtype == np.float32:
        wide = diff.astype(np.longdouble)
        return (wide * wide + agg).astype(np.float32)
    product = diff * diff
    split = diff * 134217729.0  # 2^27 + 1
    high = split - (split - diff)
    low = diff - high
    product_error = ((high * high - product) + 2 * high * low) + low * low
    total = product + agg
    virtual = total - product
    sum_error = (product - (total - virtual)) + (agg - virtual)
    return total + (sum_error + product_error)


_POW = np.frompyfunc(math.pow, 2, 1)


def _libm_pow(x: np.ndarray, y: np.float64) -> np.ndarray:
    """pow in double, by the C library (math.pow), element by element."""
    return np.asarray(_POW(x.astype(np.float64), float(y)), dtype=np.float64)


def _pair_distances(a: np.ndarray, b: np.ndarray, p: float) -> np.ndarray:
    """ATen's run_parallel_cdist: per pair, agg = red(agg, map(|a - b|)) over the columns in order,
    then finish(agg). As the kernel is compiled, the p = 2 loop runs 16 bytes of columns at a time
    (four float32 or two float64: each square rounded, then added) and fuses the leftover columns'
    square and add (fma); a general p raises each |a - b| with the C library's pow (numpy's own
    float64 pow differs from it in the last bit) and takes the root in double, std::pow(agg, 1.0 / p)."""
    dt = a.dtype
    agg = np.zeros((a.shape[0], a.shape[1], b.shape[1]), dtype=dt)
    columns = a.shape[2]
    unfused = columns - columns % (16 // dt.itemsize)
    power = np.float64(dt.type(p))
    with np.errstate(all="ignore"):
        for k in range(columns):
            diff = np.abs(a[:, :, None, k] - b[:, None, :, k])
            if p == 0:
                agg += np.minimum(np.ceil(diff), dt.type(1))
            elif p == 1:
                agg += diff
            elif p == 2:
                agg = agg + diff * diff if k < unfused else _fused_square_add(agg, diff)
            elif math.isinf(p):
                agg = np.where(agg < diff, diff, agg)  # std::max: NaN never wins
            else:
                agg += _libm_pow(diff, power).astype(dt)
        if p == 2:
            return np.sqrt(agg)
        if p in (0, 1) or math.isinf(p):
            return agg
        return _libm_pow(agg, 1.0 / power).astype(dt)


def _check_kernel_inputs(x1: Tensor, x2: Tensor, p: float) -> None:
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {x.dtype.short}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")


def _cdist_forward(x1: Tensor, x2: Tensor, p: float) -> Tensor:
    _check_kernel_inputs(x1, x2, p)
    for x in (x1, x2):
        if x.dtype.itemsize == 2:
            raise NotImplementedError(f"\"cdist\" not implemented for '{x.dtype.short}'")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype.short} but found {x2.dtype.short}")
    batch = _batch(x1, x2)
    r1, r2 = x1._shape[-2], x2._shape[-2]
    shape = batch + (r1, r2)
    if not (r1 and r2 and math.prod(batch)):
        values = np.zeros(shape, dtype=x1.dtype.np)
    else:
        values = _pair_distances(_rows(x1, batch), _rows(x2, batch), float(p)).reshape(shape)
    out = Tensor._wrap(np.ascontiguousarray(values), x1.dtype)
    record("CdistBackward0", out, (x1, x2), save={"x1": x1, "x2": x2}, save_outputs={"result": out},
           values={"p": float(p)})
    return out


def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """ATen's _euclidean_dist: [-2a, |a|^2, 1] @ [b, 1, |b|^2]^T, clamped at 0, square-rooted."""
    from engine.ops import factories, indexing, linalg, pointwise, reduction

    with grad_mode.no_grad():
        a, b = x1.detach(), x2.detach()
        a_norm = reduction.sum(pointwise.pow(a, 2), -1, True)
        b_norm = reduction.sum(pointwise.pow(b, 2), -1, True)
        a_ = indexing.cat([pointwise.mul(a, -2), a_norm, factories.ones_like(a_norm)], -1)
        b_ = indexing.cat([b, factories.ones_like(b_norm), b_norm], -1)
        product = linalg.matmul(a_, b_.mT)
        values = np.sqrt(np.maximum(product._numpy_view(), 0))
    out = Tensor._wrap(np.ascontiguousarray(values, dtype=x1.dtype.np), x1.dtype)
    record("EuclideanDistBackward0", out, (x1, x2), save={"x1": x1, "x2": x2}, save_outputs={"result": out})
    return out


def _by_matmul(x1: Tensor, x2: Tensor) -> Tensor:
    from engine.ops import views
    from engine.ops.copying import contiguous

    _check_kernel_inputs(x1, x2, 2)
    batch = _batch(x1, x2)
    r1, r2 = x1._shape[-2], x2._shape[-2]
    shape = batch + (r1, r2)
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {x1.dtype.cpp} != {x2.dtype.cpp}")
    if x1._shape[-1] == 0:
        return Tensor._wrap(np.zeros(shape, dtype=x1.dtype.np), x1.dtype)
    count = math.prod(batch)
    if count == 1:
        result = _euclidean_dist(x1, x2)
    else:
        a = views.view(contiguous(views.expand(x1, batch + x1._shape[-2:])), (count,) + x1._shape[-2:])
        b = views.view(contiguous(views.expand(x2, batch + x2._shape[-2:])), (count,) + x2._shape[-2:])
        result = _euclidean_dist(a, b)
    return views.view(result, shape)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _MODES[compute_mode]
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: {x2._shape[-1]}")
    r1, r2 = x1._shape[-2], x2._shape[-2]
    if x1.numel() and x2.numel() and p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        return _by_matmul(x1, x2)
    return _cdist_forward(x1, x2, p)


def _column_terms(diff: np.ndarray, grad: np.ndarray, dist: np.ndarray, p: float) -> np.ndarray:
    """Each pair's term of the gradient, per column (ATen's F::backward, elementwise in the dtype)."""
    dt = diff.dtype.type
    zero = dt(0)
    if p == 1:
        return grad * np.sign(diff)
    if p == 2:
        return np.where(dist == 0, zero, grad * diff / dist)
    if math.isinf(p):
        one = dt(1)
        return grad * np.sign(diff) * (one - np.minimum(one, np.ceil(np.abs(np.abs(diff) - dist))))
    pv = dt(p)
    if p < 2:
        term = np.where(dist == 0, zero, np.sign(diff) * np.power(np.abs(diff), pv - dt(1)) * grad
                        / np.power(dist, pv - dt(1)))
        return np.where((diff == 0) & (pv < 1), zero, term)
    return np.where(dist == 0, zero, diff * np.power(np.abs(diff), pv - dt(2)) * grad / np.power(dist, pv - dt(1)))


def _cdist_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, cdist: Tensor) -> Tensor:
    """The gradient with respect to x1 (x1 broadcast to the batch: autograd sums it back)."""
    batch = _batch(x1, x2)
    r1, r2, m = x1._shape[-2], x2._shape[-2], x1._shape[-1]
    if not (r1 and r2 and m and math.prod(batch)):
        out = Tensor._wrap(np.zeros(x1._shape, dtype=x1.dtype.np), x1.dtype)
    else:
        a, b = _rows(x1, batch), _rows(x2, batch)
        g = grad._numpy_view().reshape(a.shape[0], r1, r2)
        dist = cdist._numpy_view().reshape(a.shape[0], r1, r2)
        result = np.zeros(a.shape, dtype=a.dtype)
        if p != 0:
            with np.errstate(all="ignore"):
                for j in range(r2):  # down each column, the pairs in row order
                    diff = a - b[:, j:j + 1, :]
                    result += _column_terms(diff, g[:, :, j:j + 1], dist[:, :, j:j + 1], p)
        out = Tensor._wrap(result.reshape(batch + x1._shape[-2:]), x1.dtype)
    record("CdistBackwardBackward0", out, (grad, x1, x2, cdist))
    return out


FUNCTIONS: dict[str, Callable[..., Any]] = {"cdist": cdist}
