"""Random numbers that repeat PyTorch's CPU generator value for value.

After `torch.manual_seed(n)` the engine produces the tensors PyTorch 2.13 produces on an x86-64 CPU,
so pasted tutorial code that seeds and prints random weights prints what PyTorch prints. Equal
distributions are not enough for that: every op below replays ATen's CPU kernel, i.e. which 32-bit
words it takes from the generator, in which order, and with which floating-point operations.

* The generator is mt19937 seeded with the low 32 bits of the seed (init_genrand). numpy's legacy
  seeding of its MT19937 is the same, so numpy hands out the words in bulk.
* `random64()` is two words, the first one high. Float uniforms keep the low 24 (float32, also for
  Half) or 53 (float64) bits, scaled by 2**-24 / 2**-53; `x * (to - from) + from` is one fused
  multiply-add, and a result that rounds to `to` is replaced by `from`.
* Normals have two paths. A contiguous tensor of >= 16 elements is first filled with uniforms, then
  Box-Muller turns each block of 16 into 16 normals (pairs j, j+8); when 16 does not divide the size,
  the last 16 are drawn again and recomputed. float32 (and Half) does this with the Cephes
  polynomials of ATen's avx_mathfun.h, compiled with fused multiply-adds, which we replay in numpy;
  float64 uses libm's log/cos/sin. Anything else draws one normal at a time from
  `at::normal_distribution<double>`, whose Box-Muller pair returns r*cos and keeps r*sin on the
  generator for the next call -- across calls and ops, as in PyTorch.
* Element i of an in-place op on a strided tensor gets the i-th draw in memory order (the order
  ATen's TensorIterator visits it), not in logical order.

Known limits: bernoulli_(p) follows ATen's default kernel, which PyTorch runs on AMD CPUs; on Intel
CPUs ATen picks MKL's own stream for it. The double-precision normals use numpy's log/log1p/cos/sin,
which are libm's on AVX2 machines; numpy's AVX-512 builds have their own, which can differ in the last
bit. randperm(n) for n >= 2**32 / 20 runs its (exact) inside-out shuffle in Python. A fresh PyTorch
2.13 process seeds its default generator randomly; the engine starts from torch.Generator()'s fixed
default seed, so even unseeded runs repeat.
"""

from __future__ import annotations

import math
import numbers
import secrets
import warnings
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from engine import devices, dtypes, geometry, libm, runtime
from engine.devices import CPU
from engine.kernels.fma import fma32, fma64
from engine.ops.core import (
    apply_inplace,
    check_inplace_allowed,
    check_internal_overlap,
    check_writable,
)
from engine.ops.factories import _check_device, _finish
from engine.ops.views import sizes_arg
from engine.storage import Storage
from engine.tensor import Tensor

DEFAULT_SEED = 67280421310721  # c10::detail::default_rng_seed_val: the seed of a new torch.Generator()
_MT_WORDS = 624
_BULK_WORDS = 1 << 16
_CHUNK = 1 << 13  # elements per pass of the element-wise arithmetic: the temporaries stay in cache (and below
# malloc's mmap threshold, so they cost no page faults)

# CPUGeneratorImplState as torch.get_rng_state() returns it: THGeneratorState (the mt19937 words widened
# to uint64, `left`/`next` of the engine, the cached double normal) plus the cached float normal.
_STATE = np.dtype({
    "names": ["seed", "left", "seeded", "next", "words", "normal_x", "normal_y", "normal_rho", "normal_valid",
              "float_normal", "float_normal_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", (_MT_WORDS,)), "<f8", "<f8", "<f8", "<i4", "<f4", "u1"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": 5056,
})

# C++ type names, as ATen's bounds messages print the dtype.
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}

_F32, _F64 = np.float32, np.float64

# (lowest, highest) of each type as ATen's bounds checks see them, and the mantissa digits of floats
_LIMITS = {d: (0, 1) if d is dtypes.bool_ else
           (float(ml_dtypes.finfo(d.np).min), float(ml_dtypes.finfo(d.np).max)) if d.is_floating_point else
           (int(np.iinfo(d.np).min), int(np.iinfo(d.np).max)) for d in dtypes.ALL}
_DIGITS = {dtypes.float16: 11, dtypes.bfloat16: 8, dtypes.float32: 24, dtypes.float64: 53}


