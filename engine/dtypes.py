"""Torch dtypes as objects that print like PyTorch's and map to numpy dtypes."""

from __future__ import annotations

import functools
import math
from typing import Any

import ml_dtypes
import numpy as np

from engine import runtime


class dtype:  # noqa: N801 - named as torch names it
    """A tensor element type: `torch.float32` prints as `torch.float32`."""

    __slots__ = ("cpp", "is_complex", "is_differentiable", "is_floating_point", "is_signed", "itemsize", "legacy",
                 "name", "np", "short")

    def __init__(self, name: str, np_dtype: type, legacy: str, short: str) -> None:
        kind = np.dtype(np_dtype).kind
        is_floating_point = kind == "f" or name == "bfloat16"
        is_complex = kind == "c"
        fields = {
            "name": name, "np": np.dtype(np_dtype), "is_floating_point": is_floating_point,
            "is_signed": is_floating_point or kind in "ic",
            # plain fields, not properties: gradient formulas read them for every node they run
            "is_complex": is_complex,
            "is_differentiable": is_floating_point or is_complex,  # floating and complex tensors can require grad
            "itemsize": np.dtype(np_dtype).itemsize,
            "legacy": legacy,  # the `torch.FloatTensor` type name used in error messages
            "short": short,  # the `Float` name of cast errors
            "cpp": _CPP_NAMES[name],  # the C++ type name some messages use ('float', 'long int')
        }
        for field, value in fields.items():
            object.__setattr__(self, field, value)

    def __setattr__(self, name: str, value: Any) -> None:
        """A dtype is a constant, as torch's are: its fields are not writable (writes are rare, reads stay plain)."""
        raise AttributeError(_READ_ONLY.format(name) if name in _TORCH_FIELDS else _NO_FIELD.format(name))

    def __delattr__(self, name: str) -> None:
        raise AttributeError(_READ_ONLY.format(name) if name in _TORCH_FIELDS else _NO_FIELD.format(name))

    @property
    def message_name(self) -> str:
        """How C++ error messages name a CPU tensor of this dtype: `torch.FloatTensor`, `CPUBoolType`."""
        return "CPUBoolType" if self is bool_ else f"torch.{self.legacy}"

    def to_real(self) -> dtype:
        """complex64 -> float32, complex128 -> float64; real dtypes are their own."""
        return _REAL_OF.get(self, self)

    def to_complex(self) -> dtype:
        """float32 (and float16) -> complex64, float64 -> complex128; complex dtypes are their own."""
        return _COMPLEX_OF[self.name] if self.is_floating_point else self

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


_TORCH_FIELDS = frozenset({"is_complex", "is_floating_point", "is_signed", "itemsize"})
_READ_ONLY = "attribute '{}' of 'torch.dtype' objects is not writable"
_NO_FIELD = "'torch.dtype' object has no attribute '{}'"

_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}

float32 = dtype("float32", np.float32, "FloatTensor", "Float")
float64 = dtype("float64", np.float64, "DoubleTensor", "Double")
float16 = dtype("float16", np.float16, "HalfTensor", "Half")
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, "BFloat16Tensor", "BFloat16")  # numpy has none of its own
int64 = dtype("int64", np.int64, "LongTensor", "Long")
int32 = dtype("int32", np.int32, "IntTensor", "Int")
int16 = dtype("int16", np.int16, "ShortTensor", "Short")
int8 = dtype("int8", np.int8, "CharTensor", "Char")
uint8 = dtype("uint8", np.uint8, "ByteTensor", "Byte")
bool_ = dtype("bool", np.bool_, "BoolTensor", "Bool")
complex64 = dtype("complex64", np.complex64, "ComplexFloatTensor", "ComplexFloat")
complex128 = dtype("complex128", np.complex128, "ComplexDoubleTensor", "ComplexDouble")

ALL = (float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool_)  # the real dtypes
COMPLEX = (complex64, complex128)
ALIASES = {
    "float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
    "short": int16, "bool": bool_, "cfloat": complex64, "cdouble": complex128,
}
_BY_NUMPY = {d.np: d for d in ALL + COMPLEX}
_REAL_OF = {complex64: float32, complex128: float64}
_COMPLEX_OF = {"float16": complex64, "bfloat16": complex64, "float32": complex64, "float64": complex128}



class Defaults:
    """torch.set_default_dtype's setting: a part of the engine's runtime."""

    __slots__ = ("floating",)

    def __init__(self) -> None:
        self.floating = float32


defaults: Defaults = runtime.slot(__name__, "defaults", Defaults)


def get_default_dtype() -> dtype:
    return defaults.floating


def default_complex() -> dtype:
    """The dtype of a Python complex number in a tensor: complex128 when the default is float64."""
    return complex128 if defaults.floating is float64 else complex64


