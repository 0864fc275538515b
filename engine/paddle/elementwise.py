"""Paddle's elementwise math: `paddle.sin(x)`, `x.sin()`, `x.sin_()`, `paddle.sin_(x)`...

One table row per op: its grad node's name, the numpy forward, the derivative, and what the node
keeps for backward, measured in Paddle 3.3.1 by changing the input or the output in place before
backward: sin/log/abs... keep their input `x` (so changing x breaks backward), exp/sqrt/tanh/
sigmoid/reciprocal keep their output `out`, floor/ceil/round/trunc/sign keep nothing. The in-place
form of an op that keeps `x` keeps a copy of x taken before the write (so x itself may change
again), and one that keeps `out` keeps x after it. Which in-place forms exist, as a Tensor method
and as a `paddle.X_` function, is Paddle's own irregular choice, kept as measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import engine
from engine import geometry
from engine.ops.core import apply_inplace, record, unbroadcast
from engine.paddle import dtypes
from engine.paddle.tensor import (
    EngineTensor,
    Tensor,
    check_inplace_broadcast,
    quietly,
    replace_buffer,
    wrap,
)

Derivative = Callable[[np.ndarray, np.ndarray], Any]


@dataclass(frozen=True)
class Unary:
    node: str
    forward: Callable[[np.ndarray], np.ndarray]
    derivative: Derivative | None  # d out / d x from (x, out); None: no gradient flows (zeros)
    saves: str | None  # "x", "out", "both" or None
    method_: bool = True  # x.op_() exists
    function_: bool = True  # paddle.op_ exists
    float_only: bool = True  # integer input computes in the default float dtype
    libm: bool = False  # the kernel calls the C library per element (sinf...) rather than an Eigen loop
    into: Callable[[np.ndarray, np.ndarray], object] | None = None  # writes forward(x) into out, for op_


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """std::round, which Paddle's kernel calls: halves go away from zero (numpy's go to even)."""
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole).astype(x.dtype)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return x.dtype.type(1) / np.sqrt(x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    return one / (one + np.exp(-x))


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


UNARY: dict[str, Unary] = {
    "sin": Unary("SinGradNode", np.sin, lambda x, y: np.cos(x), "x", libm=True),
    "cos": Unary("CosGradNode", np.cos, lambda x, y: -np.sin(x), "x", libm=True),
    "tan": Unary("TanGradNode", np.tan, lambda x, y: 1 / np.cos(x) ** 2, "x", libm=True),
    "asin": Unary("AsinGradNode", np.arcsin, lambda x, y: 1 / np.sqrt(1 - x * x), "x", libm=True),
    "acos": Unary("AcosGradNode", np.arccos, lambda x, y: -1 / np.sqrt(1 - x * x), "x", libm=True),
    "atan": Unary("AtanGradNode", np.arctan, lambda x, y: 1 / (1 + x * x), "x", libm=True),
    "sinh": Unary("SinhGradNode", np.sinh, lambda x, y: np.cosh(x), "x", libm=True),
    "cosh": Unary("CoshGradNode", np.cosh, lambda x, y: np.sinh(x), "x", libm=True),
    "tanh": Unary("TanhGradNode", np.tanh, lambda x, y: 1 - y * y, "out"),
    "asinh": Unary("AsinhGradNode", np.arcsinh, lambda x, y: 1 / np.sqrt(x * x + 1), "x", libm=True),
    "acosh": Unary("AcoshGradNode", np.arccosh, lambda x, y: 1 / np.sqrt(x * x - 1), "x", libm=True),
    "atanh": Unary("AtanhGradNode", np.arctanh, lambda x, y: 1 / (1 - x * x), "x", libm=True),
    "exp": Unary("ExpGradNode", np.exp, lambda x, y: y, "out", function_=False),
    "expm1": Unary("Expm1GradNode", np.expm1, lambda x, y: y + 1, "out", method_=False),
    "log": Unary("LogGradNode", np.log, lambda x, y: 1 / x, "x"),
    "log2": Unary("Log2GradNode", np.log2, lambda x, y: 1 / (x * math.log(2)), "x"),
    "log10": Unary("Log10GradNode", np.log10, lambda x, y: 1 / (x * math.log(10)), "x"),
    "log1p": Unary("Log1pGradNode", np.log1p, lambda x, y: 1 / (1 + x), "x"),
    "sqrt": Unary("SqrtGradNode", np.sqrt, lambda x, y: 0.5 / y, "out", function_=False),
    "rsqrt": Unary("RsqrtGradNode", _rsqrt, lambda x, y: -0.5 * y ** 3, "out", function_=False),
    "square": Unary("SquareGradNode", np.square, lambda x, y: 2 * x, "x", float_only=False),
    "abs": Unary("AbsGradNode", np.abs, lambda x, y: np.sign(x), "x", float_only=False),
    "ceil": Unary("CeilGradNode", np.ceil, None, None, function_=False, float_only=False),
    "floor": Unary("FloorGradNode", np.floor, None, None, function_=False, float_only=False),
    "round": Unary("RoundGradNode", _round_half_away, None, None, function_=False, float_only=False),
    "trunc": Unary("TruncGradNode", np.trunc, None, None, float_only=False),
    "reciprocal": Unary("ReciprocalGradNode", np.reciprocal, lambda x, y: -y * y, "out", function_=False),
    "sign": Unary("SignGradNode", np.sign, None, None, method_=False, function_=False, float_only=False),
    "sigmoid": Unary("SigmoidGradNode", _sigmoid, lambda x, y: y * (1 - y), "out", function_=False),
    "erf": Unary("ErfGradNode", _erf, lambda x, y: 2 / math.sqrt(math.pi) * np.exp(-x * x), "x",
                 method_=False, libm=True),
}


def _evaluate(spec: Unary, values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Where Paddle's kernel calls the C library per element (sin, cos, asinh...), the op in double
    precision rounded once to float32, which is what `sinf` gives (numpy's own float32 sin(1) is one
    unit in the last place off); where it runs an Eigen loop (exp, log, tanh, sigmoid), numpy's
    float32 loop, which agrees with it on the values measured."""
    wide = values.astype(np.float64) if spec.libm and dtype.kind == "f" and dtype.itemsize < 8 else values
    with np.errstate(all="ignore"):
        return spec.forward(wide).astype(dtype, copy=False)