class Generator:
    """torch.Generator on the CPU: ATen's mt19937 plus the normal sample it caches between calls."""

    def __init__(self, device: Any = "cpu") -> None:
        _check_device(device)
        self.device = CPU
        self._bits = np.random.MT19937(0)
        self._mt = np.random.RandomState(self._bits)  # legacy seeding and state tuples
        self._bulk = np.random.Generator(self._bits)  # the fastest full-range uint32 fill
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        """Seed as CPUGeneratorImpl::set_current_seed: the 64-bit seed is kept, mt19937 gets its low
        32 bits, and both cached normals are dropped."""
        if not isinstance(seed, numbers.Integral):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed < 1 << 64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & 0xFFFF_FFFF_FFFF_FFFF
        self._mt.seed(self._seed & 0xFFFF_FFFF)
        self._normal: float | None = None  # next_double_normal_sample_
        self._float_normal: float | None = None  # next_float_normal_sample_: only carried through get/set_state
        self._fresh = True  # seeded and not drawn from: ATen's state then says next=0 rather than next=624
        return self

    def seed(self) -> int:
        """Reseed from the OS, as torch.Generator.seed() does, and return the new seed."""
        new_seed = secrets.randbits(64)
        self.manual_seed(new_seed)
        return new_seed

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {hex(id(self))}>"

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The state as the 5056 bytes torch.Generator.get_state() returns, byte for byte."""
        _, words, pos, _, _ = self._mt.get_state()
        state = np.zeros(1, _STATE)
        state["seed"] = self._seed
        state["left"] = _MT_WORDS + 1 - pos
        state["seeded"] = 1
        state["next"] = 0 if self._fresh else pos
        state["words"] = words
        if self._normal is not None:
            state["normal_y"], state["normal_valid"] = self._normal, 1
        if self._float_normal is not None:
            state["float_normal"], state["float_normal_valid"] = self._float_normal, 1
        return Tensor._wrap(state.view(np.uint8).copy(), dtypes.uint8)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state from get_state() -- or from real torch.get_rng_state(), the layout is the same."""
        if not isinstance(new_state, Tensor) or new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._numpy_view()).reshape(-1)
        if raw.size != _STATE.itemsize:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE.itemsize} but found the input "
                               f"RNG state size to be {raw.size}")
        state = raw.view(_STATE)[0]
        self._mt.set_state(("MT19937", state["words"].astype(np.uint32), _MT_WORDS + 1 - int(state["left"]), 0, 0.0))
        self._seed = int(state["seed"])
        self._normal = float(state["normal_y"]) if state["normal_valid"] else None
        self._float_normal = float(state["float_normal"]) if state["float_normal_valid"] else None
        self._fresh = int(state["next"]) == 0 and int(state["left"]) == 1
        return self

    def words(self, n: int) -> np.ndarray:
        """The next n outputs of CPUGeneratorImpl::random() (uint32). random_raw costs a microsecond
        a call, integers() twenty, but integers() fills large arrays faster."""
        if n:
            self._fresh = False
        if n < _BULK_WORDS:
            return self._bits.random_raw(n).astype(np.uint32)
        return self._bulk.integers(0, 1 << 32, size=n, dtype=np.uint32)

    def words64(self, n: int) -> np.ndarray:
        """The next n outputs of random64(): two words each, the first one in the high half."""
        pairs = self.words(2 * n).astype(np.uint64).reshape(n, 2)
        return (pairs[:, 0] << np.uint64(32)) | pairs[:, 1]


class DeviceGenerator(Generator):
    """The simulated CUDA device's default generator (torch.cuda.default_generators[0]).

    A real GPU draws with Philox in curand's kernels, so its values are not the CPU's and no CPU
    replay could give them. What the engine keeps is what programs see: the device has a stream of
    its own, so drawing on it leaves the CPU generator where it was, and torch.manual_seed (or
    torch.cuda.manual_seed) makes its draws repeat. Normals and uniforms come from numpy's
    SFC64 generator in bulk, several times cheaper than the CPU's exact replay: a 10^8-element
    `randn(..., device="cuda")` costs what numpy's own does. Other draws (randint, randperm...) take
    words from the generator's own mt19937."""

    def __init__(self) -> None:
        super().__init__()
        self.device = devices.device("cuda", 0)

    def manual_seed(self, seed: int) -> Generator:
        super().manual_seed(seed)
        self._bulk_draws = np.random.Generator(np.random.SFC64(self._seed))
        return self

    def normal(self, n: int, dtype: dtypes.dtype, mean: float, std: float) -> np.ndarray:
        wide = dtype is dtypes.float64
        values = self._bulk_draws.standard_normal(n) if wide else self._box_muller(n)
        if std != 1:
            values *= values.dtype.type(std)
        if mean != 0:
            values += values.dtype.type(mean)
        return _cast(values, dtype)

    def _box_muller(self, n: int) -> np.ndarray:
        """n float32 normals as curand and ATen's CPU kernel make them, by Box-Muller on 24-bit
        uniforms (radius from the first half, angle from the second): a third cheaper than numpy's
        ziggurat, all in place."""
        half = (n + 1) // 2
        uniforms = self._bulk_draws.random(2 * half, dtype=_F32)
        radius, angle = uniforms[:half], uniforms[half:]
        np.subtract(_F32(1), radius, out=radius)  # in (0, 1]: the log is finite
        np.log(radius, out=radius)
        radius *= _F32(-2)
        np.sqrt(radius, out=radius)
        angle *= _F32(2 * math.pi)
        values = np.empty(2 * half, _F32)
        np.cos(angle, out=values[:half])
        np.sin(angle, out=values[half:])
        values[:half] *= radius
        values[half:] *= radius
        return values[:n]

    def uniform(self, n: int, dtype: dtypes.dtype, low: float, high: float) -> np.ndarray:
        wide = dtype is dtypes.float64
        values = self._bulk_draws.random(n, dtype=_F64 if wide else _F32)
        if (low, high) != (0, 1):
            values *= values.dtype.type(high - low)
            values += values.dtype.type(low)
        values = _cast(values, dtype)
        values[values == dtype.np.type(high)] = dtype.np.type(low)
        return values


default_generator: Generator = runtime.slot(__name__, "default_generator", Generator)
"""The active runtime's generator (torch.default_generator): each session has its own."""
device_generator: DeviceGenerator = runtime.slot(__name__, "device_generator", DeviceGenerator)
"""The simulated CUDA device's generator, one per session too."""


def manual_seed(seed: int) -> Generator:
    """torch.manual_seed: Python converts the seed with int() first, so 3.7 seeds 3; the device's
    generator is seeded too, as torch seeds every CUDA generator."""
    device_generator.manual_seed(int(seed))
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


def _gen(generator: Generator | None) -> Generator:
    """The generator a draw takes: the one given, else the default one of the device it runs on."""
    if generator is not None:
        return generator
    return device_generator if devices.state.current.type == "cuda" else default_generator


# --------------------------------------------------------------------------- casts
def _cast(values: np.ndarray, dtype: dtypes.dtype) -> np.ndarray:
    """static_cast<scalar_t>: c10::Half is built from a float, so doubles reach half through float32."""
    if dtype is dtypes.float16:
        return values.astype(_F32).astype(np.float16)
    return values.astype(dtype.np, copy=False)


# --------------------------------------------------------------------------- uniform
def _uniform_floats(gen: Generator, n: int) -> np.ndarray:
    """uniform_real_distribution<float>(0, 1): the low 24 bits of one word, times 2**-24."""
    words = gen.words(n)
    words &= np.uint32(0xFFFFFF)
    values = words.astype(_F32)
    values *= _F32(2.0**-24)
    return values


