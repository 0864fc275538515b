"""Elementwise ops: arithmetic, activations, comparisons, and their in-place and out= forms.

Every op is its forward (numpy) and the node it records: PyTorch's name, its differentiable inputs,
what it saves and its other fields. Their derivatives are in engine/autograd/derivatives/pointwise.py.
What each op saves follows PyTorch exactly (see the reference), because that decides which later
in-place change breaks backward: mul saves its operands, exp/sigmoid/tanh/relu save their output, add
saves nothing.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import allocator as allocation
from engine import dtypes, errors, geometry
from engine.ops.core import (
    apply_inplace,
    array_of,
    check_inplace_allowed,
    check_writable,
    needs_grad,
    result_type,
    wrap_result,
)
from engine.tensor import Tensor

Operand = Tensor | float | int | bool


def _shape_of(x: Any) -> tuple[int, ...]:
    return x._shape if isinstance(x, Tensor) else ()


def _broadcast(*operands: Any) -> tuple[int, ...]:
    return geometry.broadcast_shapes(*(_shape_of(x) for x in operands))


def write_out(out: Tensor, result: np.ndarray, op: str, inputs: tuple[Any, ...]) -> Tensor:
    """The `out=` contract: no autograd, resize (with torch's warning) if needed, one version bump."""
    if needs_grad(*inputs):
        raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op=op))
    result_dtype = dtypes.from_numpy_dtype(result.dtype)
    if not dtypes.can_cast(result_dtype, out.dtype):
        raise RuntimeError(errors.CAST.format(src=result_dtype.short, dst=out.dtype.short))
    if out._shape != result.shape:
        if out.numel():
            warnings.warn(errors.OUT_RESIZED.format(had=errors.shape_text(out._shape),
                                                    want=errors.shape_text(result.shape)), UserWarning, stacklevel=3)
        out._storage.resize(out._offset + math.prod(result.shape))
        out._set_layout(result.shape, geometry.contiguous_strides(result.shape), out._offset)
    np.copyto(out._numpy_view(), result, casting="unsafe")
    out._bump_version()
    return out


def _finish(name: str, op: str, result: Any, dtype: dtypes.dtype, inputs: tuple[Any, ...],
            save: dict[str, Any] | None = None, save_result: str | None = None, out: Tensor | None = None,
            values: dict[str, Any] | None = None) -> Tensor:
    """Wrap a numpy result as a new tensor and record it, or honour `out=`."""
    if out is None:
        return wrap_result(name, result, dtype, inputs, save, values, save_result)
    result = np.asarray(result)
    if result.dtype != dtype.np:
        result = result.astype(dtype.np, copy=False)
    return write_out(out, result, op, inputs)


_UNRESERVED = 1 << 16  # results of up to this many elements skip the budget check


def _reserve(shape: tuple[int, ...], dtype: dtypes.dtype) -> None:
    """Refuse a result past the memory budget before numpy tries to allocate it."""
    count = math.prod(shape)
    if count > _UNRESERVED:
        allocation.allocator.check(count * dtype.itemsize)


