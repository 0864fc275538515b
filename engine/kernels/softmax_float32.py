"""float32 softmax with torch's CPU values, bit for bit.

ATen's softmax kernels compute exp with Vectorized<float>::exp, SLEEF's expf_u10: a reduction by
ln 2 in two parts, a degree-5 polynomial in fused multiply-adds, a scaling by 2**q; within an ulp
of exp but not always the nearest float. Over the last dim (the common case: classes, attention
scores) each row is exp(x - max), summed by reduce_all (16-lane vectors added in order, the tail
into the first lanes, then the lanes folded by halves; fewer than 16 elements one by one), and
multiplied by 1 / sum. Over another dim the kernel runs 16 inner positions at a time with SLEEF,
the inner positions left over one by one with the C library's expf (kernels/expf.py), sums down
the dim from zero and divides. Measured against torch 2.13: the last-dim path agrees on every
element; the other on all but some inner sizes that are neither below 16 nor a multiple of it.
Each fused multiply-add is replayed as the exact float64 product plus the addend, rounded once
to float32 (kernels/sigmoid.py's steps, the same SLEEF function).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.kernels.expf import expf_wide
from engine.kernels.fma import fma32

_F32, _F64 = np.float32, np.float64
LANES = 16  # floats in one AVX-512 vector, which ATen's softmax kernels run with
_R_LN2 = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = _F64(_F32(0.693145751953125))
_L2L = _F64(_F32(1.428606765330187045e-06))
_POLY = tuple(_F64(_F32(c)) for c in (0.000198527617612853646278381, 0.00139304355252534151077271,
                                      0.00833336077630519866943359, 0.0416664853692054748535156,
                                      0.166666671633720397949219, 0.5))
_FOLD = tuple(np.arange(LANES) ^ shift for shift in (8, 4, 2, 1))


def _fma(a: np.ndarray, b: np.ndarray, c: Any) -> np.ndarray:
    """fma(a, b, c) of float32 values held in float64: the product is exact, the sum rounds once."""
    return (a * b + c).astype(_F32).astype(_F64)


def expf_u10(x: np.ndarray) -> np.ndarray:
    """SLEEF's expf_u10 of a float32 array (0 below -104, inf above 104, NaN kept)."""
    d = x.astype(_F64)
    q = np.rint((x * _R_LN2).astype(_F32)).astype(_F64)  # x / ln 2 in float32, rounded to even
    s = _fma(q, -_L2U, d)
    s = _fma(q, -_L2L, s)
    u = np.full_like(s, _POLY[0])
    for c in _POLY[1:]:
        u = _fma(u, s, c)
    u = _fma((s * s).astype(_F32).astype(_F64), u, s)
    u = (u + 1.0).astype(_F32)
    finite = np.isfinite(q)
    result = np.ldexp(u, np.where(finite, q, 0).astype(np.int32))  # exact, or rounded once into subnormals
    result[~(x <= 104)] = np.inf
    result[x < -104] = 0.0
    nan = ~finite & np.isnan(x)
    result[nan] = x[nan]
    return result.astype(_F32, copy=False)


def _reduce_all_sum(rows: np.ndarray) -> np.ndarray:
    """ATen's vec::reduce_all(+) of each row of a 2-d float32 array."""
    n = rows.shape[1]
    if n < LANES:
        acc = rows[:, 0].copy()
        for i in range(1, n):
            acc += rows[:, i]
        return acc
    acc = rows[:, :LANES].copy()
    full = n - n % LANES
    for start in range(LANES, full, LANES):
        acc += rows[:, start:start + LANES]
    if full < n:
        acc[:, :n - full] += rows[:, full:]
    for lanes in _FOLD:
        acc = acc + acc[:, lanes]
    return acc[:, 0]