def _uniform_doubles(gen: Generator, n: int) -> np.ndarray:
    """uniform_real_distribution<double>(0, 1): the low 53 bits of random64(), times 2**-53."""
    bits = gen.words64(n)
    bits &= np.uint64((1 << 53) - 1)
    values = bits.astype(_F64)
    values *= 2.0**-53
    return values


def _uniform(gen: Generator, n: int, dtype: dtypes.dtype, low: float, high: float) -> np.ndarray:
    """uniform_kernel: `x * (to - from) + from` fused, in double for double and in float otherwise
    (Half too, from 24-bit uniforms, then rounded); a value that rounds to `to` becomes `from`.
    The arithmetic runs in cache-sized chunks: its float64 temporaries would be twice the tensor."""
    if isinstance(gen, DeviceGenerator):
        return gen.uniform(n, dtype, low, high)
    double = dtype is dtypes.float64
    low32, high32 = _F32(low), _F32(high)
    top, bottom = dtype.np.type(high), dtype.np.type(low)
    out = np.empty(n, dtype.np)
    for start in range(0, n, _CHUNK):  # the words too are drawn chunk by chunk, in order
        count = min(_CHUNK, n - start)
        part = _uniform_doubles(gen, count) if double else _uniform_floats(gen, count)
        values = fma64(part, high - low, low) if double else _cast(fma32(part, high32 - low32, low32), dtype)
        values[values == top] = bottom
        out[start:start + count] = values
    return out


# --------------------------------------------------------------------------- normal, float32 fill path
def _single(value: float) -> np.float64:
    """A constant of avx_mathfun.h: a float, held in float64 for the fused steps."""
    return _F64(_F32(value))


_LOG_POLY = tuple(_single(c) for c in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                                       1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                                       3.3333331174e-1))
# cos and sin polynomials side by side (rows), to run as one Horner over both
_SINCOS_POLY = tuple(np.array([[_single(c)], [_single(s)]])
                     for c, s in zip((2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2),
                                     (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1), strict=True))
_SQRTHF = _F32(0.707106781186547524)
_LOG_Q1, _LOG_Q2 = _F32(-2.12194440e-4), _F32(0.693359375)
_FOUR_OVER_PI = _F32(1.27323954473516)
_DP1, _DP2, _DP3 = _F32(-0.78515625), _F32(-2.4187564849853515625e-4), _single(-3.77489497744594108e-8)
_TWO_PI = _F32(2.0 * math.pi)  # _mm256_set1_ps(2.0f * c10::pi<double>)
_BLOCKS_PER_CHUNK = 2048  # 16 Ki values per half: the buffers (made once per fill) stay in cache


