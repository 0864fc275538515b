"""More elementwise ops: fmod, atan2, hypot, fmax, fmin, copysign, the fused addcmul / addcdiv / lerp,
and comparisons and logic written in place, each with its out= and in-place forms.

Each op is one Spec: its forward on numpy arrays and PyTorch's node name; the node's derivatives
(and so which operands it saves) are the derivative table's (engine/autograd/derivatives/pointwise.py).
The same spec builds the out-of-place op (a new tensor, or out=) and, through the one in-place
protocol of engine/ops/inplace_forms.py, the in-place one (self's values before the write are what
the backward sees as `self`), so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import dtypes, geometry
from engine.autograd.node import node_type
from engine.kernels.fma import fma32
from engine.ops.core import array_of, result_type
from engine.ops.inplace_forms import Form, generate
from engine.ops.pointwise import (
    _finish,
    _shape_of,
    check_ordered,
    iterated,
    output_strides,
    write_out,
)
from engine.tensor import Tensor

Operand = Tensor | float | int | bool


@dataclass(frozen=True)
class Spec:
    op: str  # torch's name, as out= errors name it
    node: str  # the backward node, whose rule the derivative table has ("" for an op autograd never sees)
    forward: Callable[..., np.ndarray]  # arrays (self, *operands) in the computation dtype -> result
    fields: tuple[str, ...]  # the operands' names: "self", "other", "tensor1", ...
    floating: bool = False  # an integer computation promotes to the default float dtype
    values: dict[str, Any] | None = None  # the node's non-tensor fields, where the derivative table has it
    dtype_of: Callable[..., dtypes.dtype] | None = None  # the op's own dtype rule and checks, where not result_type's


def _node_fields(spec: Spec, operands: tuple[Operand, ...]) -> tuple[tuple[Operand, ...], dict[str, Any], dict[str, Any]]:
    """What the node of `spec` gets, as its table rule says: its inputs (a trailing Python number the
    rule has no input for, as fmod(x, 2.0)'s FmodBackward0, gets no edge), the operands it saves
    (`self`, `result` are the caller's), and its values, among them `_<field>_info`, an operand's shape
    where a formula needs only that (torch's TypeAndSize)."""
    rule = node_type(spec.node).formula if spec.node else None
    if rule is None:
        return operands, {}, spec.values or {}
    inputs = operands[:len(rule.inputs)]
    saved = {f: x for f, x in zip(spec.fields, operands) if f in rule.saves and isinstance(x, Tensor)}
    values = dict(spec.values or {})
    values.update({f"_{f}_info": x._shape for f, x in zip(spec.fields, operands) if f"_{f}_info" in rule.values})
    return inputs, saved, values


def _saved_fields(spec: Spec) -> tuple[str, ...]:
    rule = node_type(spec.node).formula if spec.node else None
    return rule.saves if rule is not None else ()


def _dtype(spec: Spec, operands: tuple[Operand, ...]) -> dtypes.dtype:
    if spec.dtype_of is not None:
        return spec.dtype_of(*operands)
    dt = result_type(*operands)
    return dtypes.get_default_dtype() if spec.floating and not dt.is_floating_point else dt


def _apply(spec: Spec, operands: tuple[Operand, ...], out: Tensor | None) -> Tensor:
    dt = _dtype(spec, operands)
    geometry.broadcast_shapes(*(_shape_of(x) for x in operands))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        result = spec.forward(*(array_of(x, dt) for x in operands))
    inputs, saved, values = _node_fields(spec, operands)
    return _finish(spec.node, spec.op, result, dt, inputs, saved, out=out, values=values,
                   save_result="result" if "result" in _saved_fields(spec) else None)


def _is_number(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex))


def _inplace(choose: Callable[..., Spec], name: str, cast_check: bool = True, operands: int = 1) -> Callable[..., Tensor]:
    """op_ for the spec `choose(*operands, **options)` picks (it tells a Tensor from a Python number,
    which may also be given as an array), through the one in-place protocol (inplace_forms.generate):
    the out-of-place forward computes from self's old values, the result is cast into self."""
    def node(*operands: Operand, **options: Any) -> str:
        return choose(*operands, **options).node

    def dtype(self: Tensor, *operands: Operand, **options: Any) -> dtypes.dtype:
        return _dtype(choose(*operands, **options), (self, *operands))

    def kernel(target: np.ndarray, dt: dtypes.dtype, *operands: Any, **options: Any) -> None:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            result = choose(*operands, **options).forward(target.astype(dt.np, copy=False), *operands)
        np.copyto(target, result, casting="unsafe")

    def values(*operands: Operand, **options: Any) -> dict[str, Any] | None:
        spec = choose(*operands, **options)
        return _node_fields(spec, (None, *operands))[2] or None

    return generate(Form(node, dtype, kernel, values, cast_check=cast_check, operands=operands), name)


FMOD_SCALAR = Spec("fmod", "FmodBackward0", np.fmod, ("self", "other"))
FMOD = Spec("fmod", "FmodBackward1", np.fmod, ("self", "other"))
ATAN2 = Spec("atan2", "Atan2Backward0", np.arctan2, ("self", "other"), floating=True)
def _hypot_dtype(self: Operand, other: Operand) -> dtypes.dtype:
    dt = result_type(self, other)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"hypot_cpu\" not implemented for '{dt.short}'")
    return dt


HYPOT = Spec("hypot", "HypotBackward0", np.hypot, ("self", "other"), dtype_of=_hypot_dtype)
FMAX = Spec("fmax", "FmaxBackward0", np.fmax, ("self", "other"))
FMIN = Spec("fmin", "FminBackward0", np.fmin, ("self", "other"))
COPYSIGN = Spec("copysign", "CopysignBackward0", np.copysign, ("self", "other"), floating=True)
COPYSIGN_SCALAR = Spec("copysign", "CopysignBackward1", np.copysign, ("self", "other"), floating=True)


def _all_float32(*operands: Any) -> bool:
    return all(getattr(v, "dtype", None) == np.float32 for v in operands)


def _addcmul_values(value: Any) -> Callable[..., np.ndarray]:
    """ATen's addcmul: `self + value * t1 * t2`, in float32 one fma(value * t1, t2, self)."""
    def compute(a: np.ndarray, t1: np.ndarray, t2: np.ndarray) -> np.ndarray:
        if _all_float32(a, t1, t2) and isinstance(value, (int, float)):
            return fma32(np.float32(value) * t1, t2, a)
        if a.dtype.kind in "iu" and isinstance(value, float):  # the value taken in the integer dtype, truncated
            return a + int(value) * t1 * t2
        return a + value * t1 * t2
    return compute


def _addcmul(value: Any) -> Spec:
    return Spec("addcmul", "AddcmulBackward0", _addcmul_values(value), ("self", "tensor1", "tensor2"),
                values={"value": value})


def _addcdiv(value: Any) -> Spec:
    """ATen's addcdiv: `self + value * t1 / t2`, the product first."""
    return Spec("addcdiv", "AddcdivBackward0", lambda a, t1, t2: a + value * t1 / t2, ("self", "tensor1", "tensor2"),
                floating=True, values={"value": value})


def _lerp_values(a: np.ndarray, b: np.ndarray, w: Any) -> np.ndarray:
    """ATen's lerp: `self + w * (end - self)` where |w| < 0.5, else `end - (end - self) * (1 - w)`;
    in float32 each is one fma, as its vectorised kernel computes them."""
    diff = b - a
    if _all_float32(a, b) and (isinstance(w, (int, float)) or _all_float32(w)):
        w = np.float32(w) if isinstance(w, (int, float)) else w
        return np.where(np.abs(w) < 0.5, fma32(w, diff, a), fma32(w - np.float32(1), diff, b))
    return np.where(np.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))


