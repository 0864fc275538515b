"""In-place forms generated from their out-of-place ops, so that `op_` cannot drift from `op`.

- Pointwise ops (`Form`, `generate`): add_, sub_, mul_, div_, pow_, remainder_, floor_divide_, the
  bitwise ops and, through engine/ops/elementwise.py's specs, fmod_, atan2_, hypot_, copysign_, lerp_,
  addcmul_, addcdiv_, the comparisons (eq_, lt_...), logical_*_ and the shifts. A Form is what the
  out-of-place op knows (the node it records for these operands, its result dtype and argument
  checks, its numpy kernel); `generate` adds the in-place protocol once: autograd's check_inplace,
  TensorIterator's checks in its order (the written tensor's internal overlap, partial overlap
  with an operand, broadcast into self's shape, "result type X can't be cast to the desired output
  type Y"), the write, one version bump, and the out-of-place op's node class whose saved fields the
  derivative table names (a copy of `self` from before the write where a formula reads it, `result`
  after it, the operands it reads).
- Ops the engine had only out of place (addmm_, cumsum_, tril_, triu_): the out-of-place value
  computed without grad, written into self, the same node and fields recorded (`_write_result`).

clamp_, clamp_min_ and clamp_max_ with tensor bounds are generated too (ClampBackward0, ClampMinBackward1...).

Hand-written still: the unary family (pointwise.unary_, generated from the UNARY table), clamp_ and
its min/max forms with number bounds (torch checks the cast before the overlap there and names the
dtype the C++ way: "can't be cast to the desired output type long int"), the activations' in-place forms (their nodes differ from the out-of-place ones: LeakyReluBackward1,
ThresholdBackward1), fill_/zero_/copy_ and the random fills.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import dtypes
from engine.autograd import grad_mode
from engine.autograd.node import node_type
from engine.kernels.fma import fma32
from engine.ops import linalg, pointwise, reduction
from engine.ops.core import (
    apply_inplace,
    array_of,
    bump_written,
    check_inplace_allowed,
    check_no_partial_overlap,
    check_writable,
    result_type,
)
from engine.quiet import quietly
from engine.tensor import Tensor

Operand = Any  # a Tensor or a Python number


def _no_values(*operands: Operand, **options: Any) -> None:
    return None


@dataclass(frozen=True)
class Form:
    """What `op_` takes from `op`: the node `op` records for these operands (a name, or a function of
    the operands and options: RemainderBackward0 for a number, RemainderBackward1 for a tensor), the
    dtype it computes in (a function that also makes `op`'s argument checks), the numpy kernel that
    writes `self op operands` into self's array (operands as arrays of that dtype, numbers as they
    are), and the node's non-tensor fields."""

    node: str | Callable[..., str]
    dtype: Callable[..., dtypes.dtype]
    kernel: Callable[..., None]
    values: Callable[..., dict[str, Any] | None] = _no_values
    cast_check: bool = True  # False: the value is written in self's dtype whatever the operands (eq_, lt_)
    number_edges: bool = True  # False: a Python number operand is no input of the node (floor_divide_.Scalar)
    operands: int = 1  # how many operands follow self
    opmath: bool = False  # float16/bfloat16 take a CPU scalar operand as a float (pointwise.opmath_scalar)


class _Plan:
    """A node's in-place recording, read off its derivative-table rule once: how many operands get an
    edge (a trailing number the rule has no input for gets none), which it saves and under which field,
    and whether it keeps self from before the write or after it."""

    __slots__ = ("edges", "saved", "self_copy", "result")

    def __init__(self, name: str) -> None:
        rule = node_type(name).formula if name else None
        inputs = rule.inputs[1:] if rule is not None else ()
        saves = rule.saves if rule is not None else ()
        self.edges = len(inputs) if rule is not None else None
        self.saved = tuple((i, field) for i, field in enumerate(inputs) if field in saves)
        self.self_copy = "self" if "self" in saves else None
        self.result = "result" if "result" in saves else None


_PLANS: dict[str, _Plan] = {}


def _plan(name: str) -> _Plan:
    plan = _PLANS.get(name)
    if plan is None:
        plan = _PLANS[name] = _Plan(name)
    return plan