class _BoxMuller:
    """normal_fill_16_AVX2 on rows of 16 words, with ATen's float32 arithmetic replayed exactly
    (avx_mathfun.h's Cephes log and sincos as GCC compiles them, fused multiply-adds included).

    A fused multiply-add in float32 is `y * x + c` with the exact product (floats have 24 bits,
    so a product of two fits float64) and the sum rounded in float64, then to float32. That can
    round twice only for a sum that is inexact in float64 *and* lands on a float32 midpoint (about
    one step in 10**10 here), so the polynomial steps skip fma32's fix. Every step writes into
    buffers made once per fill (no allocation per chunk), each ufunc on one dtype (numpy's mixed
    and masked loops cost several times more than an explicit widening)."""

    def __init__(self, rows: int) -> None:
        n = rows * 8
        self.ints = [np.empty(n, np.int32) for _ in range(3)]
        self.floats = [np.empty(n, _F32) for _ in range(11)]  # 6 for the radius, 5 for cos and sin
        self.doubles = [np.empty(n, _F64) for _ in range(4)]
        self.pair = np.empty((2, n), _F32)
        self.pair64 = np.empty((2, n), _F64)
        self.mask = np.empty(n, bool)

    def fill(self, words: np.ndarray, out: np.ndarray, mean: float, std: float) -> None:
        """out[r, :8] = radius * cos(theta) and out[r, 8:] = radius * sin(theta), each through
        fmadd(n, std, mean), for u1 = 1 - u[:8] and u2 = u[8:] of each row of words; radius =
        sqrt(-2 log u1), theta = 2 pi u2."""
        rows = words.shape[0]
        n = rows * 8
        radius = self._radius(words[:, :8], n)
        cosine, sine = self._cos_sin(words[:, 8:], n)
        cosine *= radius
        sine *= radius
        for half, values in ((out[:, :8], cosine), (out[:, 8:], sine)):
            if _F32(std) == 1:  # x * 1 is exact: the fused result is the plain sum (-0 + 0 is +0 in both)
                np.add(values.reshape(rows, 8), _F32(mean), out=half)
            else:
                half[...] = fma32(values, _F32(std), _F32(mean)).reshape(rows, 8)

    def _radius(self, low_words: np.ndarray, n: int) -> np.ndarray:
        """sqrt(-2 log u1) by log256_ps: frexp by bit masks, then Cephes' polynomial."""
        k, e_int, mantissa = (buffer[:n] for buffer in self.ints)
        u, e, x, z, y, t = (buffer[:n] for buffer in self.floats[:6])
        x64, s64, z64, t64 = (buffer[:n] for buffer in self.doubles)
        below = self.mask[:n]
        np.bitwise_and(low_words, 0xFFFFFF, out=k.reshape(-1, 8), casting="unsafe")
        np.subtract(1 << 24, k, out=k)  # u1 = 1 - k 2**-24 = (2**24 - k) 2**-24, exactly
        u[...] = k
        u *= _F32(2.0**-24)
        bits = u.view(np.int32)
        np.right_shift(bits, 23, out=e_int)
        e_int -= 126
        np.bitwise_and(bits, 0x007FFFFF, out=mantissa)
        mantissa |= 0x3F000000
        m = mantissa.view(_F32)  # in [0.5, 1)
        np.less(m, _SQRTHF, out=below)
        t[...] = below
        e[...] = e_int
        e -= t
        np.subtract(m, _F32(1), out=x)
        t *= m
        x += t  # 2m - 1 below sqrt(1/2), exactly
        np.multiply(x, x, out=z)
        x64[...] = x
        self._horner(x64, _LOG_POLY, y, s64)
        y *= x
        s64[...] = y
        z64[...] = z
        s64 *= z64
        np.multiply(e, _LOG_Q1, out=t)
        t64[...] = t
        s64 += t64
        y[...] = s64  # fma(y, z, e * q1)
        np.multiply(z, _F32(0.5), out=t)
        y -= t
        x += y
        np.multiply(e, _LOG_Q2, out=t)
        x += t  # e * q2 is exact, so the fma is a plain sum
        x *= _F32(-2)
        np.sqrt(x, out=x)
        return x

    def _cos_sin(self, high_words: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """cos and sin of theta = 2 pi u2 by sincos256_ps: octant, three-part reduction by pi/4, the
        cosine and sine polynomials side by side, then the selection and signs done on the bits."""
        k, j, work = (buffer[:n] for buffer in self.ints)
        theta, octant, x, z, t = (buffer[:n] for buffer in self.floats[6:])
        x64, z64, t64, _ = (buffer[:n] for buffer in self.doubles)
        polys, polys64 = self.pair[:, :n], self.pair64[:, :n]
        np.bitwise_and(high_words, 0xFFFFFF, out=k.reshape(-1, 8), casting="unsafe")
        theta[...] = k
        theta *= _F32(2.0**-24)
        theta *= _TWO_PI
        np.multiply(theta, _FOUR_OVER_PI, out=t)
        j[...] = t  # truncated, as the AVX conversion does
        j += 1
        j &= ~1
        octant[...] = j
        np.multiply(octant, _DP1, out=t)  # octant * DP1 and octant * DP2 are exact
        np.add(theta, t, out=x)
        np.multiply(octant, _DP2, out=t)
        x += t
        x64[...] = octant
        x64 *= _DP3
        t64[...] = x
        x64 += t64
        x[...] = x64  # fma(octant, DP3, x)
        x64[...] = x
        np.multiply(x, x, out=z)
        z64[...] = z
        self._horner(z64, _SINCOS_POLY, polys, polys64)
        polys *= z
        polys64[...] = polys
        polys64[0] *= z64
        np.multiply(z, _F32(0.5), out=t)
        t64[...] = t
        polys64[0] -= t64  # cosine: fmsub(y, z, z * 0.5), then + 1
        polys64[1] *= x64
        polys64[1] += x64  # sine: fma(y, x, x)
        polys[...] = polys64
        polys[0] += _F32(1)
        bits = polys.view(np.int32)
        np.bitwise_and(j, 2, out=work)
        work >>= 1
        work -= 1  # all ones where the sine polynomial gives the sine
        np.bitwise_xor(bits[0], bits[1], out=k)
        k &= work  # the bits where the two polynomials differ, where they swap
        bits[0] ^= k
        bits[1] ^= k  # now bits[0] is the sine, bits[1] the cosine
        np.bitwise_and(j, 4, out=work)
        work <<= 29
        bits[0] ^= work
        np.subtract(j, 2, out=work)
        np.invert(work, out=work)
        work &= 4
        work <<= 29
        bits[1] ^= work
        return polys[1], polys[0]

    @staticmethod
    def _horner(x64: np.ndarray, coefficients: tuple[Any, ...], out: np.ndarray, scratch: np.ndarray) -> None:
        """y = c0; y = fma(y, x, c) for the rest, each step rounded once to float32 (into `out`)."""
        np.multiply(x64, coefficients[0], out=scratch)
        scratch += coefficients[1]
        for c in coefficients[2:]:
            out[...] = scratch
            scratch[...] = out
            scratch *= x64
            scratch += c
        out[...] = scratch


def _normal_fill_float32(gen: Generator, n: int, mean: float, std: float, fill_words: int) -> np.ndarray:
    """normal_fill_AVX2: uniforms for the blocks, Box-Muller per block of 16, and when 16 does not
    divide n the last 16 drawn again and recomputed. float32 first draws one uniform for every
    element (`fill_words` = n), Half only for the whole blocks; the redraw follows either way.
    The words are drawn chunk by chunk, in the same order, so no array of n words is ever made."""
    tail = n % 16
    out = np.empty(n, _F32)
    blocks = n // 16
    out_blocks = out[:blocks * 16].reshape(blocks, 16)
    box_muller = _BoxMuller(max(min(blocks, _BLOCKS_PER_CHUNK), 1))
    for start in range(0, blocks, _BLOCKS_PER_CHUNK):
        stop = min(start + _BLOCKS_PER_CHUNK, blocks)
        box_muller.fill(gen.words((stop - start) * 16).reshape(-1, 16), out_blocks[start:stop], mean, std)
    gen.words(fill_words - blocks * 16)  # the uniforms of the partial block, drawn and not used
    if tail:
        box_muller.fill(gen.words(16).reshape(1, 16), out[n - 16:].reshape(1, 16), mean, std)
    return out


# --------------------------------------------------------------------------- normal, other paths
def _normal_fill_float64(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """normal_fill<double>: the same blocks of 16, from double uniforms, with libm's log, cos and sin
    (`radius * cos(theta) * std + mean` ends in a fused multiply-add)."""
    uniforms = _uniform_doubles(gen, n + (16 if n % 16 else 0))

    def transform(block: np.ndarray) -> np.ndarray:
        rows = block.reshape(-1, 16)
        radius = np.sqrt(-2 * libm.log(1 - rows[:, :8]))
        theta = 2.0 * math.pi * rows[:, 8:]
        return np.concatenate([radius * libm.cos(theta), radius * libm.sin(theta)], axis=1).reshape(-1)

    values = np.empty(n)
    blocks = n // 16 * 16
    values[:blocks] = transform(uniforms[:blocks])
    if n % 16:
        values[n - 16:] = transform(uniforms[n:])
    return fma64(values, std, mean)


def _normal_serial(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """at::normal_distribution<double>, one element after the other: a Box-Muller pair from two
    uniforms returns r*cos(theta) and caches r*sin(theta) on the generator; a cached sample is used
    first. r = sqrt(-2 log1p(-u2)), theta = 2 pi u1; then `value * std + mean`, fused."""
    values = np.empty(n)
    start = 0
    if n and gen._normal is not None:
        values[0], gen._normal, start = gen._normal, None, 1
    count = n - start
    pairs = (count + 1) // 2
    uniforms = _uniform_doubles(gen, 2 * pairs).reshape(pairs, 2)
    radius = np.sqrt(-2.0 * libm.log1p(-uniforms[:, 1]))
    theta = 2.0 * math.pi * uniforms[:, 0]
    both = np.empty(2 * pairs)
    both[0::2] = radius * libm.cos(theta)
    both[1::2] = radius * libm.sin(theta)
    values[start:] = both[:count]
    if count % 2:
        gen._normal = float(both[-1])
    return fma64(values, std, mean)


def _normal(gen: Generator, n: int, dtype: dtypes.dtype, mean: float, std: float, contiguous: bool) -> np.ndarray:
    """normal_kernel's dispatch between the block fill and the element-by-element path."""
    if isinstance(gen, DeviceGenerator):
        return gen.normal(n, dtype, mean, std)
    if n >= 16 and contiguous:
        if dtype is dtypes.float64:
            return _normal_fill_float64(gen, n, mean, std)
        fill_words = n if dtype is dtypes.float32 else n // 16 * 16
        return _cast(_normal_fill_float32(gen, n, mean, std, fill_words), dtype)  # float32: no copy
    return _cast(_normal_serial(gen, n, mean, std), dtype)


# --------------------------------------------------------------------------- integers
def _random_from_to(gen: Generator, n: int, span: int, base: int, dtype: dtypes.dtype) -> np.ndarray:
    """random_from_to_kernel: `(word % span) + base`, with random64() once span reaches 2**28."""
    raw = gen.words64(n) if span >= 1 << 28 else gen.words(n).astype(np.uint64)
    raw %= np.uint64(span)
    shifted = raw.view(np.int64) + np.int64(base)  # wraps like ATen's uint64 arithmetic
    return _cast(shifted, dtype)


def _random_full(gen: Generator, n: int, dtype: dtypes.dtype) -> np.ndarray:
    """random_kernel (random_() without bounds): [0, 2**digits] for floats, [0, max] for integers."""
    wide = dtype in (dtypes.int64, dtypes.float64)
    raw = gen.words64(n) if wide else gen.words(n).astype(np.uint64)
    if dtype.is_floating_point:
        modulus = (1 << _DIGITS[dtype]) + 1
    elif dtype is dtypes.bool_:
        modulus = 2
    else:
        modulus = _LIMITS[dtype][1] + 1
    raw %= np.uint64(modulus)
    return _cast(raw.view(np.int64), dtype)


def _update_from(value: int, dtype: dtypes.dtype) -> int:
    """ATen's update_from: when from + 1 rounds below `from` in the float type, move `from` up."""
    as_float = int(dtype.np.type(value + 1))
    if as_float < value:
        bits = abs(value + 1).bit_length() - 1
        value = as_float + (1 << (bits - _DIGITS[dtype] + 1))
    return value


def _update_to(value: int, dtype: dtypes.dtype) -> int:
    """ATen's update_to: when to - 1 rounds up to `to` or beyond in the float type, move `to` down."""
    as_float = int(dtype.np.type(value - 1))
    if as_float >= value:
        bits = abs(value - 1).bit_length() - 1
        value = as_float - (1 << (bits - _DIGITS[dtype] + 1))
    return value


def _check_random_bounds(low: int, high_inclusive: int, dtype: dtypes.dtype) -> None:
    """check_from_to_in_range: errors outside the type, and the float precision warning."""
    lowest, highest = _LIMITS[dtype]
    bounds = ((low, "from"), (high_inclusive, "to - 1"))
    for value, name in bounds:
        if not lowest <= value <= highest:
            raise RuntimeError(f"{name} is out of bounds for {_CPP_NAMES[dtype.name]}")
    if dtype.is_floating_point:
        digits = _DIGITS[dtype]
        for value, name in bounds:
            if not -(1 << digits) <= value <= 1 << digits:
                warnings.warn(
                    f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                    f"{_CPP_NAMES[dtype.name]} can support discrete uniform distribution only within this range. "
                    "This warning will become an error in version 1.7 release, please fix the code in advance",
                    UserWarning, stacklevel=4)


def _random_plan(dtype: dtypes.dtype, low: int, high: int | None) -> tuple[int, int] | None:
    """random_from_to_impl: (span, base) of the draw, None for the full int64 range."""
    if high is not None:
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        if dtype.is_floating_point:
            low, high = _update_from(low, dtype), _update_to(high, dtype)
            if low >= high:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                                   f"but got from={low} >= to={high}")
        _check_random_bounds(low, high - 1, dtype)
        return high - low, low
    if low == -(1 << 63) and dtype is dtypes.int64:
        return None
    if dtype.is_floating_point:
        high_inclusive = 1 << _DIGITS[dtype]
        low = _update_from(low, dtype)
        if low >= high_inclusive:
            raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                               f"to dtype, but got from={low} > to_inc={high_inclusive}")
    else:
        high_inclusive = int(_LIMITS[dtype][1])
    _check_random_bounds(low, high_inclusive, dtype)
    return high_inclusive - low + 1, low


# --------------------------------------------------------------------------- writing in iteration order
def _iteration_order(strides: tuple[int, ...]) -> list[int]:
    """Dimensions from outermost to innermost as TensorIterator walks a strided tensor: by decreasing
    stride (memory order), ties kept in dimension order."""
    return sorted(range(len(strides)), key=lambda d: -strides[d])


def _iteration_view(array: np.ndarray) -> np.ndarray:
    """The array with its axes in iteration order, so that its C order is the order of the draws."""
    return array.transpose(_iteration_order(array.strides))


def _empty_like(other: Tensor, dtype: dtypes.dtype) -> np.ndarray:
    """A dense array laid out in other's stride order, as at::empty_like (preserve_format) allocates."""
    order = _iteration_order(other._stride)
    dense = np.empty(tuple(other._shape[d] for d in order), dtype.np)
    return dense.transpose(np.argsort(order))


def _laid_out_like(other: Tensor, dtype: dtypes.dtype, values: np.ndarray) -> np.ndarray:
    """empty_like(other) filled with `values` in iteration order."""
    out = _empty_like(other, dtype)
    view = _iteration_view(out)
    view[...] = values.reshape(view.shape)
    return out


def _filled_like(other: Tensor, dtype: dtypes.dtype, values: np.ndarray) -> Tensor:
    return Tensor._wrap(_laid_out_like(other, dtype, values), dtype)


def _random_inplace(self: Tensor, name: str, draw: Callable[[int, bool], np.ndarray],
                    check: Callable[[], None] | None = None) -> Tensor:
    """In-place random op: autograd and overlap checks, the op's own argument checks, then the draws
    written in iteration order. `draw(n, contiguous)` returns the n values."""
    check_inplace_allowed(self)
    check_writable(self)
    if check is not None:
        check()

    def write(target: np.ndarray) -> None:
        if target.size:
            view = _iteration_view(target)
            view[...] = draw(target.size, self.is_contiguous()).reshape(view.shape)

    return apply_inplace(self, write, name, (), check_autograd=False)


def _check_float(dtype: dtypes.dtype, kernel: str) -> None:
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype.short}\'')