def result_tensor(like: EngineTensor, values: np.ndarray, dtype: Any = None) -> EngineTensor:
    """A fresh engine tensor on `like`'s device holding values (in `dtype`, default their own)."""
    array = np.asarray(values)  # (np.ascontiguousarray would make a 0-D result 1-D)
    with engine.devices.on(like.device):
        return EngineTensor._wrap(array if array.flags.c_contiguous else array.copy(), dtype or like.dtype)


def _compute_dtype(spec: Unary, t: EngineTensor) -> Any:
    if spec.float_only and not t.dtype.is_floating_point:
        return dtypes.default().engine
    return t.dtype


def _backward(spec: Unary) -> Callable[..., tuple[np.ndarray]]:
    def backward(grad: np.ndarray, saved: dict[str, np.ndarray]) -> tuple[np.ndarray]:
        if spec.derivative is None:
            return (np.zeros_like(grad),)
        with np.errstate(all="ignore"):
            d = spec.derivative(saved.get("x"), saved.get("out"))
        return ((grad * d).astype(grad.dtype),)
    return backward


def apply_unary(name: str | Unary, x: Tensor) -> Tensor:
    spec = UNARY[name] if isinstance(name, str) else name
    t = x._operand()
    dtype = _compute_dtype(spec, t)
    values = _evaluate(spec, t._numpy_view().astype(dtype.np, copy=False), dtype.np)
    out = result_tensor(t, values, dtype)
    record(spec.node, out, (t,), _backward(spec), {"x": t} if spec.saves in ("x", "both") else None,
           {"out": out} if spec.saves in ("out", "both") else None)
    return wrap(out, spec.node)


def apply_unary_(name: str | Unary, x: Tensor) -> Tensor:
    spec = UNARY[name] if isinstance(name, str) else name

    def run(t: EngineTensor) -> None:
        def write(target: np.ndarray) -> None:
            if spec.into is not None:  # in place for real: no full-size temporary
                spec.into(target, target)
            else:
                target[...] = _evaluate(spec, target, target.dtype)
        apply_inplace(t, write, spec.node, (), _backward(spec), check_autograd=False,
                      save_self_copy="x" if spec.saves in ("x", "both") else None,
                      save_result="out" if spec.saves in ("out", "both") else None)
    return x._inplace(spec.node, run)