def generate(form: Form, name: str) -> Callable[..., Tensor]:
    """`self.name(*operands, **options)`, the in-place form of `form`'s op (see the module docstring)."""
    node, dtype_of, kernel, values_of, cast_check = form.node, form.dtype, form.kernel, form.values, form.cast_check
    number_edges = form.number_edges
    opmath = form.opmath

    plain_dtype = dtype_of is _binary_dtype  # the usual rule: result_type, without a call through the form
    named = node if isinstance(node, str) else None
    valued = values_of is not _no_values

    def op_(self: Tensor, other: Operand, **options: Any) -> Tensor:  # one operand: add_, mul_, lt_... (hot)
        tracked = grad_mode.state.enabled and (  # self or other requires grad (self's read off its fields)
            self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad) or
            (isinstance(other, Tensor) and other.requires_grad))
        if tracked:  # check_inplace_allowed acts only then
            check_inplace_allowed(self, other)
        dt = result_type(self, other) if plain_dtype else dtype_of(self, other, **options)
        if isinstance(other, Tensor):  # TensorIterator checks memory overlap before shapes and dtypes
            check_no_partial_overlap(self, other)
            check_writable(self, dt if cast_check else None, (other._shape,))
            other_ = array_of(other, dt) if not (opmath and not other._shape) else \
                pointwise.inplace_number(other, dt, self.dtype, opmath)
            tensor = True
        else:
            check_writable(self, dt if cast_check else None)
            other_ = other if dt is dtypes.float32 or dt is dtypes.float64 else \
                pointwise.inplace_number(other, dt, self.dtype, opmath)
            tensor = False
        if not tracked and not options:  # no node: apply_inplace's write and bump, without its autograd steps
            if self._bits:
                quietly(self._write, lambda target: kernel(target, dt, other_))
            else:
                quietly(kernel, self._raw_view(), dt, other_)
            bump_written(self)
            return self
        name_ = named if named is not None else node(other, **options)
        plan = _PLANS.get(name_) or _plan(name_)  # read off the table on first use: it is installed after the ops
        if options:
            def write(target: np.ndarray) -> None:
                kernel(target, dt, other_, **options)
        else:
            def write(target: np.ndarray) -> None:
                kernel(target, dt, other_)
        return apply_inplace(self, write, name_, (other,) if plan.edges != 0 and (tensor or number_edges) else (),
                             save={plan.saved[0][1]: other} if plan.saved else None, save_self_copy=plan.self_copy,
                             save_result=plan.result, check_autograd=False,
                             values=values_of(other, **options) if valued else None, check_overlap=False)

    def op_n(self: Tensor, *operands: Operand, **options: Any) -> Tensor:  # several: addcmul_, lerp_, clamp_
        check_inplace_allowed(self, *operands)
        dt = dtype_of(self, *operands, **options)
        for other in operands:
            if isinstance(other, Tensor):
                check_no_partial_overlap(self, other)
        check_writable(self, dt if cast_check else None,
                       [o._shape if isinstance(o, Tensor) else () for o in operands])
        arrays = [array_of(o, dt) if isinstance(o, Tensor) else o for o in operands]
        name_ = named if named is not None else node(*operands, **options)
        plan = _plan(name_)
        inputs = operands if plan.edges is None else operands[:plan.edges]
        if not number_edges:
            inputs = tuple(o for o in inputs if isinstance(o, Tensor))
        return apply_inplace(self, lambda target: kernel(target, dt, *arrays, **options), name_, inputs,
                             save={field: operands[i] for i, field in plan.saved if i < len(operands)} or None,
                             save_self_copy=plan.self_copy, save_result=plan.result, check_autograd=False,
                             values=values_of(*operands, **options), check_overlap=False)

    generated = op_ if form.operands == 1 else op_n
    generated.__name__ = generated.__qualname__ = name
    return generated


# --------------------------------------------------------------------------- the pointwise ops' forms
def _ufunc_kernel(ufunc: np.ufunc, warns: bool = False) -> Callable[..., None]:
    """self = ufunc(self, other) in place, cast into self's dtype (torch's kernels never warn)."""
    def kernel(target: np.ndarray, dt: dtypes.dtype, other: Any) -> None:
        ufunc(target, other, out=target, casting="unsafe")

    def quiet_kernel(target: np.ndarray, dt: dtypes.dtype, other: Any) -> None:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ufunc(target, other, out=target, casting="unsafe")
    return quiet_kernel if warns else kernel


def _scaled(ufunc: np.ufunc) -> Callable[..., None]:
    """add_/sub_: self = self ufunc alpha * other; in float32 one fmadd(±alpha, other, self), as ATen."""
    subtract = ufunc is np.subtract

    def kernel(target: np.ndarray, dt: dtypes.dtype, other: Any, *, alpha: Any = 1) -> None:
        if alpha != 1:  # alpha_check, once the dtypes are known
            pointwise.check_alpha(alpha, dt, negated=subtract)
        if alpha != 1 and target.dtype == np.float32 and getattr(other, "dtype", np.float32) == np.float32 \
                and not isinstance(alpha, complex):
            scale = (pointwise._negated(alpha) if pointwise._int_alpha(alpha) else -alpha) if subtract else alpha
            np.copyto(target, fma32(np.float32(scale), other, target))
            return
        ufunc(target, other * alpha if alpha != 1 else other, out=target, casting="unsafe")
    return kernel