def _fmt(value: float) -> str:
    """A double as C++'s ostream prints it in ATen's messages (6 significant digits)."""
    return f"{value:g}"


def _uniform_check(dtype: dtypes.dtype, low: float, high: float) -> None:
    _check_float(dtype, "check_uniform_bounds")
    lowest, highest = _LIMITS[dtype]
    for value, name in ((low, "from"), (high, "to")):
        if not lowest <= value <= highest:
            raise RuntimeError(f"{name} is out of bounds for {_CPP_NAMES[dtype.name]}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_fmt(low)} > to={_fmt(high)}")
    if high - low > highest:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{dtype.short}>::max(), but found "
                           f"to={_fmt(high)} and from={_fmt(low)} which result in to-from to exceed the limit")


def _normal_check(dtype: dtypes.dtype, std: float) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    _check_float(dtype, "normal_kernel_cpu")


# --------------------------------------------------------------------------- in-place ops
def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    a, b = float(a), float(b)
    return _random_inplace(self, "UniformBackward0", lambda n, _: _uniform(_gen(generator), n, self.dtype, a, b),
                           lambda: _uniform_check(self.dtype, a, b))


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    mean, std = float(mean), float(std)
    return _random_inplace(
        self, "NormalBackward0", lambda n, contiguous: _normal(_gen(generator), n, self.dtype, mean, std, contiguous),
        lambda: _normal_check(self.dtype, std))


