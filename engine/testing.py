"""torch.testing: assert_close, with torch's tolerances per dtype and its failure messages word for
word ("Tensor-likes are not close!\\n\\nMismatched elements: 1 / 3 (33.3%) ..."), and make_tensor,
which draws from the same generator calls as torch's so a seeded test makes the same tensors.

As torch's, a comparison pairs the inputs (None, bool, Python number or tensor-like, recursing
through sequences and mappings), checks each pair's attributes, then its values with isclose.
"""

from __future__ import annotations

import collections.abc
import contextlib
import functools
import math
import warnings
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

import engine
from engine import dtypes
from engine.tensor import Tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

_DTYPE_PRECISIONS = {dtypes.float16: (0.001, 1e-5), dtypes.bfloat16: (0.016, 1e-5), dtypes.float32: (1.3e-6, 1e-5),
                     dtypes.float64: (1e-7, 1e-7), dtypes.complex64: (1.3e-6, 1e-5), dtypes.complex128: (1e-7, 1e-7)}
_PYTHON_DTYPES = {int: dtypes.int64, float: dtypes.float64, complex: dtypes.complex128}


class _Failure(Exception):
    """A comparison's failure: the exception type and message to raise, and the item it occurred at."""

    def __init__(self, kind: type[Exception], msg: str, *, id: tuple[Any, ...] = ()) -> None:  # noqa: A002
        super().__init__(msg)
        self.kind, self.msg, self.id = kind, msg, id

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.kind(msg)


class _Unsupported(Exception):
    """This kind of pair cannot take these inputs: the next kind is tried."""


def _type_text(value: Any) -> str:
    """`<class 'torch.Tensor'>` for the engine's classes, as the message names torch's."""
    cls = type(value)
    if cls is Tensor:
        return "<class 'torch.Tensor'>"
    if cls is getattr(engine.nn, "Parameter", None):
        return "<class 'torch.nn.parameter.Parameter'>"
    return str(cls)


def default_tolerances(*inputs: Any) -> tuple[float, float]:
    """The loosest (rtol, atol) of the inputs' dtypes; 0 for integers and bool."""
    found = [_DTYPE_PRECISIONS.get(i.dtype if isinstance(i, Tensor) else i, (0.0, 0.0)) for i in inputs]
    return max(rtol for rtol, _ in found), max(atol for _, atol in found)


