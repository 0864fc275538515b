"""Statistics torch computes on CPU: cov and corrcoef (composites of other ops, as ATen's
Correlation.cpp builds them, so their graphs end in SqueezeBackward0 and ClampBackward1),
logcumsumexp (ATen's running log-add-exp in double, LogcumsumexpBackward0), histc (equal-width bins by
ATen's division, no gradient) and the integer gcd / lcm (Euclid, as ATen's calc_gcd)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.ops.core import needs_grad, record, result_type
from engine.ops.elementwise import Spec, _apply, _inplace
from engine.ops.pointwise import write_out
from engine.tensor import Tensor


# --------------------------------------------------------------------------- gcd, lcm
def _integer_dtype(op: str) -> Callable[..., dtypes.dtype]:
    def dtype_of(self: Tensor, other: Any) -> dtypes.dtype:
        dt = result_type(self, other)
        if dt.is_floating_point or dt.is_complex or dt is dtypes.bool_:
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dt.short}'")
        return dt
    return dtype_of


def _gcd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ATen's calc_gcd: Euclid on |a| and |b| (|INT_MIN| stays negative, as in C)."""
    a, b = np.broadcast_arrays(np.abs(a), np.abs(b))
    a, b = a.copy(), b.copy()
    with np.errstate(all="ignore"):
        while (a != 0).any():
            busy = a != 0
            remainder = np.where(busy, np.fmod(b, np.where(busy, a, 1)), 0)
            b = np.where(busy, a, b)
            a = remainder
    return b


