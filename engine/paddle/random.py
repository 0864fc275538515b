"""Paddle's CPU random numbers, value for value: `paddle.seed(0); paddle.rand([2])` gives what
PaddlePaddle 3.3.1 gives on an x86-64 CPU.

Paddle's CPU kernels draw from one `std::mt19937_64` per process, seeded by `paddle.seed(s)` through
`std::seed_seq{s}`, and shape the words with libstdc++'s distributions, one element at a time.
This module replays that stream in numpy, in bulk:

* the engine: mt19937_64, its 312 words twisted in three slices per block and tempered in bulk;
  `std::seed_seq` keeps the low 32 bits of the seed;
* `uniform_real_distribution<T>(a, b)`: one word per element, `T(word) / 2**64` (a result of 1 is
  the float just below), then `u * (b - a) + a` in T (float32 for float32, double for float64);
* `normal_distribution<T>(mean, std)`: Marsaglia's polar method, two uniforms in [-1, 1) per try,
  pairs outside the unit disc (or at its centre) rejected; an accepted pair gives `y * m` then
  `x * m` with `m = sqrt(-2 log(r2) / r2)`; a fresh distribution per kernel call, so an odd count
  throws the second half of the last pair away. `log` is the C library's (`logf` for float32,
  called through ctypes: numpy's own float32 log differs from it in the last bit for one value in
  five);
* `uniform_int_distribution<int64>(low, high - 1)`: Lemire's multiply-shift on one word, redrawn
  in the rare case its low half falls under `2**64 mod range`;
* randperm: `std::shuffle` of 0..n-1, which (the engine's range being wide enough) draws one word
  for two swap positions at a time, the first alone when n is even.

A fresh Paddle process seeds itself from the operating system; the dialect starts as if
`paddle.seed(0)` had been called, so unseeded runs repeat too. The generator is a part of the
engine's runtime: each tensorscope session draws from its own.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from engine import libm, runtime

_N, _M = 312, 156
_MATRIX_A = np.uint64(0xB5026F5AA96619E9)
_UPPER = np.uint64(0xFFFFFFFF80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_ONE = np.uint64(1)
_MASK32 = (1 << 32) - 1
_MASK64 = (1 << 64) - 1
DEFAULT_SEED = 0


def _seed_seq(seed: int, count: int) -> list[int]:
    """std::seed_seq{seed}.generate(count 32-bit words), as libstdc++ does it."""
    values = [seed & _MASK32]
    b = [0x8B8B8B8B] * count
    s = len(values)
    t = 11 if count >= 623 else 7 if count >= 68 else 5 if count >= 39 else 3 if count >= 7 else (count - 1) // 2
    p = (count - t) // 2
    q = p + t
    m = max(s + 1, count)

    def mix(x: int) -> int:
        return (x ^ (x >> 27)) & _MASK32

    for k in range(m):
        r1 = (1664525 * mix(b[k % count] ^ b[(k + p) % count] ^ b[(k - 1) % count])) & _MASK32
        r2 = (r1 + (s if k == 0 else k % count + values[k - 1] if k <= s else k % count)) & _MASK32
        b[(k + p) % count] = (b[(k + p) % count] + r1) & _MASK32
        b[(k + q) % count] = (b[(k + q) % count] + r2) & _MASK32
        b[k % count] = r2
    for k in range(m, m + count):
        r3 = (1566083941 * mix((b[k % count] + b[(k + p) % count] + b[(k - 1) % count]) & _MASK32)) & _MASK32
        r4 = (r3 - k % count) & _MASK32
        b[(k + p) % count] ^= r3
        b[(k + q) % count] ^= r4
        b[k % count] = r4
    return b


_CHUNK = 1 << 16  # words tempered per pass: the scratch buffer stays in cache
_TEMPERING = ((np.right_shift, 29, 0x5555555555555555), (np.left_shift, 17, 0x71D67FFFEDA60000),
              (np.left_shift, 37, 0xFFF7EEE000000000), (np.right_shift, 43, 0xFFFFFFFFFFFFFFFF))


def _temper(words: np.ndarray) -> np.ndarray:
    """mt19937_64's output tempering, in place, a cache-sized chunk at a time."""
    scratch = np.empty(min(words.size, _CHUNK), dtype=np.uint64)
    for start in range(0, words.size, _CHUNK):
        part = words[start:start + _CHUNK]
        s = scratch[:part.size]
        for shift, amount, mask in _TEMPERING:
            shift(part, np.uint64(amount), out=s)
            s &= np.uint64(mask)
            part ^= s
    return words


def _twist_into(words: np.ndarray) -> None:
    """One mt19937_64 generation, in place: three slices, each reading only words already final."""
    def mixed(upper: np.ndarray, lower: np.ndarray, far: np.ndarray) -> np.ndarray:
        y = (upper & _UPPER) | (lower & _LOWER)
        return far ^ (y >> _ONE) ^ ((y & _ONE) * _MATRIX_A)
    words[:_M] = mixed(words[:_M], words[1:_M + 1], words[_M:])
    words[_M:_N - 1] = mixed(words[_M:_N - 1], words[_M + 1:], words[:_N - _M - 1])
    words[_N - 1:] = mixed(words[_N - 1:], words[:1], words[_M - 1:_M])


