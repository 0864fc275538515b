"""The log-gamma function and its derivatives: lgamma (LgammaBackward0: grad * digamma), digamma
(DigammaBackward0: grad * polygamma(1, x)) and polygamma(n, x) (PolygammaBackward0: grad *
polygamma(n + 1, x)). Evaluated in float64 (lgamma by the C library; the others by the recurrence
psi(x) = psi(x + 1) - 1/x up to x >= 20 and the asymptotic series there), then rounded to the dtype;
integers are computed in the default float dtype, as torch's unary float ops do."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes
from engine.ops.core import apply_inplace, check_inplace_allowed, check_writable, record
from engine.tensor import Tensor

_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)  # B2, B4, ..., B14
_LARGE = 20.0


def _lgamma_of(v: float) -> float:
    if math.isnan(v):
        return v
    if math.isinf(v) or (v <= 0 and v == math.floor(v)):  # the poles, and both infinities, give +inf
        return math.inf
    return math.lgamma(v)


def _lgamma(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return np.vectorize(_lgamma_of, otypes=[np.float64])(x) if x.size else x


def _digamma(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    pole = (x <= 0) & (x == np.floor(x))
    reflect = (x < 0) & ~pole
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(reflect, 1 - x, x)
        result = np.zeros_like(v)
        shift = np.where(np.isfinite(v), v, _LARGE)
        while np.any(small := shift < _LARGE):
            result = np.where(small, result - 1 / shift, result)
            shift = np.where(small, shift + 1, shift)
        series = np.log(shift) - 0.5 / shift
        for k, b in enumerate(_BERNOULLI, start=1):
            series -= b / (2 * k * shift ** (2 * k))
        result = result + series
        result = np.where(np.isposinf(v), np.inf, result)
        result = np.where(reflect, result - math.pi / np.tan(math.pi * x), result)
    result = np.where(x == 0, -np.inf, np.where(pole & (x != 0), np.nan, result))
    return np.where(np.isneginf(x) | np.isnan(x), np.nan, result)


def _polygamma(n: int, x: np.ndarray) -> np.ndarray:
    if n == 0:
        return _digamma(x)
    x = np.asarray(x, dtype=np.float64)
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    factorial = math.factorial(n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        result = np.zeros_like(x)
        shift = np.where(np.isfinite(x), x, _LARGE)
        while np.any(small := shift < _LARGE):
            result = np.where(small, result + sign * factorial / shift ** (n + 1), result)
            shift = np.where(small, shift + 1, shift)
        series = math.factorial(n - 1) / shift ** n + factorial / (2 * shift ** (n + 1))
        for k, b in enumerate(_BERNOULLI, start=1):
            series += b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * shift ** (2 * k + n))
        result = result + sign * series
    if n == 1:  # the infinities as ATen's kernels give them: trigamma(inf) = 0, higher orders NaN and +-inf
        result = np.where(np.isposinf(x), 0.0, np.where(np.isneginf(x), np.nan, result))
    else:
        result = np.where(np.isposinf(x), np.nan, np.where(np.isneginf(x), sign * np.inf, result))
    return np.where(np.isnan(x), np.nan, result)


def _float(t: Tensor) -> dtypes.dtype:
    return t.dtype if t.dtype.is_floating_point else dtypes.get_default_dtype()


def _unary(self: Tensor, compute: Callable[[np.ndarray], np.ndarray], name: str,
           values: dict[str, Any] | None = None) -> Tensor:
    dt = _float(self)
    out = Tensor._wrap(np.array(compute(self._numpy_view()), dtype=dt.np, order="C"), dt)
    record(name, out, (self,), save={"self": self}, values=values)
    return out


def _unary_(self: Tensor, compute: Callable[[np.ndarray], np.ndarray], name: str,
            values: dict[str, Any] | None = None) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self, _float(self))

    def write(target: np.ndarray) -> None:
        target[...] = compute(target)

    return apply_inplace(self, write, name, (), save_self_copy="self", check_autograd=False, values=values)


def lgamma(self: Tensor) -> Tensor:
    return _unary(self, _lgamma, "LgammaBackward0")


def lgamma_(self: Tensor) -> Tensor:
    return _unary_(self, _lgamma, "LgammaBackward0")


def digamma(self: Tensor) -> Tensor:
    return _unary(self, _digamma, "DigammaBackward0")


def digamma_(self: Tensor) -> Tensor:
    return _unary_(self, _digamma, "DigammaBackward0")


def _check_n(n: int) -> None:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002 - torch's argument names
    _check_n(n)
    return _unary(input, lambda x: _polygamma(n, x), "PolygammaBackward0", {"n": n})


def polygamma_method(self: Tensor, n: int) -> Tensor:
    return polygamma(n, self)


def polygamma_(self: Tensor, n: int) -> Tensor:
    _check_n(n)
    return _unary_(self, lambda x: _polygamma(n, x), "PolygammaBackward0", {"n": n})


METHODS: dict[str, Callable[..., Any]] = {"lgamma": lgamma, "lgamma_": lgamma_, "digamma": digamma,
                                          "digamma_": digamma_, "polygamma": polygamma_method,
                                          "polygamma_": polygamma_}
FUNCTIONS: dict[str, Callable[..., Any]] = {"lgamma": lgamma, "digamma": digamma, "polygamma": polygamma}
