"""The C library's double-precision log, log1p, sin and cos over numpy arrays, bit for bit.

PyTorch's CPU random kernels for double call the C library one element at a time. numpy's own
loops agree with it on most machines, but on CPUs with AVX-512 numpy dispatches to SIMD versions
of log and log1p that differ in the last bit for a few values in a thousand, which would make
`torch.randn(5, dtype=torch.float64)` differ from PyTorch on those machines only. So each function
is probed once, on first use, against Python's `math` (a thin wrapper of the C library): where numpy
agrees it is used, elsewhere the values go through `math` element by element.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

_PROBE_SIZE = 1 << 14


_CHUNK = 1 << 14  # values per list of Python floats: a few hundred KB at a time, not the whole array's worth


def _elementwise(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    def apply(values: np.ndarray) -> np.ndarray:
        flat = np.ascontiguousarray(values, dtype=np.float64).ravel()
        out = np.empty(flat.size)
        for start in range(0, flat.size, _CHUNK):
            part = flat[start:start + _CHUNK]
            out[start:start + part.size] = np.fromiter(map(fn, part.tolist()), np.float64, part.size)
        return out.reshape(np.shape(values))

    return apply


@functools.cache
def _exact(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """numpy's ufunc where it matches the C library on the inputs the random kernels give it, else `math`."""
    ufunc, scalar = getattr(np, name), getattr(math, name)
    uniform = np.random.default_rng(0).random(_PROBE_SIZE)  # [0, 1): what the random kernels feed
    probe = {"log": 1.0 - uniform, "log1p": -uniform}.get(name, 2.0 * math.pi * uniform)
    if np.array_equal(ufunc(probe), _elementwise(scalar)(probe)):
        return ufunc
    return _elementwise(scalar)


def log(values: np.ndarray) -> np.ndarray:
    return _exact("log")(values)


def log1p(values: np.ndarray) -> np.ndarray:
    return _exact("log1p")(values)


def sin(values: np.ndarray) -> np.ndarray:
    return _exact("sin")(values)


def cos(values: np.ndarray) -> np.ndarray:
    return _exact("cos")(values)
