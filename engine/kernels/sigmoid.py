"""float32 sigmoid with torch's CPU values, bit for bit: `1 / (1 + exp(-x))` as ATen's kernel runs it.

ATen's sigmoid_kernel computes vectors of floats with Vectorized<float>::exp, which is SLEEF's
expf_u10 (a degree-5 polynomial after a two-part reduction by ln 2, every step a fused multiply-add),
and the elements after the last whole pair of vectors (n % 32 on AVX-512, whose vectors hold 16
floats, as this machine's torch runs) with the C library's expf, within 0.502 ulp of exp. SLEEF's
result is within an ulp of exp but not always the nearest float: the nearest float (exp in float64,
rounded) disagrees with torch's sigmoid on about 4% of random inputs. So the vector part replays
SLEEF's steps in float32, each fused multiply-add as the exact float64 product plus the addend
rounded to float32 (two roundings can differ from one only when the float64 sum lands exactly on a
float32 midpoint, about once in 10^9 steps; the polynomial's first four round once, on a fixed
float32 step), a chunk at a time in buffers made once per call.

Layouts: a tensor dense in memory is one run, as TensorIterator coalesces it; otherwise each row of
a contiguous last dimension is a run of its own, with its own scalar tail, and a strided last
dimension is all scalar. The scalar loop's expf is glibc's (kernels/expf.py replays it), which the
tails, strided tensors and tensors of fewer than 32 elements see.
"""

from __future__ import annotations

import math

import numpy as np

from engine.kernels.expf import expf_wide
from engine.quiet import quiet_unary, quietly

_F32, _F64 = np.float32, np.float64
VECTOR_STEP = 32  # floats per iteration of ATen's vectorized loop: two AVX-512 vectors
_CHUNK = 1 << 14  # elements per pass: the float64 buffers stay in the core's cache
_SCALAR_CHUNK = 1 << 16  # the same for the scalar loop, which keeps fewer buffers

_R_LN2 = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = _F32(-0.693145751953125)  # -ln 2 in two parts; q * _L2U is exact for every q reached here
_L2L = _F64(_F32(-1.428606765330187045e-06))
_POLY = tuple(_F64(_F32(c)) for c in (0.000198527617612853646278381, 0.00139304355252534151077271,
                                      0.00833336077630519866943359, 0.0416664853692054748535156,
                                      0.166666671633720397949219, 0.5))


def _grid_shift(c: float) -> float:
    """1.5 * 2**52 float32 steps of c's binade, a float64 whose own step is that float32 step:
    added to a float64 in c's binade, it rounds the sum to that step (to even, as float32 rounds),
    and subtracting it again is exact."""
    return 1.5 * 2.0 ** (math.frexp(c)[1] + 28)


# The first four multiply-adds of the polynomial, fma(u, s, c), land in c's binade whatever s
# (|s| < 0.35: ln 2 / 2 and the rounding of d / ln 2; tests/engine/test_sigmoid_kernel.py checks
# the bounds), so the float64 sum u * s + (c + shift), its product exact, rounds once straight to
# the float32 grid, as the fused multiply-add rounds: one pass fewer than through float32 and back.
_SHIFTED_POLY = tuple((c + _grid_shift(c), _grid_shift(c)) for c in _POLY[1:5])
_ONE = np.ones((), _F32)  # 0-d: see _one_plus_exp_negated
_ONE.flags.writeable = False


def sigmoid_float32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """torch.sigmoid of a float32 array, into out (new if None; may be x itself for sigmoid_), with
    numpy's float errors ignored whatever the caller's numpy error state (torch has none). An array
    shorter than a pair of vectors is all scalar loop, made as a new array in a few numpy calls."""
    if out is None and x.size < VECTOR_STEP:
        return quiet_unary(_scalar_sigmoid, x)
    return quietly(_sigmoid_float32, x, out)