def _make(name: str) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    def op(x: Tensor, name_: str | None = None) -> Tensor:
        return apply_unary(name, x)

    def op_(x: Tensor, name_: str | None = None) -> Tensor:
        return apply_unary_(name, x)

    op.__name__, op_.__name__ = name, name + "_"
    op.__qualname__, op_.__qualname__ = name, name + "_"
    op.__doc__ = f"paddle.{name} ({UNARY[name].node})."
    return op, op_


FUNCTIONS: dict[str, Callable[..., Tensor]] = {}
for _name, _spec in UNARY.items():
    _op, _op_ = _make(_name)
    FUNCTIONS[_name] = _op
    setattr(Tensor, _name, _op)
    if _spec.method_:
        setattr(Tensor, _name + "_", _op_)
    if _spec.function_:
        FUNCTIONS[_name + "_"] = _op_


# ---------------------------------------------------------------------- composites
def neg(x: Tensor, name: str | None = None) -> Tensor:
    """-x, which Paddle computes as scale(x, -1): ScaleGradNode."""
    return -x


def neg_(x: Tensor, name: str | None = None) -> Tensor:
    return x.scale_(-1.0)


def frac(x: Tensor, name: str | None = None) -> Tensor:
    """x - trunc(x) (SubtractGradNode over TruncGradNode), as Paddle composes it."""
    from engine.paddle.ops import subtract

    return subtract(x, apply_unary("trunc", x))


def frac_(x: Tensor, name: str | None = None) -> Tensor:
    return x.subtract_(apply_unary("trunc", x))


def logit(x: Tensor, eps: float | None = None, name: str | None = None) -> Tensor:
    """log(x / (1 - x)), x first clipped to [eps, 1 - eps] when eps is given (LogitGradNode keeps x)."""
    t = x._operand()
    values = t._numpy_view()
    clipped = values if eps is None else np.clip(values, eps, 1 - eps)
    with np.errstate(all="ignore"):
        out = result_tensor(t, np.log(clipped / (1 - clipped)).astype(values.dtype))

    def backward(grad: np.ndarray, saved: dict[str, np.ndarray]) -> tuple[np.ndarray]:
        v = saved["x"]
        inside = np.ones_like(v, dtype=bool) if eps is None else (v >= eps) & (v <= 1 - eps)
        with np.errstate(all="ignore"):
            return (np.where(inside, grad / (v * (1 - v)), 0).astype(grad.dtype),)
    record("LogitGradNode", out, (t,), backward, {"x": t})
    return wrap(out, "LogitGradNode")


def logit_(x: Tensor, eps: float | None = None, name: str | None = None) -> Tensor:
    def run(t: EngineTensor) -> None:
        def write(values: np.ndarray) -> None:
            clipped = values if eps is None else np.clip(values, eps, 1 - eps)
            with np.errstate(all="ignore"):
                values[...] = np.log(clipped / (1 - clipped))

        def backward(grad: np.ndarray, saved: dict[str, np.ndarray]) -> tuple[np.ndarray]:
            v = saved["x"]
            inside = np.ones_like(v, dtype=bool) if eps is None else (v >= eps) & (v <= 1 - eps)
            with np.errstate(all="ignore"):
                return (np.where(inside, grad / (v * (1 - v)), 0).astype(grad.dtype),)
        apply_inplace(t, write, "LogitGradNode", (), backward, check_autograd=False, save_self_copy="x")
    return x._inplace("LogitGradNode", run)


for _fn in (neg, frac, logit):
    FUNCTIONS[_fn.__name__] = _fn
    setattr(Tensor, _fn.__name__, _fn)
for _fn in (neg_, frac_, logit_):
    FUNCTIONS[_fn.__name__] = _fn
    setattr(Tensor, _fn.__name__, _fn)


# ---------------------------------------------------------------------- binary
def _binary_record(node: str, a: EngineTensor, b: EngineTensor, values: np.ndarray,
                   grads: Callable[[np.ndarray, dict[str, np.ndarray]], tuple[Any, Any]] | None) -> Tensor:
    """A binary op's result; its node keeps both operands (every binary op here does, measured)."""
    out = result_tensor(a, values)
    if grads is not None:
        sa, sb = a._shape, b._shape

        def backward(grad: np.ndarray, saved: dict[str, np.ndarray]) -> tuple[Any, Any]:
            with np.errstate(all="ignore"):
                ga, gb = grads(grad, saved)
            return (unbroadcast(np.asarray(ga, grad.dtype), sa), unbroadcast(np.asarray(gb, grad.dtype), sb))
        record(node, out, (a, b), backward, {"x": a, "y": b})
    return wrap(out, node)


