"""More elementwise ops: fmod, atan2, hypot, the fused addcmul / addcdiv / lerp, and comparisons and
logic written in place, each with its out= and in-place forms.

Each op is one Spec: its forward on numpy arrays, PyTorch's node name, the operands its backward
needs (saved as PyTorch saves them) and the backward itself. The same spec builds the out-of-place
op (a new tensor, or out=) and the in-place one (self's values before the write are what the
backward sees as `self`), so the two cannot drift apart.
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
    needs_grad,
    result_type,
    unbroadcast,
)
from engine.ops.pointwise import _finish, _shape_of, iterated, output_strides, write_out
from engine.tensor import Tensor

Operand = Tensor | float | int | bool
Grads = tuple[Any, ...]


@dataclass(frozen=True)
class Spec:
    op: str  # torch's name, as out= errors name it
    node: str  # the backward node
    forward: Callable[..., np.ndarray]  # arrays (self, *operands) in the computation dtype -> result
    backward: Callable[..., Grads]  # (grad, values by field, shapes) -> one grad per operand
    fields: tuple[str, ...]  # the operands' names: "self", "other", "tensor1", ...
    saves: Callable[[tuple[bool, ...]], set[str]]  # which fields are saved, given who needs a grad
    floating: bool = False  # an integer computation promotes to the default float dtype
    saves_result: bool = False
    cast_check: bool = True  # in place, the computation dtype must cast to self's
    values: dict[str, Any] | None = None  # the node's non-tensor fields, where the derivative table has it


def _in_table(spec: Spec) -> bool:
    """Whether the derivative table differentiates this node (then it gets the node's fields, not the
    spec's numpy backward)."""
    return node_type(spec.node).formula is not None


def _dtype(spec: Spec, operands: tuple[Operand, ...]) -> dtypes.dtype:
    dt = result_type(*operands)
    return dtypes.get_default_dtype() if spec.floating and not dt.is_floating_point else dt


def _apply(spec: Spec, operands: tuple[Operand, ...], out: Tensor | None) -> Tensor:
    dt = _dtype(spec, operands)
    geometry.broadcast_shapes(*(_shape_of(x) for x in operands))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        result = spec.forward(*(array_of(x, dt) for x in operands))
    wanted = tuple(isinstance(x, Tensor) and needs_grad(x) for x in operands)
    saved = {f: x for f, x in zip(spec.fields, operands) if f in spec.saves(wanted)} if any(wanted) else None
    shapes = tuple(_shape_of(x) for x in operands)
    if _in_table(spec):
        tensors = {f: x for f, x in zip(spec.fields, operands) if isinstance(x, Tensor)}
        return _finish(spec.node, spec.op, result, dt, operands, tensors, out=out, values=spec.values)
    return _finish(spec.node, spec.op, result, dt, operands, saved,
                   save_result="result" if spec.saves_result and any(wanted) else None, out=out,
                   backward=_backward(spec, shapes))


def _backward(spec: Spec, shapes: tuple[tuple[int, ...], ...]) -> Callable[..., Grads]:
    def backward(g: np.ndarray, s: dict[str, np.ndarray]) -> Grads:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            grads = spec.backward(g, s)
        return tuple(None if gr is None else unbroadcast(np.asarray(gr, g.dtype), shape)
                     for gr, shape in zip(grads, shapes))
    return backward


def _apply_(spec: Spec, self: Tensor, operands: tuple[Operand, ...]) -> Tensor:
    """self.op_(...): checks as any in-place write, then self's old values become the saved `self`."""
    check_inplace_allowed(self, *operands)
    everything = (self, *operands)
    dt = _dtype(spec, everything)
    check_writable(self, dt if spec.cast_check else None, tuple(_shape_of(x) for x in operands))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = spec.forward(*(array_of(x, dt) for x in everything))
    wanted = tuple(isinstance(x, Tensor) and needs_grad(x) for x in everything)
    fields = spec.saves(wanted) if any(wanted) else set()
    saved = {f: x for f, x in zip(spec.fields[1:], operands) if f in fields}
    tensors = tuple(x for x in operands if isinstance(x, Tensor))

    def write(target: np.ndarray) -> None:
        np.copyto(target, values, casting="unsafe")

    if _in_table(spec):
        return apply_inplace(self, write, spec.node, tensors, save={f: x for f, x in zip(spec.fields[1:], operands)
                                                                    if isinstance(x, Tensor)},
                             check_autograd=False, values=spec.values)
    shapes = tuple(_shape_of(x) for x in everything)
    full = _backward(spec, shapes)

    def backward(g: np.ndarray, s: dict[str, np.ndarray]) -> Grads:
        grads = full(g, s)
        return (grads[0], *(gr for gr, x in zip(grads[1:], operands) if isinstance(x, Tensor)))

    return apply_inplace(self, write, spec.node, tensors, backward, saved, check_autograd=False,
                         save_self_copy="self" if "self" in fields else None,
                         save_result="result" if spec.saves_result and any(wanted) else None)


def _atan2_grads(g: np.ndarray, s: dict[str, np.ndarray]) -> Grads:
    x, y = s["self"], s["other"]
    with np.errstate(divide="ignore"):
        reciprocal = 1 / (x * x + y * y)
    reciprocal = np.where(np.isinf(reciprocal), 0, reciprocal)  # torch's atan2_backward: no gradient at (0, 0)
    return (g * y * reciprocal, g * -x * reciprocal)


FMOD_SCALAR = Spec("fmod", "FmodBackward0", np.fmod, lambda g, s: (g, None), ("self", "other"), lambda w: set())
FMOD = Spec("fmod", "FmodBackward1", np.fmod, lambda g, s: (g, -g * np.trunc(s["self"] / s["other"]) if "self" in s else None),
            ("self", "other"), lambda w: {"self", "other"} if w[1] else set())
ATAN2 = Spec("atan2", "Atan2Backward0", np.arctan2, _atan2_grads, ("self", "other"), lambda w: {"self", "other"},
             floating=True)
HYPOT = Spec("hypot", "HypotBackward0", np.hypot, lambda g, s: (g * s["self"] / s["result"], g * s["other"] / s["result"]),
             ("self", "other"), lambda w: {"self", "other"}, saves_result=True)


def _addcmul_grads(value: Any) -> Callable[..., Grads]:
    return lambda g, s: (g, g * s["tensor2"] * value if "tensor2" in s else None,
                         g * s["tensor1"] * value if "tensor1" in s else None)


def _addcdiv_grads(value: Any) -> Callable[..., Grads]:
    return lambda g, s: (g, g * value / s["tensor2"] if "tensor2" in s else None,
                         -g * value * s["tensor1"] / (s["tensor2"] * s["tensor2"]) if "tensor1" in s else None)


def _addcmul(value: Any) -> Spec:
    return Spec("addcmul", "AddcmulBackward0", lambda a, t1, t2: a + value * t1 * t2, _addcmul_grads(value),
                ("self", "tensor1", "tensor2"),
                lambda w: ({"tensor2"} if w[1] else set()) | ({"tensor1"} if w[2] else set()), values={"value": value})


def _addcdiv(value: Any) -> Spec:
    return Spec("addcdiv", "AddcdivBackward0", lambda a, t1, t2: a + value * (t1 / t2), _addcdiv_grads(value),
                ("self", "tensor1", "tensor2"),
                lambda w: ({"tensor2"} if w[1] or w[2] else set()) | ({"tensor1"} if w[2] else set()), floating=True,
                values={"value": value})


def _lerp_values(a: np.ndarray, b: np.ndarray, w: Any) -> np.ndarray:
    """ATen's lerp: `self + w * (end - self)` where |w| < 0.5, else `end - (end - self) * (1 - w)`."""
    diff = b - a
    return np.where(np.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))