def _tolerances(*inputs: Any, rtol: float | None, atol: float | None, id: tuple[Any, ...]) -> tuple[float, float]:  # noqa: A002
    if (rtol is None) ^ (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                   f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None and atol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_message(*, identifier: str | Callable[[str], str] | None, default: str, extra: str | None,
                      abs_diff: Any, abs_diff_idx: Any = None, atol: float, rel_diff: Any, rel_diff_idx: Any = None,
                      rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def diff_line(kind: str, diff: Any, idx: Any, tol: float) -> str:
        line = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return line + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_line("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_line("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def _scalar_mismatch(actual: Any, expected: Any, *, rtol: float, atol: float,
                     identifier: str | Callable[[str], str] | None = None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message(identifier=identifier, default="Scalars", extra=f"Expected {expected} but got {actual}.",
                             abs_diff=abs_diff, atol=atol, rel_diff=rel_diff, rtol=rtol)


def _tensor_mismatch(actual: Tensor, expected: Tensor, matches: Tensor, *, rtol: float, atol: float) -> str:
    def unravel(flat_index: int) -> tuple[int, ...]:
        index = []
        for size in reversed(matches.shape):
            flat_index, mod = divmod(flat_index, size)
            index.append(mod)
        return tuple(reversed(index))

    total = matches.numel()
    mismatches = total - int(engine.sum(matches))
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    actual_flat, expected_flat, matches_flat = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point and not actual.dtype.is_complex:
        actual_flat, expected_flat = actual_flat.to(engine.int64), expected_flat.to(engine.int64)
    abs_diff = engine.abs(actual_flat - expected_flat)
    abs_diff[matches_flat] = 0
    max_abs_diff, max_abs_idx = engine.max(abs_diff, 0)
    rel_diff = abs_diff / engine.abs(expected_flat)
    rel_diff[matches_flat] = 0
    max_rel_diff, max_rel_idx = engine.max(rel_diff, 0)
    return _mismatch_message(identifier=None, default="Tensor-likes", extra=extra, abs_diff=max_abs_diff.item(),
                             abs_diff_idx=unravel(int(max_abs_idx)), atol=atol, rel_diff=max_rel_diff.item(),
                             rel_diff_idx=unravel(int(max_rel_idx)), rtol=rtol)


class _Pair:
    """Two inputs to compare; constructing one raises _Unsupported when its kind does not fit."""

    def __init__(self, actual: Any, expected: Any, *, id: tuple[Any, ...] = (), **options: Any) -> None:  # noqa: A002
        self.actual, self.expected, self.id = actual, expected, id

    def fail(self, kind: type[Exception], msg: str) -> NoReturn:
        raise _Failure(kind, msg, id=self.id)

    def compare(self) -> None:
        raise NotImplementedError


class _NonePair(_Pair):
    def __init__(self, actual: Any, expected: Any, **options: Any) -> None:
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, **options)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self.fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual: Any, expected: Any, **options: Any) -> None:
        if not all(isinstance(v, (bool, np.bool_)) for v in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), **options)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self.fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    def __init__(self, actual: Any, expected: Any, *, id: tuple[Any, ...] = (), rtol: float | None = None,  # noqa: A002
                 atol: float | None = None, equal_nan: bool = False, check_dtype: bool = False,
                 **options: Any) -> None:
        if not all(isinstance(v, (int, float, complex, np.number)) for v in (actual, expected)):
            raise _Unsupported
        actual, expected = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(*(_PYTHON_DTYPES[type(v)] for v in (actual, expected)),
                                           rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self) -> None:
        if self.check_dtype and type(self.actual) is not type(self.expected):
            self.fail(AssertionError, f"The (d)types do not match: {type(self.actual)} != {type(self.expected)}.")
        if self.actual == self.expected:
            return
        if self.equal_nan and self.actual != self.actual and self.expected != self.expected:  # NaN (complex too)
            return
        abs_diff = abs(self.actual - self.expected)
        if math.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(self.expected):
            return
        self.fail(AssertionError, _scalar_mismatch(self.actual, self.expected, rtol=self.rtol, atol=self.atol))


class _TensorLikePair(_Pair):
    def __init__(self, actual: Any, expected: Any, *, id: tuple[Any, ...] = (), allow_subclasses: bool = True,  # noqa: A002
                 rtol: float | None = None, atol: float | None = None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_stride: bool = False,
                 **options: Any) -> None:
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        super().__init__(self._to_tensor(actual), self._to_tensor(expected), id=id)
        self.rtol, self.atol = _tolerances(self.actual, self.expected, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_stride = check_stride

    @staticmethod
    def _to_tensor(value: Any) -> Tensor:
        if isinstance(value, Tensor):
            return value
        try:
            return engine.as_tensor(value)
        except Exception:  # noqa: BLE001 - anything as_tensor refuses is simply not tensor-like
            raise _Unsupported from None

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        if actual.dtype != expected.dtype:
            dtype = engine.promote_types(actual.dtype, expected.dtype)
            actual, expected = actual.to(dtype), expected.to(dtype)
        if actual.device != expected.device:
            actual, expected = actual.cpu(), expected.cpu()
        self._compare_values(actual, expected)

    def _compare_attributes(self, actual: Tensor, expected: Tensor) -> None:
        def mismatch(name: str, actual_value: Any, expected_value: Any) -> NoReturn:
            self.fail(AssertionError, f"The values for attribute '{name}' do not match: {actual_value} != {expected_value}.")

        if actual.shape != expected.shape:
            mismatch("shape", actual.shape, expected.shape)
        if self.check_stride and actual.stride() != expected.stride():
            mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            mismatch("dtype", actual.dtype, expected.dtype)

    def _compare_values(self, actual: Tensor, expected: Tensor) -> None:
        matches = engine.isclose(actual, expected, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if bool(engine.all(matches)):
            return
        if actual.shape == ():
            msg = _scalar_mismatch(actual.item(), expected.item(), rtol=self.rtol, atol=self.atol)
        else:
            msg = _tensor_mismatch(actual, expected, matches, rtol=self.rtol, atol=self.atol)
        self.fail(AssertionError, msg)


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _pairs(actual: Any, expected: Any, *, id: tuple[Any, ...] = (), **options: Any) -> list[_Pair]:  # noqa: A002
    """The pairs to compare, recursing through sequences (not strings) and mappings."""
    sequence = collections.abc.Sequence
    if isinstance(actual, sequence) and not isinstance(actual, str) and isinstance(expected, sequence) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           id=id)
        return [pair for i in range(len(actual)) for pair in _pairs(actual[i], expected[i], id=(*id, i), **options)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                                           f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}",
                           id=id)
        keys: Any = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [pair for key in keys for pair in _pairs(actual[key], expected[key], id=(*id, key), **options)]
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {_type_text(actual)} and "
                              f"{_type_text(expected)}.", id=id)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raise AssertionError unless actual and expected are close: |actual - expected| <= atol + rtol * |expected|
    elementwise, with the same shape and (by default) dtype and device. (`check_layout` has nothing to
    check: every engine tensor is strided.)"""
    try:
        pairs = _pairs(actual, expected, allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                       check_device=check_device, check_dtype=check_dtype,
                       check_stride=check_stride)
    except _Failure as failure:
        raise failure.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """The deprecated predecessor of assert_close (looser float tolerances, dtype not checked)."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
                  "Please use `torch.testing.assert_close()` instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = engine.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = engine.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        loose = {dtypes.float16: (1e-3, 1e-3), dtypes.float32: (1e-4, 1e-5), dtypes.float64: (1e-5, 1e-8)}
        found = [loose.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(r for r, _ in found), max(a for _, a in found)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)


