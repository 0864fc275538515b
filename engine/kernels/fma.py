"""A fused multiply-add for float32, rounded once, as ATen's CPU kernels compute `a + alpha * b`,
`lerp` and `addcmul` (its vectorised loops call `vec::fmadd`, and the compiler contracts the
scalar tails the same way).

numpy has no fma. For float32 operands the product is exact in float64 and the sum then rounds
once to float64 and again to float32; that second rounding differs from a single one only where
the float64 sum lies exactly halfway between two floats while the exact sum does not. The sum's
rounding error (TwoSum, exact in float64) says which way the exact value lies, and those elements
are moved off the midpoint before the last rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# The 29 low significand bits a double loses on its way to a float: exactly this pattern is a
# float midpoint (for results in the normal float range).
_DROPPED_BITS = np.uint64((1 << 29) - 1)
_MIDPOINT = np.uint64(1 << 28)


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """a * b + c rounded once to float32; a, b, c are float32 arrays or scalars (broadcasting)."""
    a64, b64, c64 = (np.asarray(v, dtype=np.float32).astype(np.float64) for v in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):
        product = a64 * b64
        total = product + c64
        result = total.astype(np.float32)
        if result.ndim == 0:
            total, product, c64, result = (np.atleast_1d(v) for v in (total, product, c64, result))
        midway = (total.view(np.uint64) & _DROPPED_BITS) == _MIDPOINT
        if midway.any():
            back = total - product
            error = (product - (total - back)) + (c64 - back)  # TwoSum: total + error is exact
            moved = midway & (error != 0)
            if moved.any():
                nudged = np.nextafter(total[moved], np.copysign(np.inf, error[moved]))
                result = np.array(result, copy=True)
                result[moved] = nudged.astype(np.float32)
    return result.reshape(np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c)))