def _lcm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ATen's lcm: |a / gcd * b|, 0 where the gcd is 0 (wrapping on overflow, as C does)."""
    g = _gcd(a, b)
    with np.errstate(all="ignore"):
        quotient = np.where(g == 0, 0, a // np.where(g == 0, 1, g))
        return np.where(g == 0, 0, np.abs(quotient * b))


GCD = Spec("gcd", "", _gcd, ("self", "other"), dtype_of=_integer_dtype("gcd"))
LCM = Spec("lcm", "", _lcm, ("self", "other"), dtype_of=_integer_dtype("lcm"))


def _tensor_other(op: str, other: Any) -> None:
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")


def gcd(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    _tensor_other("gcd", other)
    return _apply(GCD, (self, other), out)


def lcm(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    _tensor_other("lcm", other)
    return _apply(LCM, (self, other), out)


def _checked(op: str, kernel: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    """The kernel of the in-place form, which refuses a non-integer dtype only after the cast check."""
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.dtype.kind not in "iu":
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dtypes.from_numpy_dtype(a.dtype).short}'")
        return kernel(a, b)
    return run


_gcd_inplace = _inplace(lambda other: Spec("gcd", "", _checked("gcd", _gcd), ("self", "other")), "gcd_")
_lcm_inplace = _inplace(lambda other: Spec("lcm", "", _checked("lcm", _lcm), ("self", "other")), "lcm_")


def gcd_(self: Tensor, other: Tensor) -> Tensor:
    _tensor_other("gcd_", other)
    return _gcd_inplace(self, other)


def lcm_(self: Tensor, other: Tensor) -> Tensor:
    _tensor_other("lcm_", other)
    return _lcm_inplace(self, other)


# --------------------------------------------------------------------------- cov, corrcoef
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,  # noqa: A002 - torch's names
        aweights: Tensor | None = None) -> Tensor:
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype is dtypes.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.ndim < 2 else input
    observations = x._shape[1]
    w = None
    if fweights is not None:
        w = fweights
        if w.ndim > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{w.ndim} dimensions")
        if w.dtype.is_floating_point or w.dtype.is_complex or w.dtype is dtypes.bool_:
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights with "
                               f"{w.dtype.short} dtype")
        if w.numel() != observations:
            raise RuntimeError("cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {w.numel()} != {observations}")
        if observations and bool((w._numpy_view() < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
    if aweights is not None:
        if aweights.ndim > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.ndim} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{aweights.dtype.short} dtype")
        if aweights.numel() != observations:
            raise RuntimeError("cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {observations}")
        if observations and bool((aweights._numpy_view() < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    from engine.ops.factories import scalar_tensor

    w_sum = w.sum() if w is not None else scalar_tensor(observations, dtype=dtypes.int64)
    if w is not None and not bool(w_sum._numpy_view() != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    from engine.ops.backward_ops import mul_scalar, sub_scalar

    if w is not None and aweights is not None and correction != 0:  # C++'s `correction * t` is mul(Tensor, Scalar)
        norm_factor = w_sum - mul_scalar((w * aweights).sum(), correction) / w_sum
    else:
        norm_factor = sub_scalar(w_sum, correction) if correction != 0 else w_sum
    if bool(norm_factor._numpy_view() <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm_factor.zero_()
    x = x - avg.unsqueeze(1)
    from engine.ops.linalg import mm

    c = mm(x, (x * w if w is not None else x).t().conj())
    return (c / norm_factor).squeeze()


def corrcoef(input: Tensor) -> Tensor:  # noqa: A002
    if input.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c  # a scalar covariance: NaN for 0, inf and NaN, else 1
    d = c.diagonal()
    stddev = (d.real if d.dtype.is_complex else d).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.dtype.is_complex:  # each part clipped: |c| may still exceed 1, as in torch
        from engine.ops.complex_ops import complex as make_complex

        return make_complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


# --------------------------------------------------------------------------- logcumsumexp
_C_EXP = np.frompyfunc(math.exp, 1, 1)
_C_LOG1P = np.frompyfunc(math.log1p, 1, 1)


def _log_add_exp(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ATen's _log_add_exp_helper: log1p(exp(min - max)) + max, x where both are the same infinity
    (std::min / std::max keep their first argument when the other is NaN)."""
    low = np.where(np.isnan(y), y, np.where(y < x, y, x))
    high = np.where(np.isnan(y), y, np.where(x < y, y, x))
    general = (low != high) | np.isfinite(low)
    with np.errstate(invalid="ignore", over="ignore"):
        difference = np.where(general, low - high, 0.0)
        if difference.dtype == np.float64:  # the C library's exp and log1p (numpy's SIMD ones differ in the last bit)
            value = np.asarray(_C_LOG1P(_C_EXP(difference)), dtype=np.float64) + high
        else:
            value = np.log1p(np.exp(difference)) + high
    return np.where(general, value, x)


def _running_logsumexp(values: np.ndarray, axis: int, accumulate: np.dtype) -> np.ndarray:
    """The running log-sum-exp along axis, accumulated in `accumulate` (double for float and double,
    float for the half types: ATen's CPU acc_type), each result cast back."""
    moved = np.moveaxis(values, axis, 0)
    result = np.empty_like(moved)
    running = np.full(moved.shape[1:], -np.inf, dtype=accumulate)
    for i in range(moved.shape[0]):
        running = _log_add_exp(moved[i].astype(accumulate), running)
        result[i] = running.astype(moved.dtype)
    return np.moveaxis(result, 0, axis)


def logcumsumexp(self: Tensor, dim: int, *, out: Tensor | None = None) -> Tensor:
    d = geometry.wrap_dim(dim, max(self.ndim, 1))
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{self.dtype.short}'")
    if out is not None and needs_grad(self, out):
        raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op="logcumsumexp"))
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError(f"expected scalar_type {self.dtype.short} but found {out.dtype.short}")
    x = self._numpy_view().reshape(self._shape or (1,))
    accumulate = np.float32 if self.dtype.itemsize == 2 else np.float64
    values = _running_logsumexp(x, d, np.dtype(accumulate)).reshape(self._shape) if x.size else x.copy()
    values = values.reshape(self._shape)
    if out is not None:
        return write_out(out, values, "logcumsumexp", (self,))
    result = Tensor._wrap(np.array(values, order="C"), self.dtype)
    record("LogcumsumexpBackward0", result, (self,), save={"self": self}, save_outputs={"result": result},
           values={"dim": dim})
    return result


# --------------------------------------------------------------------------- histc
def _edge_text(value: float, from_data: bool) -> str:
    """A double as C++'s ostream prints it (a NaN the data's extremes produced prints as -nan)."""
    if math.isnan(value):
        return "-nan" if from_data else "nan"
    return f"{value:g}"


def _outer_edges(self: Tensor, low: float, high: float) -> tuple[float, float]:
    """ATen's histc_select_outer_bin_edges: the data's extremes when min == max, widened by 1 if equal."""
    from_data = False
    if low == high and self.numel() > 0:
        x = self._numpy_view()
        low, high, from_data = float(np.min(x)), float(np.max(x)), True
    if low == high:
        low, high = low - 1, high + 1
    if math.isinf(low) or math.isinf(high) or math.isnan(low) or math.isnan(high):
        raise RuntimeError(f"torch.histc: range of [{_edge_text(low, from_data)}, {_edge_text(high, from_data)}] "
                           "is not finite")
    if not low < high:
        raise RuntimeError("torch.histc: max must be larger than min")
    return low, high


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *,  # noqa: A002 - torch's names
          out: Tensor | None = None) -> Tensor:
    """Counts of the values in `bins` equal-width bins over [min, max] (the data's range when min ==
    max); values outside, and NaN, are not counted; the last bin holds max itself. ATen finds each
    value's bin by one division in the input's dtype, (x - left) * bins / (right - left), truncated."""
    from engine.ops.factories import linspace

    dt = input.dtype
    if not dt.is_floating_point:  # the first kernel to refuse the dtype names itself
        kernel = "linspace_cpu" if dt is dtypes.bool_ else "aminmax_cpu" if dt.is_complex else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt.short}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if out is not None and out.dtype is not dt:
        raise RuntimeError("torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
                           f"{dt.cpp} and hist {out.dtype.cpp}")
    low, high = _outer_edges(input, float(min), float(max))
    edges = linspace(low, high, bins + 1, dtype=dt)._numpy_view()
    left, right = edges[0], edges[-1]
    x = input._numpy_view().reshape(-1)
    with np.errstate(invalid="ignore", over="ignore"):
        inside = (x >= left) & (x <= right)
        kept = x[inside]
        position = ((kept - left) * dt.np.type(bins) / (right - left)).astype(np.int64)
    position[position == bins] = bins - 1
    counts = np.bincount(position, minlength=bins).astype(dt.np)
    if out is not None:
        return write_out(out, counts, "histc", (input,))
    return Tensor._wrap(counts, dt)


METHODS: dict[str, Callable[..., Any]] = {"gcd": gcd, "lcm": lcm, "gcd_": gcd_, "lcm_": lcm_, "cov": cov,
                                          "corrcoef": corrcoef, "logcumsumexp": logcumsumexp, "histc": histc}
FUNCTIONS: dict[str, Callable[..., Any]] = {"gcd": gcd, "lcm": lcm, "gcd_": gcd_, "lcm_": lcm_, "cov": cov,
                                            "corrcoef": corrcoef, "logcumsumexp": logcumsumexp, "histc": histc}