# --------------------------------------------------------------------------- make_tensor
_INTEGRAL = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_FLOATING = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_COMPLEX = (dtypes.complex64, dtypes.complex128)
_REAL_OF_COMPLEX = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}


def make_tensor(*shape: Any, dtype: Any, device: Any, low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    """A tensor of values drawn uniformly from [low, high) (defaults by dtype: [-9, 9) for floats,
    [-9, 10) for signed integers, [0, 10) unsigned, [0, 2) bool), by torch's generator calls."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and (dtype is dtypes.bool_ or dtype in _INTEGRAL):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])

    def bounds(lowest: float, highest: float, default_low: float, default_high: float) -> tuple[Any, Any]:
        lo = low if low is not None else default_low
        hi = high if high is not None else default_high
        if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
        if lo == hi and (dtype in _FLOATING or dtype in _COMPLEX):
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                          "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                          FutureWarning, stacklevel=3)
        elif lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        elif hi < lowest or lo >= highest:
            raise ValueError(f"The value interval specified by `low` and `high` is [{lo}, {hi}), "
                             f"but {dtype} only supports [{lowest}, {highest})")
        lo, hi = min(max(lo, lowest), highest), min(max(hi, lowest), highest)
        if dtype is dtypes.bool_ or dtype in _INTEGRAL:
            return math.ceil(lo), math.ceil(hi)
        return lo, hi

    if dtype is dtypes.bool_:
        lo, hi = bounds(0, 2, 0, 2)
        result = engine.randint(lo, hi, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = engine.iinfo(dtype)
        lo, hi = bounds(info.min, info.max + (1 if dtype is not dtypes.int64 else 0), -9, 10)
        result = engine.randint(lo, hi, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING or dtype in _COMPLEX:
        info = engine.finfo(_REAL_OF_COMPLEX.get(dtype, dtype))
        lo, hi = bounds(info.min, info.max, -9, 9)
        result = engine.empty(shape, device=device, dtype=dtype)
        target = engine.view_as_real(result) if dtype in _COMPLEX else result
        if hi - lo >= engine.finfo(target.dtype).max:
            target.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            target.uniform_(lo, hi)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). "
                        "To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = (1 if (dtype is dtypes.bool_ or dtype in _INTEGRAL)
                                else engine.finfo(_REAL_OF_COMPLEX.get(dtype, dtype)).tiny)
    if dtype in _FLOATING or dtype in _COMPLEX:
        result.requires_grad = requires_grad
    return result