class Engine:
    """std::mt19937_64 with a look-ahead buffer: `peek` generates without consuming, so rejection
    sampling can take exactly the words it used."""

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """`engine.seed(std::seed_seq{seed})`, as paddle.seed does."""
        halves = _seed_seq(seed, 2 * _N)
        self._words = np.array([halves[2 * i] | (halves[2 * i + 1] << 32) for i in range(_N)], dtype=np.uint64)
        self._ahead = np.empty(0, dtype=np.uint64)

    def seed_value(self, value: int) -> None:
        """`engine.seed(value)`: what a kernel given its own `seed` argument does (uniform(seed=...))."""
        words = [value & _MASK64]
        for i in range(1, _N):
            previous = words[-1]
            words.append((6364136223846793005 * (previous ^ (previous >> 62)) + i) & _MASK64)
        self._words = np.array(words, dtype=np.uint64)
        self._ahead = np.empty(0, dtype=np.uint64)

    def peek(self, n: int) -> np.ndarray:
        short = n - self._ahead.size
        if short > 0:
            blocks = -(-short // _N)
            raw = np.empty(self._ahead.size + blocks * _N, dtype=np.uint64)
            raw[:self._ahead.size] = self._ahead
            for i in range(self._ahead.size, raw.size, _N):
                _twist_into(self._words)
                raw[i:i + _N] = self._words
            _temper(raw[self._ahead.size:])
            self._ahead = raw
        return self._ahead[:n]

    def skip(self, n: int) -> None:
        self._ahead = self._ahead[n:]

    def draw(self, n: int) -> np.ndarray:
        """The next n words (a read-only view: callers derive new arrays from it)."""
        words = self.peek(n)
        self.skip(n)
        return words

    def copy(self) -> Engine:
        twin = object.__new__(Engine)
        twin._words, twin._ahead = self._words.copy(), self._ahead.copy()
        return twin


class Generator:
    """paddle.base.libpaddle.Generator: what paddle.seed returns (the process's CPU generator)."""

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.engine = Engine(seed)
        self._seed = seed

    def manual_seed(self, seed: int) -> Generator:
        seed = int(seed)
        self._seed = seed & ((1 << 64) - 1)
        self.engine.seed(self._seed)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> GeneratorState:
        return GeneratorState(self._seed, self.engine.copy())

    def set_state(self, state: GeneratorState) -> None:
        self._seed, self.engine = state.seed, state.engine.copy()

    @classmethod
    def for_kernel(cls, seed: int) -> Generator:
        """The private engine a kernel makes when called with a nonzero `seed` argument."""
        gen = cls()
        gen._seed = seed
        gen.engine.seed_value(seed)
        return gen

    def random(self) -> int:
        return int(self.engine.draw(1)[0])

    def __repr__(self) -> str:
        return f"<paddle.base.libpaddle.Generator object at {hex(id(self))}>"


class GeneratorState:
    """paddle.base.libpaddle.GeneratorState: a saved position of the generator."""

    def __init__(self, seed: int, engine: Engine) -> None:
        self.seed, self.engine = seed, engine

    def current_seed(self) -> int:
        return self.seed

    def __repr__(self) -> str:
        return f"<paddle.base.libpaddle.GeneratorState object at {hex(id(self))}>"


generator: Generator = runtime.slot(__name__, "generator", Generator)  # one per runtime (session)


def default_generator() -> Generator:
    return generator


def reset() -> None:
    """A fresh process's generator, seeded as the dialect starts (see the module docstring)."""
    generator.manual_seed(DEFAULT_SEED)


# --------------------------------------------------------------------------- distributions
def _canonical(words: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """generate_canonical<T>: T(word) / 2**64, and a result of 1 becomes the largest T below 1."""
    values = words.astype(np_dtype)
    values *= np_dtype.type(2.0**-64)
    one = np_dtype.type(1)
    values[values >= one] = np.nextafter(one, np_dtype.type(0))
    return values


def uniform(n: int, low: float, high: float, np_dtype: Any = np.float32, gen: Generator | None = None) -> np.ndarray:
    """uniform_real_distribution<T>(low, high), n draws."""
    np_dtype = np.dtype(np_dtype)
    words = (gen or generator).engine.draw(n)
    values = _canonical(words, np_dtype)
    t = np_dtype.type
    low, high = np.float32(low), np.float32(high)  # the kernel takes its bounds as float
    values *= t(high) - t(low)
    values += t(low)
    return values


@functools.cache
def _logf() -> Any:
    """The C library's logf. Loaded by its usual name first: ctypes.util.find_library starts a
    program (ldconfig) to look for it, which a worker process should never do."""
    import ctypes
    import ctypes.util

    try:
        library = ctypes.CDLL("libm.so.6")
    except OSError:
        library = ctypes.CDLL(ctypes.util.find_library("m"))
    fn = library.logf
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return fn


def _log(values: np.ndarray) -> np.ndarray:
    """std::log in the values' precision: the C library's logf / log."""
    if values.dtype == np.float64:
        return libm.log(values)
    logf = _logf()
    return np.fromiter(map(logf, values.tolist()), np.float32, values.size)


def normal(n: int, mean: float, std: float, np_dtype: Any = np.float32, gen: Generator | None = None) -> np.ndarray:
    """normal_distribution<T>(mean, std), n draws by the polar method (see the module docstring)."""
    np_dtype = np.dtype(np_dtype)
    t = np_dtype.type
    engine = (gen or generator).engine
    pairs_needed = -(-n // 2)
    parts: list[np.ndarray] = []
    while pairs_needed > 0:
        tries = int(pairs_needed * 1.3) + 8
        words = engine.peek(2 * tries)
        u = _canonical(words, np_dtype)
        u *= t(2.0)
        u -= t(1.0)
        x, y = u[0::2], u[1::2]
        r2 = x * x + y * y
        accepted = np.flatnonzero((r2 <= t(1.0)) & (r2 != t(0.0)))[:pairs_needed]
        used = (int(accepted[-1]) + 1) if accepted.size == pairs_needed else tries
        engine.skip(2 * used)
        if accepted.size:
            r2a = r2[accepted]
            mult = np.sqrt(t(-2.0) * _log(r2a) / r2a).astype(np_dtype)
            pair = np.empty(2 * accepted.size, dtype=np_dtype)
            pair[0::2] = y[accepted] * mult
            pair[1::2] = x[accepted] * mult
            parts.append(pair)
        pairs_needed -= accepted.size
    values = np.concatenate(parts)[:n] if parts else np.empty(0, np_dtype)
    values *= t(std)
    values += t(mean)
    return values


def _mul_high_low(a: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray]:
    """The 128-bit product a * b of uint64 words and a uint64 scalar, as (high, low) words."""
    mask = np.uint64(_MASK32)
    a_lo, a_hi = a & mask, a >> np.uint64(32)
    b_lo, b_hi = np.uint64(b & _MASK32), np.uint64(b >> 32)
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> np.uint64(32)) + (hi_lo & mask) + lo_hi
    high = hi_hi + (hi_lo >> np.uint64(32)) + (cross >> np.uint64(32))
    low = (cross << np.uint64(32)) | (lo_lo & mask)
    return high, low


def randint(n: int, low: int, high: int, gen: Generator | None = None) -> np.ndarray:
    """uniform_int_distribution<int64>(low, high - 1), n draws (Lemire's method, libstdc++'s
    choice for a 64-bit engine)."""
    span = high - low
    engine = (gen or generator).engine
    threshold = ((1 << 64) - span) % span
    out = np.empty(n, dtype=np.int64)
    done = 0
    while done < n:
        words = engine.peek(n - done)
        top, bottom = _mul_high_low(words, span)
        rejected = np.flatnonzero(bottom < np.uint64(threshold)) if threshold else np.empty(0, np.int64)
        take = int(rejected[0]) if rejected.size else words.size
        out[done:done + take] = top[:take].astype(np.int64) + low
        engine.skip(take)
        done += take
        if rejected.size:  # the word fell in the biased band: keep drawing single words until one does not
            while True:
                word = int(engine.draw(1)[0])
                product = word * span
                if product & ((1 << 64) - 1) >= threshold:
                    out[done] = (product >> 64) + low
                    done += 1
                    break
    return out


def _bounded(engine: Engine, span: int) -> int:
    """One uniform_int_distribution draw in [0, span) (Lemire, as randint)."""
    threshold = ((1 << 64) - span) % span
    while True:
        product = int(engine.draw(1)[0]) * span
        if product & ((1 << 64) - 1) >= threshold:
            return product >> 64


def randperm(n: int, gen: Generator | None = None) -> np.ndarray:
    """std::shuffle of 0..n-1 as libstdc++ does it with a 64-bit engine."""
    engine = (gen or generator).engine
    values = list(range(n))
    if n <= 1:
        return np.array(values, dtype=np.int64)
    if ((1 << 64) - 1) // n < n:  # too wide for paired draws: one draw per position
        for i in range(1, n):
            j = _bounded(engine, i + 1)
            values[i], values[j] = values[j], values[i]
        return np.array(values, dtype=np.int64)
    i = 1
    if n % 2 == 0:
        j = _bounded(engine, 2)
        values[1], values[j] = values[j], values[1]
        i = 2
    while i < n:
        span = i + 1
        x = _bounded(engine, span * (span + 1))
        first, second = divmod(x, span + 1)
        values[i], values[first] = values[first], values[i]
        values[i + 1], values[second] = values[second], values[i + 1]
        i += 2
    return np.array(values, dtype=np.int64)