def _integer_division(ufunc: np.ufunc, name: str) -> Callable[..., None]:
    """remainder_/floor_divide_: an integer divisor of zero is an error (pointwise.check_integer_divisor)."""
    inner = _ufunc_kernel(ufunc, warns=True)

    def kernel(target: np.ndarray, dt: dtypes.dtype, other: Any) -> None:
        # the kernel checks each divisor it divides by: none when nothing is written
        pointwise.check_integer_divisor(other, dt, name, writes=bool(target.size))
        inner(target, dt, other)
    return kernel


def _div_kernel(target: np.ndarray, dt: dtypes.dtype, other: Any, *, rounding_mode: Any = pointwise.NO_MODE) -> None:
    if rounding_mode is not pointwise.NO_MODE and rounding_mode is not None:
        pointwise.check_integer_divisor(other, dt, f"div_{rounding_mode}", writes=bool(target.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        if rounding_mode == "floor":
            np.floor_divide(target, other, out=target, casting="unsafe")
        elif rounding_mode == "trunc":
            target[...] = np.trunc(target / other)
        else:
            np.divide(target, other, out=target, casting="unsafe")


def _pow_kernel(target: np.ndarray, dt: dtypes.dtype, exponent: Any) -> None:
    """pow_ with a number is ATen's scalar kernel (-0.5 is rsqrt); with a tensor, numpy's power, quietly."""
    if isinstance(exponent, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            np.power(target, exponent, out=target, casting="unsafe")
    else:
        pointwise._power_scalar(target, exponent, out=target)


def _bitwise_kernel(ufunc: np.ufunc, kernel_name: str) -> Callable[..., None]:
    """Integer and bool only: in place torch finds a float operand at the kernel, after the cast check."""
    def kernel(target: np.ndarray, dt: dtypes.dtype, other: Any) -> None:
        if dt.is_floating_point:
            raise NotImplementedError(f"\"{kernel_name}_cpu\" not implemented for '{dt.short}'")
        ufunc(target, other, out=target, casting="unsafe")
    return kernel


def _binary_dtype(self: Tensor, other: Operand, **options: Any) -> dtypes.dtype:
    return result_type(self, other)


ADD = Form("AddBackward0", _binary_dtype, _scaled(np.add), lambda other, alpha=1: {"alpha": alpha})
SUB = Form("SubBackward0", lambda self, other, alpha=1: pointwise.sub_dtype(self, other), _scaled(np.subtract),
           lambda other, alpha=1: {"alpha": alpha})
MUL = Form("MulBackward0", _binary_dtype, _ufunc_kernel(np.multiply), opmath=True)
DIV = Form(lambda other, rounding_mode=pointwise.NO_MODE: "DivBackward0" if rounding_mode is pointwise.NO_MODE
           else "DivBackward2",
           lambda self, other, rounding_mode=pointwise.NO_MODE: pointwise.div_dtype(self, other, rounding_mode),
           _div_kernel,
           lambda other, rounding_mode=pointwise.NO_MODE: None if rounding_mode is pointwise.NO_MODE
           else {"rounding_mode": rounding_mode}, opmath=True)
POW = Form(lambda exponent: "PowBackward1" if isinstance(exponent, Tensor) else "PowBackward0", _binary_dtype,
           _pow_kernel,
           lambda exponent: None if isinstance(exponent, Tensor) else {"exponent": exponent})
REMAINDER = Form(lambda other: "RemainderBackward1" if isinstance(other, Tensor) else "RemainderBackward0",
                 _binary_dtype, _integer_division(pointwise.remainder_into, "remainder"))
FLOOR_DIVIDE = Form("NotImplemented", _binary_dtype, _integer_division(np.floor_divide, "div_floor"),
                    lambda other: {"_op": "floor_divide"}, number_edges=False)

add_, sub_, mul_, div_ = generate(ADD, "add_"), generate(SUB, "sub_"), generate(MUL, "mul_"), generate(DIV, "div_")
pow_, remainder_ = generate(POW, "pow_"), generate(REMAINDER, "remainder_")
floor_divide_ = generate(FLOOR_DIVIDE, "floor_divide_")
bitwise_and_, bitwise_or_, bitwise_xor_ = (
    generate(Form("", _binary_dtype, _bitwise_kernel(ufunc, f"bitwise_{op}")), f"bitwise_{op}_")
    for op, ufunc in (("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)))

def _clip_kernel(target: np.ndarray, dt: dtypes.dtype, low: Any, high: Any = None) -> None:
    pointwise._clip(target, low, high, out=target)


_CLAMP_TENSORS = generate(Form("ClampBackward0", pointwise.clamp_tensor_dtype, _clip_kernel, operands=2), "clamp_")
_CLAMP_MIN_TENSOR = generate(Form("ClampMinBackward1", _binary_dtype, lambda t, dt, low: _clip_kernel(t, dt, low)),
                             "clamp_min_")
_CLAMP_MAX_TENSOR = generate(Form("ClampMaxBackward1", _binary_dtype, lambda t, dt, high: _clip_kernel(t, dt, None, high)),
                             "clamp_max_")


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - torch's names
    """Tensor bounds: generated from clamp.Tensor (ClampBackward0, the bounds its inputs). Number bounds:
    pointwise.clamp_scalars_, where torch checks the cast first and names the dtype the C++ way."""
    if pointwise.clamp_bounds_check("clamp_", self, min, max):
        return _CLAMP_TENSORS(self, min, max)
    return pointwise.clamp_scalars_(self, min, max)


def clamp_min_(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    return _CLAMP_MIN_TENSOR(self, min) if isinstance(min, Tensor) else pointwise.clamp_min_(self, min)


def clamp_max_(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    return _CLAMP_MAX_TENSOR(self, max) if isinstance(max, Tensor) else pointwise.clamp_max_(self, max)


BINARY_METHODS: dict[str, Callable[..., Tensor]] = {
    "add_": add_, "sub_": sub_, "subtract_": sub_, "mul_": mul_, "multiply_": mul_, "div_": div_, "divide_": div_,
    "true_divide_": div_, "pow_": pow_, "remainder_": remainder_, "floor_divide_": floor_divide_,
    "bitwise_and_": bitwise_and_, "bitwise_or_": bitwise_or_, "bitwise_xor_": bitwise_xor_,
    "clamp_": clamp_, "clip_": clamp_, "clamp_min_": clamp_min_, "clamp_max_": clamp_max_,
}


def _write_result(self: Tensor, compute: Callable[[], Tensor], name: str, inputs: tuple[Any, ...] = (),
                  save: dict[str, Any] | None = None, values: dict[str, Any] | None = None) -> Tensor:
    check_inplace_allowed(self)
    with grad_mode.no_grad():
        result = compute()
    check_writable(self, result.dtype)
    value = result._numpy_view()

    def write(target: np.ndarray) -> None:
        target[...] = value

    return apply_inplace(self, write, name, inputs, save=save, check_autograd=False, values=values)


def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    wanted = (mat1._shape[0], mat2._shape[-1])
    if self._shape != wanted:
        raise RuntimeError(f"Bad in-place call: input tensor size [{', '.join(map(str, self._shape))}] and output "
                           f"tensor size [{', '.join(map(str, wanted))}] should match")
    return _write_result(self, lambda: linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha), "AddmmBackward0",
                         (mat1, mat2), save={"mat1": mat1, "mat2": mat2},
                         values={"alpha": alpha, "beta": beta, **linalg._layouts(mat1=mat1, mat2=mat2)})


def cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    if (dtype or self.dtype) is dtypes.bool_ and self.ndim:  # the kernel (a 0-dim self is only copied) has no bool
        raise NotImplementedError("\"cumsum_out_cpu\" not implemented for 'Bool'")
    return _write_result(self, lambda: reduction.cumsum(self, dim, dtype=dtype or self.dtype), "CumsumBackward0",
                         values={"dim": reduction.saved_dims(dim), "_self_dtype": self.dtype})


def _triangle_(name: str, op: Callable[[Tensor, int], Tensor]) -> Callable[..., Tensor]:
    def inplace(self: Tensor, diagonal: int = 0) -> Tensor:
        return _write_result(self, lambda: op(self, diagonal), name, values={"diagonal": diagonal})
    return inplace


def _triangles() -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    from engine.ops import indexing

    return _triangle_("TrilBackward0", indexing.tril), _triangle_("TriuBackward0", indexing.triu)


tril_, triu_ = _triangles()

METHODS: dict[str, Callable[..., Any]] = {"addmm_": addmm_, "cumsum_": cumsum_, "tril_": tril_, "triu_": triu_,
                                          **BINARY_METHODS}
FUNCTIONS: dict[str, Callable[..., Any]] = {"clamp_min_": clamp_min_, "clamp_max_": clamp_max_, "clamp_": clamp_,
                                            "clip_": clamp_}
