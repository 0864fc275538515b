"""More elementwise ops: fmod, atan2, hypot, fmax, fmin, copysign, the fused addcmul / addcdiv / lerp,
and comparisons and logic written in place, each with its out= and in-place forms.

Each op is one Spec: its forward on numpy arrays and PyTorch's node name; the node's derivatives
(and so which operands it saves) are the derivative table's (engine/autograd/derivatives/pointwise.py).
The same spec builds the out-of-place op (a new tensor, or out=) and the in-place one (self's values
before the write are what the backward sees as `self`), so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import dtypes, geometry
from engine.autograd.node import node_type
from engine.ops.core import (
    apply_inplace,
    array_of,
    check_inplace_allowed,
    check_writable,
    result_type,
)
from engine.ops.pointwise import _finish, _shape_of, iterated, output_strides, write_out
from engine.tensor import Tensor

Operand = Tensor | float | int | bool


@dataclass(frozen=True)
class Spec:
    op: str  # torch's name, as out= errors name it
    node: str  # the backward node, whose rule the derivative table has ("" for an op autograd never sees)
    forward: Callable[..., np.ndarray]  # arrays (self, *operands) in the computation dtype -> result
    fields: tuple[str, ...]  # the operands' names: "self", "other", "tensor1", ...
    floating: bool = False  # an integer computation promotes to the default float dtype
    cast_check: bool = True  # in place, the computation dtype must cast to self's
    values: dict[str, Any] | None = None  # the node's non-tensor fields, where the derivative table has it


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


def _apply_(spec: Spec, self: Tensor, operands: tuple[Operand, ...]) -> Tensor:
    """self.op_(...): checks as any in-place write, then the same node as the out-of-place op, whose
    saved `self` is a copy of self's values before the write and `result` self after it."""
    check_inplace_allowed(self, *operands)
    everything = (self, *operands)
    dt = _dtype(spec, everything)
    check_writable(self, dt if spec.cast_check else None, tuple(_shape_of(x) for x in operands))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = spec.forward(*(array_of(x, dt) for x in everything))
    inputs, saved, node_values = _node_fields(spec, everything)
    fields = _saved_fields(spec)

    def write(target: np.ndarray) -> None:
        np.copyto(target, values, casting="unsafe")

    return apply_inplace(self, write, spec.node, inputs[1:], save={f: x for f, x in saved.items() if f != "self"},
                         save_self_copy="self" if "self" in fields else None,
                         save_result="result" if "result" in fields else None, check_autograd=False,
                         values=node_values)


FMOD_SCALAR = Spec("fmod", "FmodBackward0", np.fmod, ("self", "other"))
FMOD = Spec("fmod", "FmodBackward1", np.fmod, ("self", "other"))
ATAN2 = Spec("atan2", "Atan2Backward0", np.arctan2, ("self", "other"), floating=True)
HYPOT = Spec("hypot", "HypotBackward0", np.hypot, ("self", "other"))
FMAX = Spec("fmax", "FmaxBackward0", np.fmax, ("self", "other"))
FMIN = Spec("fmin", "FminBackward0", np.fmin, ("self", "other"))
COPYSIGN = Spec("copysign", "CopysignBackward0", np.copysign, ("self", "other"), floating=True)
COPYSIGN_SCALAR = Spec("copysign", "CopysignBackward1", np.copysign, ("self", "other"), floating=True)


def _addcmul(value: Any) -> Spec:
    return Spec("addcmul", "AddcmulBackward0", lambda a, t1, t2: a + value * t1 * t2, ("self", "tensor1", "tensor2"),
                values={"value": value})


def _addcdiv(value: Any) -> Spec:
    return Spec("addcdiv", "AddcdivBackward0", lambda a, t1, t2: a + value * (t1 / t2), ("self", "tensor1", "tensor2"),
                floating=True, values={"value": value})


def _lerp_values(a: np.ndarray, b: np.ndarray, w: Any) -> np.ndarray:
    """ATen's lerp: `self + w * (end - self)` where |w| < 0.5, else `end - (end - self) * (1 - w)`."""
    diff = b - a
    return np.where(np.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))


def _lerp(weight: Operand) -> Spec:
    if isinstance(weight, Tensor):
        return Spec("lerp", "LerpBackward1", _lerp_values, ("self", "end", "weight"))
    return Spec("lerp", "LerpBackward0", lambda a, b: _lerp_values(a, b, weight), ("self", "end"),
                values={"weight": weight})


# --------------------------------------------------------------------------- the public ops
def fmod(self: Tensor, other: Operand, *, out: Tensor | None = None) -> Tensor:
    return _apply(FMOD if isinstance(other, Tensor) else FMOD_SCALAR, (self, other), out)


def fmod_(self: Tensor, other: Operand) -> Tensor:
    return _apply_(FMOD if isinstance(other, Tensor) else FMOD_SCALAR, self, (other,))