def _alike(self: Any, other: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The numpy values of two plain tensors of one dtype and one shape, small enough to skip the
    budget check: the common case of a binary op, which needs no promotion, no broadcast check and
    no reservation. None sends the op down its general path."""
    if type(self) is Tensor and type(other) is Tensor and self.dtype is other.dtype and \
            self._shape == other._shape:
        a = self._numpy_view()
        if a.size <= _UNRESERVED:
            return a, other._numpy_view()
    return None


# --------------------------------------------------------------------------- binary arithmetic
def add(self: Operand, other: Operand, *, alpha: float = 1, out: Tensor | None = None) -> Tensor:
    if alpha == 1 and out is None:
        alike = _alike(self, other)
        if alike is not None:
            return wrap_result("AddBackward0", alike[0] + alike[1], self.dtype, (self, other), values={"alpha": 1})
    dt = result_type(self, other)
    sa, sb = _shape_of(self), _shape_of(other)
    _reserve(geometry.broadcast_shapes(sa, sb), dt)
    a, b = array_of(self, dt), array_of(other, dt)
    result = a + (b * dt.np.type(alpha) if alpha != 1 else b)
    return _finish("AddBackward0", "add", result, dt, (self, other), out=out, values={"alpha": alpha})


def sub(self: Operand, other: Operand, *, alpha: float = 1, out: Tensor | None = None) -> Tensor:
    dt = result_type(self, other)
    if dt is dtypes.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    _reserve(_broadcast(self, other), dt)
    a, b = array_of(self, dt), array_of(other, dt)
    result = a - (b * dt.np.type(alpha) if alpha != 1 else b)
    return _finish("SubBackward0", "sub", result, dt, (self, other), out=out, values={"alpha": alpha})


def rsub(self: Tensor, other: Operand, alpha: float = 1) -> Tensor:
    """`2 - x` (RsubBackward1 for a scalar, RsubBackward0 for a tensor)."""
    dt = result_type(self, other)
    a, b = array_of(self, dt), array_of(other, dt)
    result = b - a * alpha
    if isinstance(other, Tensor):
        return _finish("RsubBackward0", "rsub", result, dt, (self, other), values={"alpha": alpha})
    return _finish("RsubBackward1", "rsub", result, dt, (self,), values={"alpha": alpha})


def mul(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
    """A Python number operand is a wrapped scalar: an edge-less input that mul still saves."""
    if out is None:
        alike = _alike(self, other)
        if alike is not None:
            return wrap_result("MulBackward0", alike[0] * alike[1], self.dtype, (self, other),
                           {"other": other, "self": self})
    if not isinstance(self, Tensor):
        self, other = other, self
    dt = result_type(self, other)
    _reserve(geometry.broadcast_shapes(_shape_of(self), _shape_of(other)), dt)
    a, b = array_of(self, dt), array_of(other, dt)
    return _finish("MulBackward0", "mul", a * b, dt, (self, other), {"other": other, "self": self}, out=out)


def _true_div_dtype(self: Operand, other: Operand) -> dtypes.dtype:
    dt = result_type(self, other)
    return dt if dt.is_floating_point else dtypes.get_default_dtype()


def div(self: Operand, other: Operand, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor:
    if rounding_mode is not None:
        return _rounded_div(self, other, rounding_mode, out)
    dt = _true_div_dtype(self, other)
    _reserve(_broadcast(self, other), dt)
    a, b = array_of(self, dt), array_of(other, dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = a / b
    return _finish("DivBackward0", "div", result, dt, (self, other), {"other": other, "self": self}, out=out)


def _rounded_div(self: Operand, other: Operand, mode: str, out: Tensor | None) -> Tensor:
    dt = result_type(self, other)
    a, b = array_of(self, dt), array_of(other, dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.floor_divide(a, b) if mode == "floor" else np.trunc(a / b).astype(dt.np)
    return _finish("DivBackward2", "div", result, dt, (self, other), {"other": other, "self": self}, out=out,
                   values={"rounding_mode": mode})


def rdiv(self: Tensor, other: Operand) -> Tensor:
    """`2 / x` is `reciprocal(x) * 2`, as PyTorch records it."""
    return mul(unary("reciprocal", self), other)


def pow(self: Operand, exponent: Operand, *, out: Tensor | None = None) -> Tensor:  # noqa: A001
    if not isinstance(self, Tensor):
        return _scalar_pow(self, exponent)
    dt = result_type(self, exponent)
    _reserve(_broadcast(self, exponent), dt)
    a = array_of(self, dt)
    if not isinstance(exponent, Tensor):
        e = exponent
        if not dt.is_floating_point and isinstance(e, int) and e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        with np.errstate(divide="ignore", invalid="ignore"):
            result = np.power(a, dt.np.type(e)) if dt.is_floating_point else np.power(a, int(e))
        return _finish("PowBackward0", "pow", result, dt, (self,), {"self": self}, out=out, values={"exponent": e})
    b = array_of(exponent, dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.power(a, b)
    return _finish("PowBackward1", "pow", result, dt, (self, exponent), {"exponent": exponent, "self": self},
                   save_result="result", out=out)


def _scalar_pow(base: Operand, exponent: Tensor) -> Tensor:
    """`2 ** x`: PowBackward2, saving the exponent and the result."""
    dt = result_type(base, exponent)
    b = array_of(exponent, dt)
    result = np.power(dt.np.type(base), b)
    return _finish("PowBackward2", "pow", result, dt, (exponent,), {"exponent": exponent}, save_result="result",
                   values={"self": base})


def _minmax_binary(self: Tensor, other: Tensor, pick: Callable[..., np.ndarray], name: str) -> Tensor:
    dt = result_type(self, other)
    a, b = array_of(self, dt), array_of(other, dt)
    return _finish(name, name.lower()[:7], pick(a, b), dt, (self, other), {"other": other, "self": self})


def maximum(self: Tensor, other: Tensor) -> Tensor:
    return _minmax_binary(self, other, np.maximum, "MaximumBackward0")


def minimum(self: Tensor, other: Tensor) -> Tensor:
    return _minmax_binary(self, other, np.minimum, "MinimumBackward0")


def remainder(self: Operand, other: Operand) -> Tensor:
    dt = result_type(self, other)
    a, b = array_of(self, dt), array_of(other, dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.mod(a, b)
    if isinstance(other, Tensor):
        return _finish("RemainderBackward1", "remainder", result, dt, (self, other), {"other": other, "self": self})
    return _finish("RemainderBackward0", "remainder", result, dt, (self,))


def floor_divide(self: Operand, other: Operand) -> Tensor:
    """floor_divide has no derivative: its node is NotImplemented, whose backward raises."""
    dt = result_type(self, other)
    a, b = array_of(self, dt), array_of(other, dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.floor_divide(a, b)
    return _finish("NotImplemented", "floor_divide", result, dt, tuple(x for x in (self, other) if isinstance(x, Tensor)),
                   values={"_op": "floor_divide"})


def floor_divide_(self: Tensor, other: Operand) -> Tensor:
    return div_(self, other, rounding_mode="floor")


def remainder_(self: Tensor, other: Operand) -> Tensor:
    dt = result_type(self, other)

    def write(t: np.ndarray, o: Any) -> None:
        with np.errstate(divide="ignore", invalid="ignore"):
            np.mod(t, o, out=t, casting="unsafe")

    if isinstance(other, Tensor):
        return _binary_inplace(self, other, "RemainderBackward1", dt, write, {"other": other}, save_self_copy="self")
    return _binary_inplace(self, other, "RemainderBackward0", dt, write)


# --------------------------------------------------------------------------- unary ops
_CONSTANTS: dict[tuple[np.dtype, int], np.ndarray] = {}


def _constant(dtype: np.dtype, value: int) -> np.ndarray:
    """A cached 0-d array of `value` in `dtype`: numpy combines it with an array faster than a
    Python number, with the same result."""
    found = _CONSTANTS.get((dtype, value))
    if found is None:
        found = _CONSTANTS[dtype, value] = np.full((), value, dtype)
    return found


def _sigmoid(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """1 / (1 + exp(-x)); only exp can overflow (to inf, whose reciprocal is the 0 torch gives), so
    only exp runs with numpy's warnings off: ufuncs run slower inside np.errstate."""
    out = np.negative(x, out=out)
    with np.errstate(over="ignore"):
        np.exp(out, out=out)
    np.add(out, _constant(out.dtype, 1), out=out)
    return np.reciprocal(out, out=out)


def _relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    return np.maximum(x, _constant(x.dtype, 0), out=out)


def _rsqrt(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    out = np.sqrt(x, out=out)
    return np.reciprocal(out, out=out)


def _reciprocal(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    return np.divide(x.dtype.type(1), x, out=out)


def _erf(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    from engine.kernels.activation import erf

    result = erf(x).astype(x.dtype, copy=False)
    if out is None:
        return result
    out[...] = result
    return out


# name: (node, numpy forward (x, out=None), what the node saves: its input, its result or nothing)
UNARY: dict[str, tuple[str, Callable[..., np.ndarray], str]] = {
    "neg": ("NegBackward0", np.negative, "none"),
    "exp": ("ExpBackward0", np.exp, "result"),
    "log": ("LogBackward0", np.log, "self"),
    "log2": ("Log2Backward0", np.log2, "self"),
    "log10": ("Log10Backward0", np.log10, "self"),
    "log1p": ("Log1PBackward0", np.log1p, "self"),
    "expm1": ("Expm1Backward0", np.expm1, "result"),
    "sqrt": ("SqrtBackward0", np.sqrt, "result"),
    "rsqrt": ("RsqrtBackward0", _rsqrt, "result"),
    "abs": ("AbsBackward0", np.abs, "self"),
    "sin": ("SinBackward0", np.sin, "self"),
    "cos": ("CosBackward0", np.cos, "self"),
    "tan": ("TanBackward0", np.tan, "result"),
    "tanh": ("TanhBackward0", np.tanh, "result"),
    "sigmoid": ("SigmoidBackward0", _sigmoid, "result"),
    "relu": ("ReluBackward0", _relu, "result"),
    "reciprocal": ("ReciprocalBackward0", _reciprocal, "result"),
    "square": ("PowBackward0", np.square, "self"),
    "sign": ("SignBackward0", np.sign, "none"),
    "sgn": ("SgnBackward0", np.sign, "self, result"),
    "floor": ("FloorBackward0", np.floor, "none"),
    "ceil": ("CeilBackward0", np.ceil, "none"),
    "round": ("RoundBackward0", np.round, "none"),
    "trunc": ("TruncBackward0", np.trunc, "none"),
    "erf": ("ErfBackward0", _erf, "self"),
}
_FLOAT_ONLY = {"exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
               "sigmoid", "reciprocal", "erf"}


_CAN_WARN = {"exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "tan", "reciprocal",
             "erf"}  # ops whose nan/inf results numpy would warn about (torch never does; _sigmoid keeps its own)


def _forward(op: str, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    if op == "round" and out is not None:
        return np.round(x, out=out)
    if op not in _CAN_WARN:
        return UNARY[op][1](x, out=out)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return UNARY[op][1](x, out=out)


def unary(op: str, self: Tensor, out: Tensor | None = None) -> Tensor:
    if out is None and self.dtype.is_floating_point:
        return _float_unary(op, self)
    name, _, saves = UNARY[op]
    dt = self.dtype if (self.dtype.is_floating_point or op not in _FLOAT_ONLY) else dtypes.get_default_dtype()
    if op == "abs" and self.dtype is dtypes.bool_:
        raise RuntimeError("abs() is not supported for bool tensors")
    if op == "neg" and self.dtype is dtypes.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    _reserve(self._shape, dt)
    result = _forward(op, array_of(self, dt))
    values = {"exponent": 2} if op == "square" else None
    return _finish(name, op, result, dt, (self,), {"self": self} if "self" in saves else None,
                   save_result="result" if "result" in saves else None, out=out, values=values)


def _float_unary(op: str, self: Tensor) -> Tensor:
    """unary() of a floating-point tensor without out=, the common case: no dtype change and none
    of the bool checks."""
    name, forward, saves = UNARY[op]
    x = self._numpy_view()
    if x.size > _UNRESERVED:
        _reserve(self._shape, self.dtype)
    if op in _CAN_WARN:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            result = forward(x)
    else:
        result = forward(x)
    return wrap_result(name, result, self.dtype, (self,), {"self": self} if "self" in saves else None,
                   {"exponent": 2} if op == "square" else None, "result" if "result" in saves else None)


def unary_(op: str, self: Tensor) -> Tensor:
    """The in-place form: ops needing their input save a copy of it; the others save self after."""
    name, _, saves = UNARY[op]
    check_inplace_allowed(self)
    if op in _FLOAT_ONLY and not self.dtype.is_floating_point:
        raise RuntimeError(errors.CAST.format(src=dtypes.get_default_dtype().short, dst=self.dtype.short))
    check_writable(self)

    def write(target: np.ndarray) -> None:
        _forward(op, target, out=target)

    return apply_inplace(self, write, name, (), check_autograd=False, save_self_copy="self" if "self" in saves else None,
                         save_result="result" if "result" in saves else None,
                         values={"exponent": 2} if op == "square" else None)


def _make_unary(op: str) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    def fn(self: Tensor, *, out: Tensor | None = None) -> Tensor:
        if out is None and self.dtype.is_floating_point:
            return _float_unary(op, self)
        return unary(op, self, out)

    def fn_(self: Tensor) -> Tensor:
        return unary_(op, self)

    fn.__name__, fn_.__name__ = op, op + "_"
    return fn, fn_


# --------------------------------------------------------------------------- parametrised activations
def leaky_relu(self: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return leaky_relu_(self, negative_slope)
    x = self._numpy_view()
    result = np.where(x > 0, x, x * self.dtype.np.type(negative_slope))
    return _finish("LeakyReluBackward0", "leaky_relu", result, self.dtype, (self,), {"self": self},
                   values={"negative_slope": negative_slope})


def leaky_relu_(self: Tensor, negative_slope: float = 0.01) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self)

    def write(t: np.ndarray) -> None:
        np.multiply(t, self.dtype.np.type(negative_slope), out=t, where=t < 0)

    return apply_inplace(self, write, "LeakyReluBackward1", (), save_result="result", check_autograd=False,
                         values={"negative_slope": negative_slope})


def gelu(self: Tensor, approximate: str = "none", *, out: Tensor | None = None) -> Tensor:
    from engine.kernels import activation

    return _finish("GeluBackward0", "gelu", activation.gelu(self._numpy_view(), approximate), self.dtype, (self,),
                   {"self": self}, out=out, values={"approximate": approximate})


def clamp(self: Tensor, min: float | None = None, max: float | None = None, *,  # noqa: A002
          out: Tensor | None = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dt = result_type(self, *(v for v in (min, max) if v is not None))
    x = array_of(self, dt)
    result = np.clip(x, min, max).astype(dt.np, copy=False)
    return _finish("ClampBackward1", "clamp", result, dt, (self,), {"self": self}, out=out,
                   values={"max": max, "min": min})


def clamp_(self: Tensor, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A002
    return _clamp_inplace(self, min, max, "ClampBackward1", {"max": max, "min": min})


def _clamp_inplace(self: Tensor, low: Any, high: Any, name: str, values: dict[str, Any]) -> Tensor:
    check_inplace_allowed(self)
    dt = result_type(self, *(v for v in (low, high) if v is not None))
    if not dtypes.can_cast(dt, self.dtype):  # clamp_ names the target the C++ way
        raise RuntimeError(errors.CAST.format(src=dt.short, dst=self.dtype.cpp))
    check_writable(self)
    bounds = [v._numpy_view() if isinstance(v, Tensor) else v for v in (low, high)]

    def write(t: np.ndarray) -> None:
        np.clip(t, bounds[0], bounds[1], out=t)

    return apply_inplace(self, write, name, (), save_self_copy="self", check_autograd=False, values=values)


def clamp_min_(self: Tensor, min: float) -> Tensor:  # noqa: A002
    return _clamp_inplace(self, min, None, "ClampMinBackward0", {"min": min})


def clamp_max_(self: Tensor, max: float) -> Tensor:  # noqa: A002
    return _clamp_inplace(self, None, max, "ClampMaxBackward0", {"max": max})


def clamp_min(self: Tensor, min: float) -> Tensor:  # noqa: A002
    dt = result_type(self, min)
    result = np.maximum(array_of(self, dt), dt.np.type(min))
    return _finish("ClampMinBackward0", "clamp_min", result, dt, (self,), {"self": self}, values={"min": min})


def clamp_max(self: Tensor, max: float) -> Tensor:  # noqa: A002
    dt = result_type(self, max)
    result = np.minimum(array_of(self, dt), dt.np.type(max))
    return _finish("ClampMaxBackward0", "clamp_max", result, dt, (self,), {"self": self}, values={"max": max})


# --------------------------------------------------------------------------- in-place arithmetic
def _binary_inplace(self: Tensor, other: Operand, name: str, dt: dtypes.dtype,
                    write: Callable[[np.ndarray, Any], None], save: dict[str, Any] | None = None,
                    save_self_copy: str | None = None, values: dict[str, Any] | None = None) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self, dt, (_shape_of(other),))
    operand = array_of(other, dt) if isinstance(other, Tensor) else other
    return apply_inplace(self, lambda t: write(t, operand), name, (other,), save=save, save_self_copy=save_self_copy,
                         check_autograd=False, values=values)


def add_(self: Tensor, other: Operand, *, alpha: float = 1) -> Tensor:
    dt = result_type(self, other)

    def write(t: np.ndarray, o: Any) -> None:
        np.add(t, o * alpha if alpha != 1 else o, out=t, casting="unsafe")

    return _binary_inplace(self, other, "AddBackward0", dt, write, values={"alpha": alpha})


def sub_(self: Tensor, other: Operand, *, alpha: float = 1) -> Tensor:
    dt = result_type(self, other)

    def write(t: np.ndarray, o: Any) -> None:
        np.subtract(t, o * alpha if alpha != 1 else o, out=t, casting="unsafe")

    return _binary_inplace(self, other, "SubBackward0", dt, write, values={"alpha": alpha})


def mul_(self: Tensor, other: Operand) -> Tensor:
    dt = result_type(self, other)

    def write(t: np.ndarray, o: Any) -> None:
        np.multiply(t, o, out=t, casting="unsafe")

    return _binary_inplace(self, other, "MulBackward0", dt, write, {"other": other}, save_self_copy="self")


def div_(self: Tensor, other: Operand, *, rounding_mode: str | None = None) -> Tensor:
    dt = _true_div_dtype(self, other) if rounding_mode is None else result_type(self, other)

    def write(t: np.ndarray, o: Any) -> None:
        with np.errstate(divide="ignore", invalid="ignore"):
            if rounding_mode == "floor":
                np.floor_divide(t, o, out=t, casting="unsafe")
            elif rounding_mode == "trunc":
                t[...] = np.trunc(t / o)
            else:
                np.divide(t, o, out=t, casting="unsafe")

    if rounding_mode is not None:
        return _binary_inplace(self, other, "DivBackward2", dt, write, {"other": other}, save_self_copy="self",
                               values={"rounding_mode": rounding_mode})
    return _binary_inplace(self, other, "DivBackward0", dt, write, {"other": other}, save_self_copy="self")


def pow_(self: Tensor, exponent: Operand) -> Tensor:
    dt = result_type(self, exponent)
    if isinstance(exponent, Tensor):
        def write1(t: np.ndarray) -> None:
            with np.errstate(divide="ignore", invalid="ignore"):
                np.power(t, operand, out=t, casting="unsafe")

        check_inplace_allowed(self)
        check_writable(self, dt, (exponent._shape,))
        operand = array_of(exponent, dt)
        return apply_inplace(self, write1, "PowBackward1", (exponent,), save={"exponent": exponent},
                             save_self_copy="self", save_result="result", check_autograd=False)

    def write(t: np.ndarray, o: Any) -> None:
        with np.errstate(divide="ignore", invalid="ignore"):
            np.power(t, o, out=t, casting="unsafe")

    check_inplace_allowed(self)
    check_writable(self, dt)
    return apply_inplace(self, lambda t: write(t, exponent), "PowBackward0", (), save_self_copy="self",
                         check_autograd=False, values={"exponent": exponent})


# --------------------------------------------------------------------------- comparisons and logic
def _compare(ufunc: np.ufunc) -> Callable[..., Tensor]:
    def compare(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
        dt = result_type(self, other)
        geometry.broadcast_shapes(_shape_of(self), _shape_of(other))
        result = ufunc(array_of(self, dt), array_of(other, dt))
        if out is not None:
            return write_out(out, np.asarray(result), ufunc.__name__, ())
        return Tensor._wrap(np.asarray(result), dtypes.bool_)
    return compare


eq, ne, lt, le, gt, ge = (_compare(u) for u in (np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                                                np.greater_equal))


def _logical(ufunc: np.ufunc) -> Callable[..., Tensor]:
    def logical(self: Operand, other: Operand) -> Tensor:
        a = self._numpy_view() if isinstance(self, Tensor) else self
        b = other._numpy_view() if isinstance(other, Tensor) else other
        return Tensor._wrap(np.asarray(ufunc(a, b)), dtypes.bool_)
    return logical


logical_and, logical_or, logical_xor = (_logical(u) for u in (np.logical_and, np.logical_or, np.logical_xor))


def logical_not(self: Tensor) -> Tensor:
    return Tensor._wrap(np.logical_not(self._numpy_view()), dtypes.bool_)


def _bitwise(ufunc: np.ufunc) -> Callable[..., Tensor]:
    def bitwise(self: Operand, other: Operand) -> Tensor:
        dt = result_type(self, other)
        if dt.is_floating_point:
            raise RuntimeError(f"\"{ufunc.__name__}_cpu\" not implemented for '{dt.short}'")
        return Tensor._wrap(np.asarray(ufunc(array_of(self, dt), array_of(other, dt))), dt)
    return bitwise


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(u) for u in (np.bitwise_and, np.bitwise_or, np.bitwise_xor))


def bitwise_not(self: Tensor) -> Tensor:
    if self.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return Tensor._wrap(np.invert(self._numpy_view()), self.dtype)


def isnan(self: Tensor) -> Tensor:
    return Tensor._wrap(np.isnan(self._numpy_view()), dtypes.bool_)


def isinf(self: Tensor) -> Tensor:
    return Tensor._wrap(np.isinf(self._numpy_view()), dtypes.bool_)


def isfinite(self: Tensor) -> Tensor:
    return Tensor._wrap(np.isfinite(self._numpy_view()), dtypes.bool_)


def where(condition: Tensor, input: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    dt = result_type(input, other)
    geometry.broadcast_shapes(condition._shape, _shape_of(input), _shape_of(other))
    cond = condition._numpy_view().astype(bool, copy=False)
    result = np.where(cond, array_of(input, dt), array_of(other, dt))
    return _finish("WhereBackward0", "where", result, dt, (input, other), {"condition": condition}, out=out)


def lerp(self: Tensor, end: Tensor, weight: float) -> Tensor:
    dt = result_type(self, end)
    a, b = array_of(self, dt), array_of(end, dt)
    w = dt.np.type(weight)
    result = np.where(abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w)).astype(dt.np, copy=False)
    return _finish("LerpBackward0", "lerp", result, dt, (self, end), values={"weight": weight})


def addcmul(self: Tensor, t1: Tensor, t2: Tensor, *, value: float = 1) -> Tensor:
    dt = result_type(self, t1, t2)
    result = array_of(self, dt) + dt.np.type(value) * array_of(t1, dt) * array_of(t2, dt)
    return _finish("AddcmulBackward0", "addcmul", result, dt, (self, t1, t2), {"tensor1": t1, "tensor2": t2},
                   values={"value": value})


def addcdiv(self: Tensor, t1: Tensor, t2: Tensor, *, value: float = 1) -> Tensor:
    dt = result_type(self, t1, t2)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = array_of(self, dt) + dt.np.type(value) * (array_of(t1, dt) / array_of(t2, dt))
    return _finish("AddcdivBackward0", "addcdiv", result, dt, (self, t1, t2), {"tensor1": t1, "tensor2": t2},
                   values={"value": value})


_UNARY_FNS = {op: _make_unary(op) for op in UNARY}

METHODS: dict[str, Callable[..., Any]] = {
    "add": add, "sub": sub, "subtract": sub, "mul": mul, "multiply": mul, "div": div, "divide": div,
    "true_divide": div, "pow": pow, "maximum": maximum, "minimum": minimum, "remainder": remainder,
    "floor_divide": floor_divide, "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "pow_": pow_,
    "leaky_relu": leaky_relu, "clamp": clamp, "clip": clamp, "clamp_": clamp_, "clip_": clamp_,
    "clamp_min": clamp_min, "clamp_max": clamp_max, "clamp_min_": clamp_min_, "clamp_max_": clamp_max_,
    "floor_divide_": floor_divide_, "remainder_": remainder_, "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge,
    "greater": gt, "less": lt, "greater_equal": ge, "less_equal": le, "not_equal": ne,
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor, "logical_not": logical_not,
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "isnan": isnan, "isinf": isinf, "isfinite": isfinite, "where": lambda self, cond, other: where(cond, self, other),
    "lerp": lerp, "addcmul": addcmul, "addcdiv": addcdiv,
    "multiply_": mul_, "subtract_": sub_,
}
for _op, (_fn, _fn_) in _UNARY_FNS.items():
    METHODS[_op] = _fn
    METHODS[_op + "_"] = _fn_
METHODS["negative"] = METHODS["neg"]
METHODS["absolute"] = METHODS["abs"]

FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: METHODS[name] for name in (
        "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow", "maximum", "minimum",
        "remainder", "floor_divide", "clamp", "clip", "clamp_min", "clamp_max", "eq", "ne", "lt", "le", "gt",
        "ge", "greater", "less", "greater_equal", "less_equal", "not_equal", "logical_and", "logical_or",
        "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan",
        "isinf", "isfinite", "lerp", "addcmul", "addcdiv", "negative", "absolute", "rsub",
    ) if name in METHODS
}
FUNCTIONS.update({op: fn for op, (fn, _) in _UNARY_FNS.items()})


def relu(self: Tensor) -> Tensor:
    """torch.relu takes no out= (unlike torch.sigmoid)."""
    return unary("relu", self)


FUNCTIONS["relu"] = relu
FUNCTIONS.update({op + "_": fn_ for op, (_, fn_) in _UNARY_FNS.items() if op in ("relu", "sigmoid", "tanh", "exp")})
FUNCTIONS["where"] = where
FUNCTIONS["rsub"] = rsub


def _round_decimals(x: np.ndarray, decimals: int) -> np.ndarray:
    """ATen's round(decimals=): nearbyint(x * 10^d) / 10^d in the tensor's own precision
    (x / 10^-d * 10^-d for negative d)."""
    scale = x.dtype.type(10.0 ** abs(decimals))
    if decimals < 0:
        return np.rint(x / scale) * scale
    return np.rint(x * scale) / scale


def round(self: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """round() is RoundBackward0; with decimals= it is RoundBackward1 (both zero gradients)."""
    if decimals == 0:
        return unary("round", self, out)
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{self.dtype.short}'")
    with np.errstate(over="ignore", invalid="ignore"):
        result = _round_decimals(self._numpy_view(), decimals)
    return _finish("RoundBackward1", "round", result, self.dtype, (self,), out=out)


def round_(self: Tensor, *, decimals: int = 0) -> Tensor:
    if decimals == 0:
        return unary_("round", self)
    check_inplace_allowed(self)
    check_writable(self)

    def write(target: np.ndarray) -> None:
        with np.errstate(over="ignore", invalid="ignore"):
            target[...] = _round_decimals(target, decimals)

    return apply_inplace(self, write, "RoundBackward1", (), check_autograd=False)


METHODS.update(round=round, round_=round_)
FUNCTIONS.update(round=round, round_=round_)