def set_default_dtype(d: dtype) -> None:
    if not (isinstance(d, dtype) and d.is_floating_point):
        raise TypeError("only floating-point types are supported as the default type")
    defaults.floating = d


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The torch dtype of a numpy dtype, or the TypeError torch.from_numpy raises."""
    found = _BY_NUMPY.get(np.dtype(np_dtype))
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."
        )
    return found


def to_dtype(value: object) -> dtype:
    """Accept torch dtypes and the Python types torch accepts as dtypes (`float`, `int`, `bool`)."""
    if isinstance(value, dtype):
        return value
    if value is float:
        return float64
    if value is int:
        return int64
    if value is bool:
        return bool_
    if value is complex:
        return complex128
    raise TypeError(f"dtype must be a torch.dtype, not {type(value).__name__}")


_CHECKED_NAMES = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
                  "float32": "float", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                  "complex64": "c10::complex<float>"}


@functools.cache
def _largest(np_dtype: Any) -> float:
    return float(ml_dtypes.finfo(np_dtype).max)


SCALAR_INT_MIN, SCALAR_INT_END = -2 ** 63, 2 ** 64  # the Python ints a torch Scalar holds: int64, or uint64


def check_scalar_int(value: object) -> None:
    """A Python int operand as torch's argument parser unpacks it into a Scalar: as an int64, else as
    a uint64, else CPython's own OverflowError (`x * 2**70`: "int too big to convert"; below -2**63:
    "can't convert negative int to unsigned"). torch.tensor(2**70) is not a Scalar and converts."""
    if type(value) is int and not SCALAR_INT_MIN <= value < SCALAR_INT_END:
        raise OverflowError("can't convert negative int to unsigned" if value < 0 else "int too big to convert")


def overflows(value: object, d: dtype) -> bool:
    """c10's overflows<To>(value) for a Python number: into an integer type a NaN, an infinity or a
    value beyond the type's limits (compared as a double for a float: 2.**63 passes into int64) is
    out; a negative int into uint8 may wrap down to -255; into a float type only a finite value
    beyond its largest is. Bools and complex values never overflow here."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or d is bool_:
        return False
    if d.is_floating_point or d.is_complex:
        number = float(value)
        return math.isfinite(number) and abs(number) > _largest(d.np)
    info = np.iinfo(d.np)
    if isinstance(value, float):
        return not math.isfinite(value) or value < float(info.min) or value > float(info.max)
    if info.min == 0:
        return value > info.max or value < -info.max
    return value < info.min or value > info.max


def through_float(values: np.ndarray, target: dtype) -> np.ndarray:
    """float64 values bound for float16 as c10 converts them, through float32 (`Half(float(x))`), so
    a double rounds twice: 859.74998 is 860. in torch, where numpy's direct cast gives 859.5."""
    return values.astype(np.float32) if target is float16 and values.dtype == np.float64 else values


def check_fits(value: object, d: dtype) -> None:
    """A Python number an op takes in dtype `d` as c10's checked_convert takes a Scalar (clamp's
    bounds, add's alpha, pow's exponent, where's number): out of range is an error naming the C++
    type (`int8_tensor.clamp(max=300)`)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        name = _CHECKED_NAMES.get(d.name)
        if name is not None and overflows(value, d):
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def checked_scalar(value: object, d: dtype, *, single: bool = False) -> np.ndarray:
    """A Python number converted to `d` as ATen's fill does (`Scalar.to<T>()`, c10's checked_convert):
    out of range is an error naming the C++ type. A single element is filled through another path
    that converts into float16 and bfloat16 unchecked (`full((1,), 1e6, dtype=float16)` is inf)."""
    check_scalar_int(value)
    name = _CHECKED_NAMES.get(d.name)
    if name is not None and not (single and d.name in ("float16", "bfloat16")) and overflows(value, d):
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    if d.name == "uint8" and isinstance(value, int) and not isinstance(value, bool):
        value = value % 256
    with np.errstate(invalid="ignore", over="ignore"):
        return through_float(np.array(value), d).astype(d.np)


def category(d: dtype) -> int:
    """0 bool, 1 integer, 2 floating, 3 complex: the order torch's type promotion climbs."""
    if d.is_floating_point:
        return 2
    return 3 if d.is_complex else (0 if d is bool_ else 1)


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: a float wins over any integer, a complex over any real (keeping the
    float's precision: float64 with complex64 is complex128); otherwise the wider type."""
    if a is b:
        return a
    ca, cb = category(a), category(b)
    if ca == 3 or cb == 3:
        if ca == 3 and cb == 3:
            return complex128 if complex128 in (a, b) else complex64
        z, other = (a, b) if ca == 3 else (b, a)
        return complex128 if other is float64 else z
    if ca != cb:
        return a if ca > cb else b
    if ca == 2 and {a, b} == {float16, bfloat16}:
        return float32  # neither holds the other
    if ca == 2 and bfloat16 in (a, b):
        return b if a is bfloat16 else a
    return from_numpy_dtype(np.promote_types(a.np, b.np))


def compute_type(d: dtype) -> np.dtype:
    """The numpy type arithmetic on d runs in: half-precision floats compute in float32, as ATen's
    CPU kernels do (opmath), and are rounded back once."""
    return np.dtype(np.float32) if d in (float16, bfloat16) else d.np


def float_limits(d: dtype) -> dict[str, float]:
    """bfloat16's limits (numpy's finfo does not know it)."""
    info = ml_dtypes.finfo(d.np)
    return {"eps": float(info.eps), "max": float(info.max), "tiny": float(info.tiny),
            "precision": int(info.precision)}


def can_cast(src: dtype, dst: dtype) -> bool:
    """torch.can_cast as in-place ops use it: no float into int, no number into bool."""
    return category(src) <= category(dst)