def _operands(x: Tensor, y: Any) -> tuple[EngineTensor, EngineTensor]:
    from engine.paddle.creation import full_like

    other = y if isinstance(y, Tensor) else full_like(x, y)
    return x._operand(), other._operand()


def maximum(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    a, b = _operands(x, y)
    va, vb = a._numpy_view(), b._numpy_view()
    return _binary_record("MaximumGradNode", a, b, np.maximum(va, vb),
                          lambda g, s: (g * (s["x"] > s["y"]), g * (s["x"] <= s["y"])))


def minimum(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    a, b = _operands(x, y)
    va, vb = a._numpy_view(), b._numpy_view()
    return _binary_record("MinimumGradNode", a, b, np.minimum(va, vb),
                          lambda g, s: (g * (s["x"] < s["y"]), g * (s["x"] >= s["y"])))


def remainder(x: Tensor, y: Any, name: str | None = None) -> Tensor:
    """Python's sign convention (the result takes the divisor's sign), RemainderGradNode."""
    a, b = _operands(x, y)
    with np.errstate(all="ignore"):
        values = np.mod(a._numpy_view(), b._numpy_view())
    return _binary_record("RemainderGradNode", a, b, values,
                          lambda g, s: (g, -g * np.floor(s["x"] / s["y"])))


def floor_divide(x: Tensor, y: Any, name: str | None = None) -> Tensor:
    """No gradient node at all, even for inputs that need one (measured)."""
    a, b = _operands(x, y)
    with np.errstate(all="ignore"):
        values = np.floor_divide(a._numpy_view(), b._numpy_view())
    return Tensor._wrap(result_tensor(a, values))


def atan2(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    a, b = _operands(x, y)
    va, vb = a._numpy_view(), b._numpy_view()
    return _binary_record("Atan2GradNode", a, b, np.arctan2(va, vb),
                          lambda g, s: (g * s["y"] / (s["x"] ** 2 + s["y"] ** 2),
                                        -g * s["x"] / (s["x"] ** 2 + s["y"] ** 2)))


for _fn in (maximum, minimum, remainder, floor_divide, atan2):
    FUNCTIONS[_fn.__name__] = _fn
    setattr(Tensor, _fn.__name__, _fn)
FUNCTIONS["mod"] = FUNCTIONS["floor_mod"] = remainder
Tensor.mod = Tensor.floor_mod = remainder


def remainder_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    check_inplace_broadcast(x, y)

    def run(t: EngineTensor, other: EngineTensor) -> None:
        def write(target: np.ndarray) -> None:
            with np.errstate(all="ignore"):
                target[...] = np.mod(target, other._numpy_view())
        apply_inplace(t, write, "RemainderGradNode", (other,),
                      lambda g, s: (g, -g * np.floor(s["x"] / s["y"])), {"y": other}, save_self_copy="x",
                      check_autograd=False)
    return x._inplace("RemainderGradNode", run, y)


def floor_divide_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    check_inplace_broadcast(x, y)

    def run(t: EngineTensor, other: EngineTensor) -> None:
        def write(target: np.ndarray) -> None:
            with np.errstate(all="ignore"):
                target[...] = np.floor_divide(target, other._numpy_view())
        apply_inplace(t, write, "FloorDivideGradNode", (other,), check_autograd=False)
    return x._inplace("FloorDivideGradNode", run, y)


for _fn in (remainder_, floor_divide_):
    FUNCTIONS[_fn.__name__] = _fn
    setattr(Tensor, _fn.__name__, _fn)
FUNCTIONS["mod_"] = FUNCTIONS["floor_mod_"] = remainder_
Tensor.mod_ = Tensor.floor_mod_ = remainder_


# ---------------------------------------------------------------------- comparisons and logic
def _predicate(np_fn: Callable[..., np.ndarray]) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    """A boolean op (no gradient) and its in-place form, which makes x a bool tensor holding the
    results, in place, one version bump, without the leaf rule (measured: `x.less_than_(y)` turns a
    float32 x into a bool tensor)."""
    def op(x: Tensor, y: Any = None, name: str | None = None) -> Tensor:
        a = x._operand()
        values = np_fn(a._numpy_view()) if y is None else np_fn(a._numpy_view(), engine_operand_values(y))
        return Tensor._wrap(result_tensor(a, values, engine.bool))

    def op_(x: Tensor, y: Any = None, name: str | None = None) -> Tensor:
        if y is not None:
            check_inplace_broadcast(x, y)
        t = x._t
        values = np_fn(t._numpy_view()) if y is None else np_fn(t._numpy_view(), engine_operand_values(y))
        replace_buffer(t, np.asarray(values), engine.bool)
        t._bump_version()
        return x
    return op, op_


def engine_operand_values(y: Any) -> Any:
    if isinstance(y, Tensor):
        return y._t._numpy_view()
    if isinstance(y, EngineTensor):
        return y._numpy_view()
    return y


PREDICATES = {
    "equal": np.equal, "not_equal": np.not_equal, "less_than": np.less, "less_equal": np.less_equal,
    "greater_than": np.greater, "greater_equal": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    "logical_not": np.logical_not, "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
}
for _name, _np_fn in PREDICATES.items():
    _op, _op_ = _predicate(_np_fn)
    _op.__name__, _op_.__name__ = _name, _name + "_"
    _op.__qualname__, _op_.__qualname__ = _name, _name + "_"
    FUNCTIONS[_name] = _op
    setattr(Tensor, _name, _op)
    if not _name.startswith("is"):
        FUNCTIONS[_name + "_"] = _op_
        setattr(Tensor, _name + "_", _op_)


def _close(x: Tensor, y: Tensor, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """Paddle's isclose/allclose kernels: |a - b| <= atol + rtol * |b| (in float64 here), a == b
    always close, NaN close to NaN only with equal_nan; both tensors must have one dtype."""
    if x.dtype is not y.dtype:
        raise ValueError(f"(InvalidArgument) The type of data we are trying to retrieve ({x.dtype.name}) does not "
                         f"match the type of data ({y.dtype.name}) currently contained in the container.")
    a = np.asarray(x._t._numpy_view(), dtype=np.float64)
    b = np.asarray(y._t._numpy_view(), dtype=np.float64)
    with np.errstate(invalid="ignore"):
        left, right = np.abs(a - b), atol + rtol * np.abs(b)
        close = (a == b) | (left <= right) | (np.abs(left - right) <= 1e-15)
    nan = np.isnan(a) | np.isnan(b)
    return np.where(nan, equal_nan & np.isnan(a) & np.isnan(b), close)


def isclose(x: Tensor, y: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
            name: str | None = None) -> Tensor:
    return Tensor._wrap(result_tensor(x._t, _close(x, y, rtol, atol, equal_nan), engine.bool))


def allclose(x: Tensor, y: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False,
             name: str | None = None) -> Tensor:
    """A 0-D bool tensor: isclose everywhere."""
    return Tensor._wrap(result_tensor(x._t, np.asarray(_close(x, y, rtol, atol, equal_nan).all()), engine.bool))


def equal_all(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """A 0-D bool tensor: same shape and every element equal."""
    same = x.shape == y.shape and bool(np.array_equal(x._t._numpy_view(), y._t._numpy_view()))
    return Tensor._wrap(result_tensor(x._t, np.asarray(same), engine.bool))


for _fn in (isclose, allclose, equal_all):
    FUNCTIONS[_fn.__name__] = _fn
    setattr(Tensor, _fn.__name__, _fn)


def _bitwise(np_fn: Callable[..., np.ndarray]) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    def op(x: Tensor, y: Tensor | None = None, name: str | None = None) -> Tensor:
        a = x._operand()
        values = np_fn(a._numpy_view()) if y is None else np_fn(a._numpy_view(), engine_operand_values(y))
        return Tensor._wrap(result_tensor(a, values))

    def op_(x: Tensor, y: Tensor | None = None, name: str | None = None) -> Tensor:
        if y is not None:
            check_inplace_broadcast(x, y)
        target = x._t._numpy_view()
        values = np_fn(target) if y is None else np_fn(target, engine_operand_values(y))
        quietly(x._t, lambda: np.copyto(target, values))
        x._t._bump_version()
        return x
    return op, op_


for _name, _np_fn in {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
                      "bitwise_not": np.invert}.items():
    _op, _op_ = _bitwise(_np_fn)
    _op.__name__, _op_.__name__ = _name, _name + "_"
    _op.__qualname__, _op_.__qualname__ = _name, _name + "_"
    FUNCTIONS[_name], FUNCTIONS[_name + "_"] = _op, _op_
    setattr(Tensor, _name, _op)
    setattr(Tensor, _name + "_", _op_)


def where(condition: Tensor, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Elements of x where condition, else of y (WhereGradNode keeps the condition only)."""
    from engine.paddle.creation import to_tensor

    xs = x if isinstance(x, Tensor) else to_tensor(x, dtype=y.dtype if isinstance(y, Tensor) else None)
    ys = y if isinstance(y, Tensor) else to_tensor(y, dtype=xs.dtype)
    a, b = xs._operand(), ys._operand()
    cond = condition._t._numpy_view()
    values = np.where(cond, a._numpy_view(), b._numpy_view())
    out = result_tensor(a, values.astype(a.dtype.np))
    sa, sb = a._shape, b._shape
    record("WhereGradNode", out, (a, b),
           lambda g, s: (unbroadcast(np.where(cond, g, 0).astype(g.dtype), sa),
                         unbroadcast(np.where(cond, 0, g).astype(g.dtype), sb)))
    return wrap(out, "WhereGradNode")


def where_(condition: Tensor, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """x takes y's values where condition is False, in place (one version bump); broadcasting
    operands first as Paddle's Python does (a broadcast x is a new tensor, then written)."""
    if np.isscalar(x) or np.isscalar(y):
        raise ValueError("either both or neither of x and y should be given")
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    if condition.dtype is not dtypes.bool_:
        raise ValueError("The `condition` is expected to be a boolean Tensor, but got a Tensor with dtype "
                         f"{condition.dtype}")
    from engine.paddle.ops import broadcast_to

    shape = list(geometry.broadcast_shapes(condition.shape, x.shape, y.shape))
    cond = condition if list(condition.shape) == shape else broadcast_to(condition, shape)
    target = x if list(x.shape) == shape else broadcast_to(x, shape)
    other = y if list(y.shape) == shape else broadcast_to(y, shape)
    mask = cond._t._numpy_view().astype(bool)

    def run(t: EngineTensor, o: EngineTensor) -> None:
        def write(values: np.ndarray) -> None:
            values[...] = np.where(mask, values, o._numpy_view())
        apply_inplace(t, write, "WhereGradNode", (o,),
                      lambda g, s: (np.where(mask, g, 0).astype(g.dtype), np.where(mask, 0, g).astype(g.dtype)),
                      check_autograd=False)
    return target._inplace("WhereGradNode", run, other)


FUNCTIONS["where"], FUNCTIONS["where_"] = where, where_
Tensor.where = lambda self, x=None, y=None, name=None: where(self, x, y)
Tensor.where_ = lambda self, x=None, y=None, name=None: where_(self, x, y)


def nan_to_num(x: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None,
               name: str | None = None) -> Tensor:
    """Three `where`s, as Paddle's Python composes it (so WhereGradNode on top)."""
    fills = _nan_to_num_fills(x, nan, posinf, neginf)
    isnan, equal = FUNCTIONS["isnan"], FUNCTIONS["equal"]
    x = where(isnan(x), fills["nan"], x)
    x = where(equal(x, fills["inf"]), fills["posinf"], x)
    return where(equal(x, fills["-inf"]), fills["neginf"], x)


def nan_to_num_(x: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None,
                name: str | None = None) -> Tensor:
    """Three `where_`s: three version bumps (measured)."""
    fills = _nan_to_num_fills(x, nan, posinf, neginf)
    isnan, logical_not, not_equal = FUNCTIONS["isnan"], FUNCTIONS["logical_not"], FUNCTIONS["not_equal"]
    x = where_(logical_not(isnan(x)), x, fills["nan"])
    x = where_(not_equal(x, fills["inf"]), x, fills["posinf"])
    return where_(not_equal(x, fills["-inf"]), x, fills["neginf"])


def _nan_to_num_fills(x: Tensor, nan: float, posinf: float | None, neginf: float | None) -> dict[str, Tensor]:
    from engine.paddle.creation import full_like

    info = np.finfo(np.float32 if x.dtype is dtypes.float32 else np.float64)
    return {"inf": full_like(x, float("inf")), "-inf": full_like(x, float("-inf")), "nan": full_like(x, nan),
            "posinf": full_like(x, info.max if posinf is None else posinf),
            "neginf": full_like(x, info.min if neginf is None else neginf)}


for _fn in (nan_to_num, nan_to_num_):
    FUNCTIONS[_fn.__name__] = _fn
    setattr(Tensor, _fn.__name__, _fn)

globals().update(FUNCTIONS)  # `paddle.sin`, `paddle.sin_`... are this module's names
__all__ = sorted(FUNCTIONS)
