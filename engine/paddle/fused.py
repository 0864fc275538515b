"""float32 `a * b + c` rounded once, as the fused multiply-adds of Paddle's CPU optimizer kernels
(sgd's axpy, the Adam JIT kernel) compute it.

A float32 product is exact in float64, so only the float64 sum can round before the final
rounding to float32; that double rounding is made harmless by rounding the float64 sum to odd
(Boldo-Melquiond) with the sum's exact error (Knuth's two-sum).
"""

from __future__ import annotations

import numpy as np

_F32, _F64 = np.float32, np.float64


def fma32(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    a64, b64, c64 = (np.asarray(v, dtype=_F32).astype(_F64) for v in (a, b, c))
    product = a64 * b64
    total = product + c64
    back = total - product
    error = (product - (total - back)) + (c64 - back)
    bits = total.view(np.uint64) if total.ndim else np.asarray(total).reshape(1).view(np.uint64)
    inexact_even = (np.asarray(error).reshape(bits.shape) != 0) & ((bits & np.uint64(1)) == 0)
    towards = np.copysign(np.inf, np.asarray(error).reshape(bits.shape))
    odd = np.where(inexact_even, np.nextafter(total.reshape(bits.shape), towards), total.reshape(bits.shape))
    return odd.astype(_F32).reshape(np.shape(total))