def softmax(x: np.ndarray, dim: int) -> np.ndarray:
    """torch.softmax of a float32 array of at least one dim along `dim` (non-negative)."""
    shifted = x - x.max(axis=dim, keepdims=True)
    if dim == x.ndim - 1:
        rows = shifted.reshape(-1, x.shape[-1])
        e = expf_u10(rows)
        scale = _F32(1) / _reduce_all_sum(e)
        return (e * scale[:, None]).reshape(x.shape)
    moved = np.moveaxis(shifted, dim, 0)
    inner = int(np.prod(x.shape[dim + 1:]))
    blocks = moved.reshape(x.shape[dim], -1, inner)
    body = inner - inner % LANES
    e = np.empty(blocks.shape, _F32)
    e[:, :, :body] = expf_u10(blocks[:, :, :body])
    e[:, :, body:] = expf_wide(blocks[:, :, body:].astype(_F64)).astype(_F32)
    total = np.zeros(blocks.shape[1:], _F32)
    for part in e:
        total += part
    return np.moveaxis((e / total).reshape(moved.shape), 0, dim)



# --------------------------------------------------------------------------- SLEEF's logf_u10
# log(d) = e ln 2 + 2 atanh((m - 1) / (m + 1)) with d = m 2**e, m in [0.75, 1.5): ln 2 and the
# quotient carried as float pairs (value, error), an odd polynomial for the rest of atanh.
_LN2_HI, _LN2_LO = _F32(0.69314718246459960938), _F32(-1.904654323148236017e-09)
_ALL_ONES_NAN = np.uint32(0xFFFFFFFF).view(_F32)
_LOG_POLY = tuple(_F32(c) for c in (0.3027294874, 0.3996108174, 0.6666694880))


def _pair_sum(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x + y as a float pair, exactly (TwoSum)."""
    high = x + y
    v = high - x
    return high, (x - (high - v)) + (y - v)


def _pair_quotient(nx: np.ndarray, ny: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nx + ny) / (dx + dy) as a float pair, SLEEF's dfdiv in fused multiply-adds."""
    t = _F32(1) / dx
    s = nx * t
    u = fma32(t, nx, -s)
    v = fma32(-dy, t, fma32(-dx, t, _F32(1)))
    return s, fma32(s, v, fma32(ny, t, u))


def logf_u10(d: np.ndarray) -> np.ndarray:
    """SLEEF's logf_u10 (ATen's Vectorized<float>::log on AVX-512) of finite positive floats; NaN
    stays NaN."""
    d = np.asarray(d, _F32)
    e = np.frexp(d * _F32(1 / 0.75))[1] - 1  # getexp: floor(log2(d / 0.75))
    m = np.ldexp(d, -e).astype(_F32)  # getmant, in [0.75, 1.5)
    e = e.astype(_F32)
    sx = e * _LN2_HI
    sy = fma32(_LN2_LO, e, fma32(_LN2_HI, e, -sx))
    qx, qy = _pair_quotient(*_pair_sum(np.full_like(m, -1), m), *_pair_sum(np.ones_like(m), m))
    q2 = qx * qx
    t = _LOG_POLY[0]
    for c in _LOG_POLY[1:]:
        t = fma32(t, q2, c)
    high = sx + qx * _F32(2)  # adding the pair 2q
    low = (((sx - high) + qx * _F32(2)) + sy) + qy * _F32(2)
    tail = (q2 * qx) * t  # adding the float q**3 t
    total = high + tail
    low = ((high - total) + tail) + low
    result = total + low
    result[np.isnan(d)] = d[np.isnan(d)]
    return result


def log_softmax_lastdim(x: np.ndarray) -> np.ndarray:
    """torch.log_softmax of a float32 array over its last dim, as ATen's kernel: (x - max) - log(sum),
    the sum of expf_u10 by reduce_all as softmax's, its log SLEEF's."""
    rows = x.reshape(-1, x.shape[-1])
    largest = rows.max(axis=1, keepdims=True)
    largest[np.isnan(largest)] = _ALL_ONES_NAN  # ATen's vector maximum marks NaN with all bits set
    shifted = rows - largest
    log_sum = logf_u10(_reduce_all_sum(expf_u10(shifted)))
    return (shifted - log_sum[:, None]).reshape(x.shape)


def log_softmax_backward_lastdim(grad: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The gradient of log_softmax over the last dim, as ATen's kernel: each row's gradient summed
    by reduce_all, then grad - exp(out) * sum as one fused multiply-add, exp SLEEF's."""
    rows, saved = grad.reshape(-1, grad.shape[-1]), out.reshape(-1, out.shape[-1])
    total = _reduce_all_sum(rows)
    return fma32(-expf_u10(saved), total[:, None], rows).reshape(grad.shape)