def _lerp(weight: Operand) -> Spec:
    if isinstance(weight, Tensor):
        return Spec("lerp", "LerpBackward1", _lerp_values,
                    lambda g, s: (g * (1 - s["weight"]), g * s["weight"],
                                  g * (s["end"] - s["self"]) if "end" in s else None),
                    ("self", "end", "weight"), lambda w: {"weight"} | ({"self", "end"} if w[2] else set()))
    return Spec("lerp", "LerpBackward0", lambda a, b: _lerp_values(a, b, weight),
                lambda g, s: (g * (1 - weight), g * weight), ("self", "end"), lambda w: set(), values={"weight": weight})


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
        spec = Spec(node.lower(), name, lambda a, b: ufunc(a, b).astype(a.dtype),
                    lambda g, s: (np.zeros_like(g), np.zeros_like(g) if isinstance(other, Tensor) else None),
                    ("self", "other"), lambda w: set(), cast_check=False)
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

    spec = Spec(kernel, "", lambda a, b: ufunc(a, b), lambda g, s: (None, None), ("self", "other"),
                lambda w: set())

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
    "hypot": hypot, "hypot_": hypot_, "addcmul": addcmul, "addcmul_": addcmul_, "addcdiv": addcdiv,
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
FUNCTIONS = {name: METHODS[name] for name in ("fmod", "atan2", "arctan2", "hypot", "addcmul", "addcdiv", "lerp",
                                              "logical_and", "logical_or", "logical_xor", "bitwise_left_shift",
                                              "bitwise_right_shift")}