def _bernoulli_scalar(gen: Generator, n: int, p: float, dtype: dtypes.dtype) -> np.ndarray:
    """bernoulli_kernel(self, double p): one double uniform per element, `u < p`."""
    return _cast(_uniform_doubles(gen, n) < p, dtype)


def _bernoulli_probs(gen: Generator, probs: np.ndarray, dtype: dtypes.dtype) -> np.ndarray:
    """bernoulli_kernel(self, Tensor p): `u < p` per element, u a double uniform when p is double and a
    float uniform (one word) otherwise. `probs` is flat, in the output's iteration order."""
    if not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    if probs.dtype == _F64:
        return _cast(_uniform_doubles(gen, probs.size) < probs, dtype)
    return _cast(_uniform_floats(gen, probs.size) < probs.astype(_F32), dtype)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    if isinstance(p, Tensor):
        def draw(n: int, _: bool) -> np.ndarray:
            probs = np.broadcast_to(p._numpy_view(), self._shape).transpose(_iteration_order(self._stride))
            return _bernoulli_probs(_gen(generator), probs.reshape(-1), self.dtype)
        return _random_inplace(self, "BernoulliBackward1", draw)

    def check() -> None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")

    return _random_inplace(self, "BernoulliBackward2",  # bernoulli_.float
                           lambda n, _: _bernoulli_scalar(_gen(generator), n, float(p), self.dtype), check)


def random_(self: Tensor, *args: Any, generator: Generator | None = None, **kwargs: Any) -> Tensor:
    """random_(), random_(to) and random_(from, to): to=None means up to the type's largest value."""
    bounds = dict(zip(("from", "to"), (0, *args) if len(args) == 1 else args, strict=False))
    bounds.update(kwargs)
    if not bounds:
        return _random_inplace(self, "RandomBackward2", lambda n, _: _random_full(_gen(generator), n, self.dtype))
    # torch's overloads: random_.from(from, to) records RandomBackward0, random_.to(to) RandomBackward1
    name = "RandomBackward1" if len(args) == 1 or (not args and "from" not in kwargs) else "RandomBackward0"
    low, high = int(bounds.get("from", 0)), bounds.get("to")
    plan = _random_plan(self.dtype, low, None if high is None else int(high))
    if plan is None:
        return _random_inplace(self, name,
                               lambda n, _: _cast(_gen(generator).words64(n).view(np.int64), self.dtype))
    span, base = plan
    return _random_inplace(self, name,
                           lambda n, _: _random_from_to(_gen(generator), n, span, base, self.dtype))


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """exponential_distribution<double>: `-1 / lambda * log1p(-u)`, u a double uniform."""
    lambd = float(lambd)

    def check() -> None:
        if not self.dtype.is_floating_point:
            raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                               f"floating point but you specified {self.dtype.short}")
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")

    def draw(n: int, _: bool) -> np.ndarray:
        return _cast((-1.0 / lambd) * libm.log1p(-_uniform_doubles(_gen(generator), n)), self.dtype)

    return _random_inplace(self, "ExponentialBackward0", draw, check)