def atan2(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _apply(ATAN2, (self, other), out)


def atan2_(self: Tensor, other: Tensor) -> Tensor:
    return _apply_(ATAN2, self, (other,))


def hypot(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _apply(HYPOT, (self, other), out)


def hypot_(self: Tensor, other: Tensor) -> Tensor:
    return _apply_(HYPOT, self, (other,))


def fmax(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _apply(FMAX, (self, other), out)


def fmin(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _apply(FMIN, (self, other), out)


def copysign(self: Tensor, other: Operand, *, out: Tensor | None = None) -> Tensor:
    return _apply(COPYSIGN if isinstance(other, Tensor) else COPYSIGN_SCALAR, (self, other), out)


def copysign_(self: Tensor, other: Operand) -> Tensor:
    return _apply_(COPYSIGN if isinstance(other, Tensor) else COPYSIGN_SCALAR, self, (other,))


def addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1, out: Tensor | None = None) -> Tensor:
    return _apply(_addcmul(value), (self, tensor1, tensor2), out)


def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    return _apply_(_addcmul(value), self, (tensor1, tensor2))


def addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1, out: Tensor | None = None) -> Tensor:
    return _apply(_addcdiv(value), (self, tensor1, tensor2), out)


def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    return _apply_(_addcdiv(value), self, (tensor1, tensor2))


def lerp(self: Tensor, end: Tensor, weight: Operand, *, out: Tensor | None = None) -> Tensor:
    operands = (self, end, weight) if isinstance(weight, Tensor) else (self, end)
    return _apply(_lerp(weight), operands, out)


def lerp_(self: Tensor, end: Tensor, weight: Operand) -> Tensor:
    return _apply_(_lerp(weight), self, (end, weight) if isinstance(weight, Tensor) else (end,))


def _compare_(ufunc: np.ufunc, node: str) -> Callable[..., Tensor]:
    """x.lt_(y): the comparison's 0/1 written into x in x's own dtype; its gradients are zeros."""
    def compare_(self: Tensor, other: Operand) -> Tensor:
        name = f"{node}Backward1" if isinstance(other, Tensor) else f"{node}Backward0"
        spec = Spec(node.lower(), name, lambda a, b: ufunc(a, b).astype(a.dtype), ("self", "other"),
                    cast_check=False)
        return _apply_(spec, self, (other,))
    compare_.__name__ = node.lower() + "_"
    return compare_


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


def _logical_(ufunc: np.ufunc) -> Callable[..., Tensor]:
    """x.logical_and_(y): 0/1 written into x in x's dtype; not differentiable (nothing recorded)."""
    def logical_(self: Tensor, other: Operand) -> Tensor:
        check_inplace_allowed(self, other)
        check_writable(self, None, (_shape_of(other),))
        b = other._numpy_view() if isinstance(other, Tensor) else other

        def write(target: np.ndarray) -> None:
            np.copyto(target, ufunc(target, b), casting="unsafe")

        return apply_inplace(self, write, "", (other,) if isinstance(other, Tensor) else (), None,
                             check_autograd=False)
    logical_.__name__ = ufunc.__name__ + "_"
    return logical_


def _shift(ufunc: np.ufunc, kernel: str) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    """`x << y` / `x >> y` and their in-place forms: integer tensors only, as on torch's CPU."""
    def check(*operands: Operand) -> None:
        dt = result_type(*operands)
        if dt.is_floating_point:
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{dt.short}'")

    spec = Spec(kernel, "", lambda a, b: ufunc(a, b), ("self", "other"))

    def shift(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
        check(self, other)
        return _apply(spec, (self, other), out)

    def shift_(self: Tensor, other: Operand) -> Tensor:
        check(self, other)
        return _apply_(spec, self, (other,))
    return shift, shift_


lshift, lshift_ = _shift(np.left_shift, "lshift")
rshift, rshift_ = _shift(np.right_shift, "rshift")

METHODS = {
    "fmod": fmod, "fmod_": fmod_, "atan2": atan2, "atan2_": atan2_, "arctan2": atan2, "arctan2_": atan2_,
    "hypot": hypot, "hypot_": hypot_, "fmax": fmax, "fmin": fmin, "copysign": copysign, "copysign_": copysign_,
    "addcmul": addcmul, "addcmul_": addcmul_, "addcdiv": addcdiv,
    "addcdiv_": addcdiv_, "lerp": lerp, "lerp_": lerp_,
    "lt_": _compare_(np.less, "Lt"), "le_": _compare_(np.less_equal, "Le"), "gt_": _compare_(np.greater, "Gt"),
    "ge_": _compare_(np.greater_equal, "Ge"), "eq_": _compare_(np.equal, "Eq"), "ne_": _compare_(np.not_equal, "Ne"),
    "logical_and": _logical(np.logical_and), "logical_or": _logical(np.logical_or),
    "logical_xor": _logical(np.logical_xor), "logical_and_": _logical_(np.logical_and),
    "logical_or_": _logical_(np.logical_or), "logical_xor_": _logical_(np.logical_xor),
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
