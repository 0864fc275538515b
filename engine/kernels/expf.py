"""glibc's expf, the C library's float exp that ATen's scalar loops call, bit for bit.

glibc's expf (2.27 and later; sysdeps/ieee754/flt-32/e_expf.c) computes exp in double, as
2**(k/32) from a table times a cubic in the remainder, and rounds once to float: within 0.502 ulp,
so not always the nearest float. numpy's exp in float64, rounded, is the nearest float; the two
differ for about one input in 2,000 over expf's range. They can differ only where exp lies close
to a midpoint between two floats, so numpy's exp is kept everywhere else and glibc's steps are
replayed for the few elements that close (about one in 250).
"""

from __future__ import annotations

import numpy as np

# A double whose low 29 significand bits (those a float drops) lie within 2**20 of 2**28 is within
# about 0.002 float ulps of a midpoint between two floats, the most glibc's error (under
# 1.69 * 2**-34 of exp, before its rounding) can move it; bits - (2**28 - 2**20) then has bits
# 28..21 all zero, and only then.
_BELOW_MIDPOINT = np.array((1 << 28) - (1 << 20), np.uint64)
_MIDPOINT_WINDOW = np.array(0x1FE00000, np.uint64)
_BELOW_MIDPOINT.flags.writeable = _MIDPOINT_WINDOW.flags.writeable = False

# glibc's expf runs its steps between these; outside, it gives 0, inf or NaN, as numpy's exp rounds
_STEPS_FROM, _STEPS_TO = float.fromhex("-0x1.9fe368p6"), float.fromhex("0x1.62e42ep6")

_EXP2_TABLE = np.array([  # glibc's __exp2f_data.tab: the bits of 2**(i/32), less i << 47
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540], np.uint64)
_EXP2_TABLE.flags.writeable = False
_INV_LN2_N = float.fromhex("0x1.71547652b82fep+0") * 32
_POLY = (float.fromhex("0x1.c6af84b912394p-5") / 32 ** 3, float.fromhex("0x1.ebfce50fac4f3p-3") / 32 ** 2,
         float.fromhex("0x1.62e42ff0c52d6p-1") / 32)


def expf_wide(x: np.ndarray) -> np.ndarray:
    """glibc's expf of float32 values held in float64 (x), before its rounding to float: a new
    float64 array whose float32 rounding is expf(x) bit for bit. Results below 2**-126 (subnormal
    floats, whose midpoints lie elsewhere) may still round an ulp off; added to 1, as the sigmoid
    adds them, they vanish."""
    if not x.ndim:  # numpy's ufuncs give scalars for 0-d results: work on one element
        return expf_wide(x.reshape(1)).reshape(())
    e = np.exp(x)
    near = np.subtract(e.view(np.uint64), _BELOW_MIDPOINT)
    np.bitwise_and(near, _MIDPOINT_WINDOW, out=near)
    if np.count_nonzero(near) < near.size:  # some are close (count_nonzero: no ufunc set-up)
        close = near == 0
        args = x[close]
        e[close] = np.where((args >= _STEPS_FROM) & (args <= _STEPS_TO), _glibc_steps(args), e[close])
    return e


def _glibc_steps(x: np.ndarray) -> np.ndarray:
    """glibc's expf before its final rounding, step by step in float64: x = (k + r) ln 2 / 32 with k
    an integer, exp(x) = 2**(k/32) * 2**(r/32), the first from the table (its exponent added to
    the bits), the second a cubic in r. glibc's x86-64 build fuses its three multiply-adds; these
    round twice, which moves the float only where the double lands within a few of its ulps of the
    midpoint (about once in 10**8 inputs)."""
    z = _INV_LN2_N * x
    k = np.rint(z)
    r = z - k
    ki = k.astype(np.int64)
    scale = (_EXP2_TABLE[ki & 31] + (ki.astype(np.uint64) << np.uint64(47))).view(np.float64)
    y = (_POLY[0] * r + _POLY[1]) * (r * r) + (_POLY[2] * r + 1)
    return y * scale