def sigmoid_reduced(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """torch.sigmoid of a float16/bfloat16 array: ATen's reduced-float kernel converts to float and
    runs the float32 computation, rounding each result once; its vectors hold twice as many
    elements (Vectorized<BFloat16> is 32 wide on AVX-512), so its loop steps over 64."""
    return quietly(_sigmoid_float32, x, out, 2 * VECTOR_STEP)


def _sigmoid_float32(x: np.ndarray, out: np.ndarray | None, step: int = VECTOR_STEP) -> np.ndarray:
    if out is None:
        out = np.empty_like(x)
    if x.ndim == 0 or x.size < step:
        _scalar(x, out)
        return out
    dense = (x.flags.c_contiguous and out.flags.c_contiguous) or (x.flags.f_contiguous and out.flags.f_contiguous)
    if dense:
        _run(x.ravel(order="K"), out.ravel(order="K"), step)
    elif x.strides[-1] == x.itemsize:  # rows with a contiguous last dimension: each is a run
        _rows(x, out, step)
    else:  # TensorIterator only vectorizes a contiguous inner dimension
        _scalar_in_chunks(x, out)
    return out


def _rows(x: np.ndarray, out: np.ndarray, step: int) -> None:
    """Each row of a contiguous last dimension is a run of its own: vectors over its whole pairs,
    the scalar loop on the rest. Every element's value depends on itself alone, so the rows'
    vector parts are computed as one dense run and their tails as one scalar loop, instead of a
    run's set-up per row."""
    rows = x.reshape(-1, x.shape[-1])  # a copy where the rows are not evenly spaced
    body = rows.shape[1] - rows.shape[1] % step
    result = np.empty(rows.shape, _F32)
    if body:
        bodies = np.ascontiguousarray(rows[:, :body])
        computed = np.empty(bodies.shape, _F32)
        _run(bodies.reshape(-1), computed.reshape(-1), step)
        result[:, :body] = computed
    if body < rows.shape[1]:
        _scalar_in_chunks(rows[:, body:], result[:, body:])
    np.copyto(out, result.reshape(x.shape))


def _run(x: np.ndarray, out: np.ndarray, step: int = VECTOR_STEP) -> None:
    """One inner loop of TensorIterator: vectors over whole pairs, the C library for the rest."""
    body = x.size - x.size % step
    if body:
        buffers = _Buffers(min(body, _CHUNK))
        for start in range(0, body, _CHUNK):
            stop = min(start + _CHUNK, body)
            buffers.sigmoid(x[start:stop], out[start:stop])
    if body < x.size:
        _scalar(x[body:], out[body:])


def _one_plus_exp_negated(x: np.ndarray) -> np.ndarray:
    """1 + expf(-x) of the scalar loop (glibc's expf) as a new float32 array. Arrays throughout,
    even for a 0-d x, each step in place after each new array: numpy sets up a call with a cast
    out= (float64 in, float32 out) several times slower than a plain one, and takes a 0-d array
    faster than a numpy scalar (hence _ONE's shape)."""
    wide = x.astype(_F64)
    np.negative(wide, out=wide)  # -x exactly, NaN's sign flipped as torch's -x flips it
    e = expf_wide(wide).astype(_F32)
    return np.add(e, _ONE, out=e)


def _scalar(x: np.ndarray, out: np.ndarray) -> None:
    """The scalar loop, 1 / (1 + expf(-x)), into out (reciprocal is the same IEEE division as 1 / y)."""
    np.reciprocal(_one_plus_exp_negated(x), out=out)


def _scalar_in_chunks(x: np.ndarray, out: np.ndarray) -> None:
    """The scalar loop over a whole strided array: a large one is copied dense and run a chunk at a
    time, so that its float64 steps stay in the core's cache (1.6 times as fast on 2,000,000 floats)."""
    if x.size <= _SCALAR_CHUNK:
        _scalar(x, out)
        return
    flat = np.ascontiguousarray(x).reshape(-1)
    result = np.empty(flat.size, out.dtype)
    for start in range(0, flat.size, _SCALAR_CHUNK):
        _scalar(flat[start:start + _SCALAR_CHUNK], result[start:start + _SCALAR_CHUNK])
    np.copyto(out, result.reshape(x.shape))


def _scalar_sigmoid(x: np.ndarray) -> np.ndarray:
    """The scalar loop into a new array (x's layout kept, as np.empty_like keeps it)."""
    e = _one_plus_exp_negated(x)
    return np.reciprocal(e, out=e)


class _Buffers:
    """Work arrays for one chunk, made once per call."""

    def __init__(self, n: int) -> None:
        self.d, self.q, self.s, self.u = (np.empty(n, _F32) for _ in range(4))
        self.q_int = np.empty(n, np.int32)
        self.q64, self.s64, self.u64 = (np.empty(n, _F64) for _ in range(3))

    def sigmoid(self, x: np.ndarray, out: np.ndarray) -> None:
        n = x.size
        d, q, s, u = self.d[:n], self.q[:n], self.s[:n], self.u[:n]
        q_int, q64, s64, u64 = self.q_int[:n], self.q64[:n], self.s64[:n], self.u64[:n]
        np.negative(x, out=d)
        # exp(d) is 0 below -104 and inf above 100; clipping gives the same sigmoid (1 + tiny is 1,
        # 1 + inf is inf) and keeps the reduction finite. NaN passes through and is fixed below.
        np.clip(d, _F32(-104), _F32(100), out=d)
        np.multiply(d, _R_LN2, out=q)
        np.rint(q, out=q)  # q = round(d / ln 2), to even as the vector conversion rounds
        q_int[...] = q  # NaN has no integer (numpy's warning is off here); its element is fixed below
        np.multiply(q, _L2U, out=s)
        s += d  # fma(q, -L2U, d): the product is exact
        q64[...] = q
        q64 *= _L2L
        s64[...] = s
        s64 += q64
        s[...] = s64  # s = fma(q, -L2L, s)
        s64[...] = s
        np.multiply(s64, _POLY[0], out=u64)
        for shifted, shift in _SHIFTED_POLY:  # u = fma(u, s, c) four times, on the float32 grid
            u64 += shifted
            u64 -= shift
            u64 *= s64
        u64 += _POLY[-1]
        u[...] = u64  # u = fma(u, s, 0.5), through float32: it lands on either side of 0.5
        np.multiply(s, s, out=q)  # s * s, rounded to float32
        q64[...] = q
        u64[...] = u
        u64 *= q64
        u64 += s64
        u[...] = u64  # fma(s * s, u, s)
        u += _ONE
        np.ldexp(u, q_int, out=u)  # exp(d) = u * 2**q
        u += _ONE
        np.divide(_ONE, u, out=out)
        if np.isnan(d.min()):  # torch's NaN is the NaN of -x (d; out may be x, written already),
            np.copyto(out, d + d, where=np.isnan(d))  # quiet as arithmetic leaves it (d + d)