# --------------------------------------------------------------------------- factories
def _new_shape(size: Any) -> tuple[int, ...]:
    shape = sizes_arg(size)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    return shape


def _adopt(values: np.ndarray, shape: tuple[int, ...], dtype: dtypes.dtype) -> Tensor:
    """A contiguous tensor over the freshly drawn buffer itself: Tensor._wrap would copy the reshaped
    view, and for a 10000 x 10000 randn that copy alone costs a tenth of a second."""
    return Tensor._make(Storage.wrap(values.reshape(-1)), 0, shape, geometry.contiguous_strides(shape), dtype)


def _invalid_combination(op: str) -> TypeError:
    overloads = "".join(
        f" * (tuple of ints size, *, {generator}Tensor out = None, torch.dtype dtype = None, torch.layout layout = "
        "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
        for generator in ("torch.Generator generator, ", ""))
    return TypeError(f"{op}() received an invalid combination of arguments - got (int, size=tuple), but expected "
                     f"one of:\n{overloads}")


def _random_factory(kind: str) -> Callable[..., Tensor]:
    def make(*positional: Any, size: Any = None, generator: Generator | None = None, dtype: dtypes.dtype | None = None,
             device: Any = None, requires_grad: bool = False, **_: Any) -> Tensor:
        _check_device(device)
        target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
        if size is not None and positional:
            raise _invalid_combination(make.__name__)
        shape = _new_shape(positional if size is None else (size,))
        n = math.prod(shape)
        # a complex tensor draws its real view: twice the numbers, a normal's std divided by sqrt(2)
        real = target.to_real()
        count, std = (2 * n, 1 / math.sqrt(2)) if target.is_complex else (n, 1.0)
        if kind == "normal":
            _normal_check(real, 1.0)
            values = _normal(_gen(generator), count, real, 0.0, std, True)
        else:
            _uniform_check(real, 0.0, 1.0)
            values = _uniform(_gen(generator), count, real, 0.0, 1.0)
        if target.is_complex:
            values = np.ascontiguousarray(values, dtype=real.np).view(target.np)
        return _finish(_adopt(values, shape, target), requires_grad)
    make.__name__ = "randn" if kind == "normal" else "rand"
    return make


randn = _random_factory("normal")
rand = _random_factory("uniform")


def randn_like(other: Tensor, *, dtype: dtypes.dtype | None = None, device: Any = None, requires_grad: bool = False,
               generator: Generator | None = None, **_: Any) -> Tensor:
    """empty_like(other).normal_(): other's layout, so a dense non-contiguous one takes the serial path."""
    _check_device(device)
    target = dtypes.to_dtype(dtype) if dtype is not None else other.dtype
    _normal_check(target, 1.0)
    contiguous = other.is_contiguous()
    values = _normal(_gen(generator), other.numel(), target, 0.0, 1.0, contiguous)
    return _finish(_filled_like(other, target, values), requires_grad)


def rand_like(other: Tensor, *, dtype: dtypes.dtype | None = None, device: Any = None, requires_grad: bool = False,
              generator: Generator | None = None, **_: Any) -> Tensor:
    _check_device(device)
    target = dtypes.to_dtype(dtype) if dtype is not None else other.dtype
    _uniform_check(target, 0.0, 1.0)
    values = _uniform(_gen(generator), other.numel(), target, 0.0, 1.0)
    return _finish(_filled_like(other, target, values), requires_grad)