def _lerp_dtype(self: Tensor, end: Tensor, weight: Operand) -> dtypes.dtype:
    """lerp computes in self's dtype: end, and a weight tensor of one or more dimensions, must have it."""
    for name, operand in (("end", end), ("weight", weight)):
        if isinstance(operand, Tensor) and operand.dtype is not self.dtype and (name == "end" or operand.ndim):
            raise RuntimeError(f"expected dtype {self.dtype.cpp} for `{name}` but got dtype {operand.dtype.cpp}")
    if not self.dtype.is_floating_point:
        kernel = "lerp_kernel_scalar" if _is_number(weight) else "lerp_kernel_tensor"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self.dtype.short}'")
    return self.dtype


def _lerp(weight: Operand) -> Spec:
    if _is_number(weight):
        return Spec("lerp", "LerpBackward0", _lerp_values, ("self", "end", "weight"), values={"weight": weight},
                    dtype_of=_lerp_dtype)
    return Spec("lerp", "LerpBackward1", _lerp_values, ("self", "end", "weight"), dtype_of=_lerp_dtype)


def _fmod(other: Operand) -> Spec:
    return FMOD_SCALAR if _is_number(other) else FMOD


def _copysign(other: Operand) -> Spec:
    return COPYSIGN_SCALAR if _is_number(other) else COPYSIGN


