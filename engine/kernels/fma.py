"""Fused multiply-add, rounded once, as ATen's CPU kernels compute `a + alpha * b`, `lerp`,
`addcmul` and the random distributions' `x * std + mean` (their vectorised loops call `vec::fmadd`,
and the compiler contracts the scalar tails the same way).

numpy has no fma. For float32 operands the product is exact in float64, so only the float64 sum
rounds before the final rounding to float32; that double rounding differs from a single one only
where the float64 sum lies exactly halfway between two floats. Those rare elements are redone with
the sum's exact error (TwoSum), rounded to odd (Boldo-Melquiond), whose rounding to float32 is then
the correct one. float64 needs the product's error too (Dekker's split).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.quiet import quietly

_F32, _F64 = np.float32, np.float64
# The 29 low significand bits a double loses on its way to a float: exactly this pattern is a
# float midpoint (for results in the normal float range).
_DROPPED_BITS = np.uint64((1 << 29) - 1)
_MIDPOINT = np.uint64(1 << 28)


def two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """s + e == a + b exactly (Knuth), so the rounding of the float64 sum can be corrected."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def round_to_odd(value: np.ndarray, error: np.ndarray) -> np.ndarray:
    """value + error (|error| below half an ulp) rounded to odd: a later rounding to fewer bits is then
    the correct rounding of the exact sum, which double rounding through float64 would not be."""
    inexact_even = (error != 0) & ((value.view(np.uint64) & np.uint64(1)) == 0)
    return np.where(inexact_even, np.nextafter(value, np.copysign(np.inf, error)), value)


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """a * b + c rounded once to float32; a, b, c are float32 arrays or scalars (broadcasting).
    Quiet: inf * 0 is nan and an overflow is inf, without numpy's warnings, as in torch."""
    return quietly(_fma32, a, b, c)


def _fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    if np.ndim(b) == 0 and np.ndim(c) == 0 and np.ndim(a):
        if b == 1:  # a * 1 is exact, so the plain sum is the fused result (-0 + 0 is +0 in both)
            return np.add(a, c, dtype=_F32)
        if c == 0:
            product = np.multiply(a, b, dtype=_F32)
            product += _F32(c)
            return product
    total = np.asarray(np.multiply(a, b, dtype=_F64))
    total = np.add(total, c, dtype=_F64, out=total if total.shape == np.broadcast_shapes(total.shape, np.shape(c))
                   and total.ndim else None)
    result = np.array(total, dtype=_F32, ndmin=1)  # at least 1-d: its elements can be redone in place
    halfway = np.flatnonzero((total.reshape(-1).view(np.uint64) & _DROPPED_BITS) == _MIDPOINT)
    if halfway.size:
        at = np.unravel_index(halfway, total.shape) if total.ndim else ()
        pick = [np.broadcast_to(np.asarray(v, dtype=_F32), total.shape)[at].astype(_F64) for v in (a, b, c)]
        redone, error = two_sum(pick[0] * pick[1], pick[2])
        result.reshape(-1)[halfway] = round_to_odd(redone, error)
    return result.reshape(total.shape)


def _split(a: Any) -> tuple[Any, Any]:
    scaled = 134217729.0 * a  # Veltkamp: 2**27 + 1
    high = scaled - (scaled - a)
    return high, a - high


def fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """float64 a*b+c rounded once, b and c numbers: error-free product and sum (Dekker, Knuth), then
    a round-to-odd low part."""
    if b == 1:
        return a + c
    if c == 0:
        product = a * b
        product += c
        return product
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(_F64(b))
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    high, low = two_sum(product, _F64(c))
    tail, tail_error = two_sum(low, product_error)
    return high + round_to_odd(tail, tail_error)