_RANDINT_SIGNATURES = (
    " * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (int low, int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = "
    "None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = "
    "False)\n"
    " * (int low, int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = "
    "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


def _check_randint_size(args: tuple[Any, ...], size: Any) -> None:
    """torch's argument parser on an int where randint's size (a tuple) goes."""
    if type(size) is int:
        raise TypeError("randint(): argument 'size' must be tuple of ints, not int")
    if size is None and len(args) == 2 and type(args[1]) is int:
        raise TypeError("randint(): argument 'size' (position 2) must be tuple of ints, not int")
    if size is None and len(args) == 3 and all(type(a) is int for a in args):
        raise TypeError("randint() received an invalid combination of arguments - got (int, int, int), but expected "
                        "one of:\n" + _RANDINT_SIGNATURES)


def randint(*args: Any, size: Any = None, low: int | None = None, high: int | None = None,
            generator: Generator | None = None, dtype: dtypes.dtype | None = None, device: Any = None,
            requires_grad: bool = False, **_: Any) -> Tensor:
    """randint(high, size) or randint(low, high, size): empty(size, int64).random_(low, high)."""
    _check_device(device)
    _check_randint_size(args, size)
    positional = list(args)
    if size is None:
        size = positional.pop()
    if high is None:
        high = positional.pop()
    if low is None:
        low = positional.pop() if positional else 0
    target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.int64
    shape = _new_shape([size])
    plan = _random_plan(target, int(low), int(high))
    assert plan is not None  # a finite `to` always gives a span
    values = _random_from_to(_gen(generator), math.prod(shape), *plan, target)
    return _finish(_adopt(values, shape, target), requires_grad)


def randint_like(input: Tensor, *args: int, dtype: dtypes.dtype | None = None, generator: Generator | None = None,  # noqa: A002
                 device: Any = None, requires_grad: bool = False, memory_format: Any = None, **_: Any) -> Tensor:
    """randint_like(input, high) or (input, low, high): randint over input's shape, in its dtype."""
    low, high = (0, args[0]) if len(args) == 1 else args
    return randint(low, high, tuple(input.shape), generator=generator, dtype=dtype or input.dtype,
                   requires_grad=requires_grad)


def randperm(n: int, *, generator: Generator | None = None, dtype: dtypes.dtype | None = None, device: Any = None,
             requires_grad: bool = False, **_: Any) -> Tensor:
    """randperm_cpu: below 2**32 / 20 a forward Fisher-Yates (swap i with i + word % (n - i)); above it
    the inside-out shuffle with random64(). Both are sequential, so this is a plain loop."""
    _check_device(device)
    target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.int64
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    gen = _gen(generator)
    if n < (1 << 32) // 20:
        perm = list(range(n))
        for i, word in enumerate(gen.words(max(n - 1, 0)).tolist()):
            j = i + word % (n - i)
            perm[i], perm[j] = perm[j], perm[i]
    else:
        perm = [0] * n
        for i, word in enumerate(gen.words64(n).tolist()):
            j = word % (i + 1)
            perm[i], perm[j] = perm[j], i
    return _finish(Tensor._wrap(np.array(perm, dtype=np.int64).astype(target.np), target), requires_grad)


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None,
           dtype: dtypes.dtype | None = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The four overloads as ATen writes them: normal_(0, 1) (or (0, std)) into a fresh tensor, then
    separate mul_(std) and add_(mean) -- so tensor arguments round twice, unlike normal_(mean, std)."""
    gen = _gen(generator)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float)")
        _check_device(device)
        target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
        shape = _new_shape([size])
        _normal_check(target, float(std))
        values = _normal(gen, math.prod(shape), target, float(mean), float(std), True)
        return _finish(_adopt(values, shape, target), requires_grad)
    like = mean if isinstance(mean, Tensor) else std
    target = like.dtype
    m = mean._numpy_view() if isinstance(mean, Tensor) else mean
    s = std._numpy_view() if isinstance(std, Tensor) else std
    if isinstance(std, Tensor):
        if (s < 0).any():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _normal_check(target, float(std))
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    n = math.prod(shape)
    if isinstance(std, Tensor):
        values = _normal(gen, n, target, 0.0, 1.0, True).reshape(shape)
        values = (values * s.astype(target.np)).astype(target.np)
    else:
        values = _normal(gen, n, target, 0.0, float(std), True).reshape(shape)
    values = (values + (m.astype(target.np) if isinstance(mean, Tensor) else target.np.type(m))).astype(target.np)
    return Tensor._wrap(values, target)


def bernoulli(self: Tensor, p: float | None = None, *, generator: Generator | None = None,
              out: Tensor | None = None) -> Tensor:
    """torch.bernoulli(input): a contiguous empty_like(input).bernoulli_(input); with p, .bernoulli_(p).
    An out= is written like any other (it may not overlap itself)."""
    if out is not None:
        from engine.ops.pointwise import write_out

        check_internal_overlap(out)
        return write_out(out, bernoulli(self, p, generator=generator)._numpy_view(), "bernoulli", (self,))
    gen = _gen(generator)
    if p is None:
        _check_float(self.dtype, "bernoulli_tensor_cpu_p_")
        values = _bernoulli_probs(gen, self._numpy_view().reshape(-1), self.dtype)
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
        values = _bernoulli_scalar(gen, self.numel(), float(p), self.dtype)
    return _adopt(values, self._shape, self.dtype)


def multinomial(self: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    """ATen's multinomial: without replacement (or for one sample) argmax / topk of p / q with
    q = empty_like(p).exponential_(1); with replacement a binary search of each row's normalised
    running sum (in p's type) for one double uniform per sample."""
    if self.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {self.dtype.short}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = self._shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    gen = _gen(generator)
    probs = self._numpy_view()
    rows = probs.reshape(-1, categories)
    fast = not replacement or num_samples == 1
    invalid = np.flatnonzero(~(rows >= 0) | ~np.isfinite(rows))
    if invalid.size and fast:
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if invalid.size:  # the sampling loop checks each entry in turn: sign (NaN fails it) first
        kind = "< 0" if not rows.reshape(-1)[invalid[0]] >= 0 else "= infinity or NaN"
        raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {kind})")
    if (rows.sum(axis=1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if fast:
        draws = _cast((-1.0) * libm.log1p(-_uniform_doubles(gen, self.numel())), self.dtype)
        q = _laid_out_like(self, self.dtype, draws)
        keys = (probs / q).astype(self.dtype.np)
        picks = np.argsort(-keys, axis=-1, kind="stable")[..., :num_samples]
    else:
        picks = np.empty((rows.shape[0], num_samples), dtype=np.int64)
        for r, row in enumerate(rows):
            running = np.cumsum(row, dtype=row.dtype)
            running /= running[-1]
            running[-1] = 1
            picks[r] = np.searchsorted(running.astype(_F64), _uniform_doubles(gen, num_samples), side="left")
        picks = picks.reshape(probs.shape[:-1] + (num_samples,))
    return Tensor._wrap(np.ascontiguousarray(picks, dtype=np.int64), dtypes.int64)


METHODS = {"normal_": normal_, "uniform_": uniform_, "bernoulli_": bernoulli_, "random_": random_,
           "exponential_": exponential_, "bernoulli": bernoulli, "multinomial": multinomial}
FUNCTIONS = {"randn": randn, "rand": rand, "randn_like": randn_like, "rand_like": rand_like, "randint": randint,
             "randint_like": randint_like,
             "randperm": randperm, "normal": normal, "manual_seed": manual_seed, "seed": seed,
             "initial_seed": initial_seed, "get_rng_state": get_rng_state, "set_rng_state": set_rng_state,
             "Generator": Generator, "bernoulli": bernoulli, "multinomial": multinomial}