# --------------------------------------------------------------------------- the public ops
def fmod(self: Tensor, other: Operand, *, out: Tensor | None = None) -> Tensor:
    return _apply(_fmod(other), (self, other), out)


def atan2(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _apply(ATAN2, (self, other), out)


def hypot(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _apply(HYPOT, (self, other), out)


def fmax(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _apply(FMAX, (self, other), out)


def fmin(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _apply(FMIN, (self, other), out)


def copysign(self: Tensor, other: Operand, *, out: Tensor | None = None) -> Tensor:
    return _apply(_copysign(other), (self, other), out)


def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1, out: Tensor | None = None) -> Tensor:
    return _apply(_addcmul(value), (self, tensor1, tensor2), out)


def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1, out: Tensor | None = None) -> Tensor:
    return _apply(_addcdiv(value), (self, tensor1, tensor2), out)


def lerp(self: Tensor, end: Tensor, weight: Operand, *, out: Tensor | None = None) -> Tensor:
    return _apply(_lerp(weight), (self, end, weight), out)


_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _tensor_operands(op: str, generated: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """addcmul_/addcdiv_ as torch's argument parser takes them: tensor1 and tensor2 must be tensors
    (a number there is a TypeError naming the argument); addcdiv of two integer tensors is refused
    before anything else, as its meta function does."""
    def checked(self: Tensor, *operands: Any, **options: Any) -> Tensor:
        for position, (name, operand) in enumerate(zip(("tensor1", "tensor2"), operands), 1):
            if not isinstance(operand, Tensor):
                raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                                f"{type(operand).__name__}")
        if op == "addcdiv_" and len(operands) == 2 and all(
                not (o.dtype.is_floating_point or o.dtype.is_complex) for o in operands):
            raise RuntimeError(_INTEGER_ADDCDIV)
        if op == "addcmul_" and self.dtype is dtypes.bool_ and all(o.dtype is dtypes.bool_ for o in operands):
            raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")  # no bool kernel
        return generated(self, *operands, **options)
    checked.__name__ = checked.__qualname__ = op
    return checked


def _lerp_arguments(generated: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """lerp_ as torch's argument parser takes it: `end` must be a tensor, else neither overload
    (Tensor end, Tensor weight), (Tensor end, Number weight) matches."""
    def checked(self: Tensor, end: Any, weight: Any) -> Tensor:
        if not isinstance(end, Tensor):
            kinds = [type(x).__name__ if not isinstance(x, Tensor) else "Tensor" for x in (end, weight)]
            first = ", ".join(f"!{k}!" if k != "Tensor" else k for k in kinds)
            raise TypeError(f"lerp_() received an invalid combination of arguments - got ({', '.join(kinds)}), but "
                            "expected one of:\n * (Tensor end, Tensor weight)\n      didn't match because some of the "
                            f"arguments have invalid types: ({first})\n * (Tensor end, Number weight)\n      didn't "
                            "match because some of the arguments have invalid types: ("
                            + ", ".join(f"!{k}!" for k in kinds) + ")\n")
        return generated(self, end, weight)
    checked.__name__ = checked.__qualname__ = "lerp_"
    return checked


def _compare(ufunc: np.ufunc, node: str) -> Callable[..., Spec]:
    """x.lt_(y): the comparison's 0/1 written into x in x's own dtype; its gradients are zeros."""
    def forward(a: np.ndarray, b: Any) -> np.ndarray:
        check_ordered(ufunc, dtypes.from_numpy_dtype(a.dtype))
        return ufunc(a, b).astype(a.dtype)

    specs = {number: Spec(node.lower(), f"{node}Backward{0 if number else 1}", forward, ("self", "other"))
             for number in (True, False)}
    return lambda other: specs[_is_number(other)]


def _logical(ufunc: np.ufunc) -> Callable[..., Tensor]:
    def logical(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
        a = self._numpy_view() if isinstance(self, Tensor) else self
        b = other._numpy_view() if isinstance(other, Tensor) else other
        geometry.broadcast_shapes(_shape_of(self), _shape_of(other))
        result = np.asarray(ufunc(a, b))
        if out is not None:
            return write_out(out, result.astype(out.dtype.np), ufunc.__name__, (self, other),
                             strides=output_strides(result.shape, (self, other), "iterator"), iterator=True)
        return iterated(result, dtypes.bool_, (self, other))
    logical.__name__ = ufunc.__name__
    return logical


def _logical_spec(ufunc: np.ufunc) -> Callable[..., Spec]:
    """x.logical_and_(y): 0/1 written into x in x's dtype; not differentiable (nothing recorded)."""
    spec = Spec(ufunc.__name__, "", lambda a, b: ufunc(a, b), ("self", "other"))
    return lambda other: spec


def _shift(ufunc: np.ufunc, kernel: str) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    """`x << y` / `x >> y` and their in-place forms: integer tensors only, as on torch's CPU."""
    def check(*operands: Operand) -> None:
        dt = result_type(*operands)
        if dt.is_floating_point:
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{dt.short}'")

    spec = Spec(kernel, "", lambda a, b: ufunc(a, b), ("self", "other"))
    generated = _inplace(lambda other: spec, f"bitwise_{kernel.replace('shift', '_shift')}_")

    def shift(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
        check(self, other)
        return _apply(spec, (self, other), out)

    def shift_(self: Tensor, other: Operand) -> Tensor:
        check(self, other)
        return generated(self, other)
    return shift, shift_


lshift, lshift_ = _shift(np.left_shift, "lshift")
rshift, rshift_ = _shift(np.right_shift, "rshift")

INPLACE = {
    "fmod_": _inplace(_fmod, "fmod_"), "atan2_": _inplace(lambda other: ATAN2, "atan2_"),
    "hypot_": _inplace(lambda other: HYPOT, "hypot_"), "copysign_": _inplace(_copysign, "copysign_"),
    "addcmul_": _tensor_operands("addcmul_", _inplace(lambda tensor1, tensor2, value=1: _addcmul(value), "addcmul_",
                                                      operands=2)),
    "addcdiv_": _tensor_operands("addcdiv_", _inplace(lambda tensor1, tensor2, value=1: _addcdiv(value), "addcdiv_",
                                                      operands=2)),
    "lerp_": _lerp_arguments(_inplace(lambda end, weight: _lerp(weight), "lerp_", operands=2)),
    **{f"{node.lower()}_": _inplace(_compare(ufunc, node), f"{node.lower()}_", cast_check=False)
       for ufunc, node in ((np.less, "Lt"), (np.less_equal, "Le"), (np.greater, "Gt"), (np.greater_equal, "Ge"),
                           (np.equal, "Eq"), (np.not_equal, "Ne"))},
    **{f"{ufunc.__name__}_": _inplace(_logical_spec(ufunc), f"{ufunc.__name__}_", cast_check=False)
       for ufunc in (np.logical_and, np.logical_or, np.logical_xor)},
}
METHODS = {
    "fmod": fmod, "atan2": atan2, "arctan2": atan2, "arctan2_": INPLACE["atan2_"], "hypot": hypot, "fmax": fmax,
    "fmin": fmin, "copysign": copysign, "addcmul": addcmul, "addcdiv": addcdiv, "lerp": lerp,
    "logical_and": _logical(np.logical_and), "logical_or": _logical(np.logical_or),
    "logical_xor": _logical(np.logical_xor), **INPLACE,
}
METHODS.update({"bitwise_left_shift": lshift, "bitwise_left_shift_": lshift_, "bitwise_right_shift": rshift,
                "bitwise_right_shift_": rshift_, "__lshift__": lshift, "__rshift__": rshift, "__ilshift__": lshift_,
                "__irshift__": rshift_, "__rlshift__": lambda self, other: lshift(other, self),
                "__rrshift__": lambda self, other: rshift(other, self)})
METHODS.update({"less_": METHODS["lt_"], "less_equal_": METHODS["le_"], "greater_": METHODS["gt_"],
                "greater_equal_": METHODS["ge_"], "not_equal_": METHODS["ne_"]})
FUNCTIONS = {name: METHODS[name] for name in ("fmod", "atan2", "arctan2", "hypot", "fmax", "fmin", "copysign",
                                              "addcmul", "addcdiv", "lerp", "logical_and", "logical_or", "logical_xor", "bitwise_left_shift",
                                              "bitwise_right_shift")}
