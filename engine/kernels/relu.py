"""relu as ATen computes it (clamp_min(x, 0): `x < 0 ? 0 : x`), in one pass and without temporaries;
and Paddle's, which makes NaN and -0. zero.

torch keeps -0. and every NaN (its sign too) as they are. np.maximum is the fast loop (SIMD, one pass,
in place when out is the input) and returns the NaN operand as documented; only which zero it gives
for the tie -0. against 0. is left to the loop. On x86 the loop hands back its second operand on a
tie, so `np.maximum(0, x)` is exactly relu. That is checked once per dtype on a probe (contiguous,
strided, unaligned and in place, every tail length of a vector); where a loop does otherwise, an exact path
marks the -0. first and puts them back, a chunk at a time, so the marks never cost a full-size array.
"""

from __future__ import annotations

import functools

import numpy as np

CHUNK = 1 << 16  # elements per chunk of the exact path: its masks stay in cache and small


def relu_zeroing_nan(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Paddle's relu, `x > 0 ? x : 0`: NaN and -0. become +0. np.fmax returns the number when one
    operand is NaN (documented), and adding +0. turns whichever zero a tie gave into +0. (-0. + 0.
    is +0.), while every other value is itself plus nothing: two passes, no temporary."""
    if out is None:
        out = np.empty_like(x)
    zero = x.dtype.type(0)
    np.fmax(x, zero, out=out)
    if x.dtype.kind not in "biu":  # floats, bfloat16 among them
        np.add(out, zero, out=out)
    return out


def relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """relu of x into out (a new array if None; out may be x itself for relu_)."""
    try:
        zero = _fast_zeros[x.dtype]
    except KeyError:
        zero = _fast_zero(x.dtype)
    if zero is not None:
        if out is None:
            if x.ndim:  # a 0-dim input would make a numpy scalar
                return np.maximum(zero, x)
            out = np.empty_like(x)
        return np.maximum(zero, x, out=out)
    if out is None:
        out = np.empty_like(x)
    if x.dtype.kind != "f":
        return np.maximum(x, x.dtype.type(0), out=out)
    return _relu_marking_negative_zero(x, out)


_fast_zeros: dict[np.dtype, np.ndarray | None] = {}
"""dtype -> the 0-dim zero with which np.maximum(zero, x) is relu, or None where it is not (the exact
path). A 0-dim array, not a numpy scalar: numpy converts a scalar operand on every call, which costs
a small relu as much as its loop."""


def _fast_zero(dtype: np.dtype) -> np.ndarray | None:
    zero = np.zeros((), dtype) if dtype.kind == "f" and maximum_keeps_negative_zero(dtype) else None
    _fast_zeros[dtype] = zero
    return zero


def _relu_marking_negative_zero(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The exact path for any np.maximum: -0. are marked before the write (out may be x), then restored."""
    if x.flags.c_contiguous and out.flags.c_contiguous and x.ndim > 0:
        flat_x, flat_out = x.reshape(-1), out.reshape(-1)
        for start in range(0, flat_x.size, CHUNK):
            _relu_piece(flat_x[start:start + CHUNK], flat_out[start:start + CHUNK])
    else:
        _relu_piece(x, out)
    return out


def _relu_piece(x: np.ndarray, out: np.ndarray) -> None:
    negative_zero, is_zero = np.empty(x.shape, bool), np.empty(x.shape, bool)  # arrays even when 0-dim
    np.signbit(x, out=negative_zero)
    np.logical_and(negative_zero, np.equal(x, 0, out=is_zero), out=negative_zero)
    np.maximum(x, x.dtype.type(0), out=out)
    np.copyto(out, x.dtype.type(-0.0), where=negative_zero)


@functools.cache
def maximum_keeps_negative_zero(dtype: np.dtype) -> bool:
    """Whether np.maximum(0, x) is relu for this dtype: -0. kept, NaN kept bit for bit, negatives 0."""
    if dtype.itemsize not in (2, 4, 8):
        return False
    kind = np.dtype(f"u{dtype.itemsize}")
    zero = np.zeros((), dtype)  # as relu passes it
    pattern = np.array([-0.0, 0.0, np.nan, -np.nan, -1.0, 1.0, -np.inf, np.inf, -2.5], dtype=dtype)
    for length in range(1, 70):
        x = np.resize(pattern, length)[::-1].copy()
        expected = np.where(x < 0, zero, x).view(kind)
        strided = np.repeat(x, 2)[::2]
        unaligned = np.concatenate(([zero], x))[1:]  # a view starting one element into its buffer
        in_place = x.copy()
        np.maximum(zero, in_place, out=in_place)
        if not all(np.array_equal(values.view(kind), expected)
                   for values in (np.maximum(zero, x), np.maximum(zero, strided), np.maximum(zero, unaligned),
                                  in_place)):
            return False
    return True
