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
from engine.autograd import grad_mode
from engine.kernels.fma import fma32
from engine.kernels.gelu_erf import gelu_erf
from engine.kernels.relu import relu as relu_kernel
from engine.kernels.sigmoid import sigmoid_float32, sigmoid_reduced
from engine.ops.core import (
    adopt_recorded,
    apply_inplace,
    array_of,
    bump_written,
    check_inplace_allowed,
    check_internal_overlap,
    check_out_overlap,
    check_writable,
    needs_grad,
    record,
    result_type,
    wrap_result,
)
from engine.quiet import quiet_binary, quiet_unary, quietly
from engine.tensor import SMALL, Tensor

Operand = Tensor | float | int | bool


def _shape_of(x: Any) -> tuple[int, ...]:
    return x._shape if isinstance(x, Tensor) else ()


def _broadcast(*operands: Any) -> tuple[int, ...]:
    return geometry.broadcast_shapes(*(_shape_of(x) for x in operands))


def resize_out(out: Tensor, shape: tuple[int, ...], strides: tuple[int, ...] | None = None, warn_times: int = 1) -> None:
    """at::native::resize_output: a differently shaped out is resized (with torch's deprecation
    warning when it had elements) and laid out row-major, or with the op's `strides`."""
    if out._shape == shape:
        return
    if out.numel():
        message = errors.OUT_RESIZED.format(had=errors.shape_text(out._shape), want=errors.shape_text(shape))
        for _ in range(warn_times):
            warnings.warn(message, UserWarning, stacklevel=4)
    out._storage.grow_to((out._offset + math.prod(shape)) * out.dtype.itemsize)
    out._set_layout(shape, strides or geometry.contiguous_strides(shape), out._offset)


def write_out(out: Tensor, result: np.ndarray, op: str, inputs: tuple[Any, ...],
              overlap: tuple[Any, ...] | None = None, after_resize: Callable[[], None] | None = None,
              strides: tuple[int, ...] | None = None, iterator: bool = False, adds: bool = False) -> Tensor:
    """The `out=` contract, in TensorIterator's order: no autograd (out or an input requiring grad,
    with grad mode on, is an error), out may not overlap itself nor partly overlap an input
    (`overlap`, the inputs unless given), the result's dtype must cast to out's, then out is
    resized (with torch's warning when it had elements), written, and bumped once. Gathers check
    their sources only once out has its final size (`after_resize`), as their kernels do. A
    TensorIterator op (`iterator`) whose out has another dtype resizes out twice (its own result, then
    out), so torch warns twice. A sum's kernel (`adds`) zeroes out, then adds each element's total
    into it, so elements of an out that share memory (a stride-0 dim) add up there."""
    if needs_grad(*inputs, out):
        raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op=op))
    if after_resize is None:
        check_out_overlap(out, inputs if overlap is None else overlap)
    if iterator and out._shape != result.shape and any(x is out for x in inputs):  # read and written: not resized
        raise RuntimeError(f"output with shape {errors.shape_text(out._shape)} doesn't match the broadcast shape "
                           f"{errors.shape_text(result.shape)}")
    result_dtype = dtypes.from_numpy_dtype(result.dtype)
    if not dtypes.can_cast(result_dtype, out.dtype):
        raise RuntimeError(errors.CAST.format(src=result_dtype.short, dst=out.dtype.short))
    resize_out(out, result.shape, strides, 2 if iterator and result_dtype is not out.dtype else 1)
    if after_resize is not None:
        after_resize()
    with np.errstate(invalid="ignore", over="ignore"):
        if adds and geometry.has_internal_overlap(out._shape, out._stride):
            out._write(lambda target: _add_into_zeroed(target, result))
        else:
            out._write(lambda target: np.copyto(target, result, casting="unsafe"))
    bump_written(out)
    return out


def _add_into_zeroed(target: np.ndarray, result: np.ndarray) -> None:
    """target zeroed, then each element of result added in turn to its place (np.add.at adds one
    index at a time, so places that share memory accumulate)."""
    target[...] = 0
    np.add.at(target, np.indices(target.shape, sparse=True), result.astype(target.dtype, copy=False))


def output_strides(shape: tuple[int, ...], inputs: tuple[Any, ...],
                   layout: str | tuple[int, ...]) -> tuple[int, ...] | None:
    """The strides torch gives an op's new output: TensorIterator's rule from the tensor inputs
    ("iterator"), row-major ("contiguous"), a memory format ("channels_last", "channels_last_3d"),
    the first input's preserve_format ("preserve"), or strides given as they are; None keeps numpy's."""
    if isinstance(layout, tuple):
        return layout
    if layout == "iterator":
        if len(shape) < 2:
            return None
        operands = [(t._shape, t._stride) if isinstance(t, Tensor) else ((), ()) for t in inputs]
        if all(op[0] == shape and geometry.is_contiguous(*op) for op in operands):
            return geometry.contiguous_strides(shape)
        return geometry.iterator_strides(shape, operands)
    if layout == "contiguous":
        return geometry.contiguous_strides(shape)
    if layout in ("channels_last", "channels_last_3d"):
        return geometry.memory_format_strides(shape, layout)
    if layout == "preserve":
        first = inputs[0]
        return geometry.like_strides(first._shape, first._stride)
    return None


def wrap_strided(result: np.ndarray, dtype: dtypes.dtype, strides: tuple[int, ...] | None) -> Tensor:
    """A new tensor holding `result` laid out with `strides` (numpy's own layout when None)."""
    if strides is None or result.ndim < 2:
        return Tensor._wrap(result, dtype)
    if strides == geometry.contiguous_strides(result.shape) and result.flags.c_contiguous:
        return Tensor._wrap(result, dtype)  # adopted without a copy
    tensor = Tensor._empty_strided(result.shape, strides, dtype)
    np.copyto(tensor._raw_view(), result)
    return tensor


def iterated(result: np.ndarray, dtype: dtypes.dtype, inputs: tuple[Any, ...]) -> Tensor:
    """A TensorIterator op's new output (no autograd): laid out by output_strides' "iterator" rule."""
    return wrap_strided(result, dtype, output_strides(result.shape, inputs, "iterator"))


def _finish(name: str, op: str, result: Any, dtype: dtypes.dtype, inputs: tuple[Any, ...],
            save: dict[str, Any] | None = None, save_result: str | None = None, out: Tensor | None = None,
            values: dict[str, Any] | None = None, after_resize: Callable[[], None] | None = None,
            layout: str | tuple[int, ...] = "iterator", backward: Any = None,
            operands: tuple[Any, ...] | None = None) -> Tensor:
    """Wrap a numpy result as a new tensor, laid out as torch lays it out (`layout`, see
    output_strides), and record it (`backward`: a numpy closure, for a node the derivative table
    does not have yet); or honour `out=`. `operands` are the kernel's inputs where they are more
    than the differentiable `inputs` (where's condition): they decide the layout and overlap."""
    result = np.asarray(result)
    if result.dtype != dtype.np:  # a value beyond dtype's range is inf, silently as in torch
        result = quietly(result.astype, dtype.np, copy=False)
    operands = inputs if operands is None else operands
    strides = output_strides(result.shape, operands, layout)
    if out is not None:
        return write_out(out, result, op, operands, after_resize=after_resize, strides=strides,
                         iterator=layout == "iterator")
    if strides is None or result.ndim < 2 or (
            result.flags.c_contiguous and strides == geometry.contiguous_strides(result.shape)):
        return wrap_result(name, result, dtype, inputs, save, values, save_result, backward=backward)
    tensor = wrap_strided(result, dtype, strides)
    record(name, tensor, inputs, backward, save, {save_result: tensor} if save_result else None, values)
    return tensor


_UNRESERVED = SMALL  # results of up to this many elements skip the budget check


def _reserve(shape: tuple[int, ...], dtype: dtypes.dtype) -> None:
    """Refuse a result past the memory budget before numpy tries to allocate it."""
    count = math.prod(shape)
    if count > _UNRESERVED:
        allocation.allocator.check(count * dtype.itemsize)


def _alike(self: Any, other: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The numpy values of two plain row-major tensors of one dtype and one shape, small enough to
    skip the budget check: the common case of a binary op, which needs no promotion, no broadcast
    check, no reservation, and gives a row-major result (TensorIterator's layout for such inputs).
    None sends the op down its general path."""
    if type(self) is Tensor and type(other) is Tensor and self.dtype is other.dtype and \
            self._shape == other._shape:
        a = self._numpy_view()
        if a.size <= _UNRESERVED and a.flags.c_contiguous:
            b = other._numpy_view()
            if b.flags.c_contiguous:
                return a, b
    return None


def _alike_op(ufunc: np.ufunc, self: Any, other: Any) -> Tensor | np.ndarray | None:
    """`self ufunc other` for the commonest binary op: two small tensors of one dtype and one
    dimensioned shape, C-contiguous, their numpy views cached (every op's result has one). _alike's
    case, decided from the cache's fields without asking numpy, and computed here: the new tensor
    when no node is recorded (adopted as _untracked does), the numpy result when one is (the caller
    records it), None for any other operands (the op's other paths)."""
    if type(self) is not Tensor or type(other) is not Tensor or self.dtype is not other.dtype or \
            self._shape != other._shape or not self._shape:
        return None
    cache, other_cache = self._np_cache, other._np_cache
    if cache is None or other_cache is None or cache[2] is None or other_cache[2] is None or \
            cache[0] is not self._storage.data or other_cache[0] is not other._storage.data or \
            self._bits or other._bits:
        return None
    result = quiet_binary(ufunc, cache[1], other_cache[1])
    if grad_mode.state.enabled and (
            self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad) or
            other._requires_grad or other._fn is not None or (other._view is not None and other.requires_grad)):
        return result
    return Tensor._adopt(result, self.dtype, cache[2])


def _untracked(result: Any, self: Tensor, other: Any) -> Tensor | None:
    """A short path's result (see _alike, _with_number, _with_one_value: a fresh row-major array of
    self's dtype, or the numpy scalar of 0-dim operands) as a new tensor when no node is recorded:
    grad mode off, or no operand requires grad. It is adopted straight away, without
    wrap_result's general steps, which cost more than the arithmetic. None when a node is to be
    recorded, or for a numpy scalar: the caller's wrap_result then takes it."""
    if grad_mode.state.enabled and (
            self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad) or
            (type(other) is Tensor and (other._requires_grad or other._fn is not None or
                                        (other._view is not None and other.requires_grad)))):
        return None
    return Tensor._adopt(result, self.dtype) if type(result) is np.ndarray else None


_HALF_MAX = 65504.0  # no number within this overflows a floating dtype


_REDUCED = (dtypes.float16, dtypes.bfloat16)


def _opmath_scalar(other: Operand) -> np.float32 | None:
    """A CPU scalar operand (a Python number, a 0-dim tensor) as ATen's float16/bfloat16 mul and div
    kernels take it: its own value as a float (x * 0.3 multiplies by 0.3f, not by float16's 0.2998).
    None for any other operand."""
    if type(other) in (int, float):
        return quietly(np.float32, other)
    if isinstance(other, Tensor) and not other._shape and not other.dtype.is_complex:
        return quietly(np.float32, other._numpy_view()[()])
    return None


def inplace_number(other: Operand, dt: dtypes.dtype, self_dtype: dtypes.dtype, opmath: bool) -> Any:
    """A CPU scalar operand of an in-place op as its kernel takes it: a float for float16/bfloat16
    mul_ and div_ (`opmath`, see _operands); an int wrapped into an integer dtype (int8's add_(300)
    adds 44); a number in bfloat16 for bfloat16 (numpy would lift it to float32); else as it is."""
    if opmath and dt in _REDUCED and self_dtype is dt:
        scalar = _opmath_scalar(other)
        if scalar is not None:
            return scalar
    if isinstance(other, Tensor):
        return array_of(other, dt)
    if (type(other) is int and not dt.is_floating_point) or (dt is dtypes.bfloat16 and type(other) in (int, float)):
        return quietly(array_of, other, dt)
    return other


def _operands(self: Operand, other: Operand, dt: dtypes.dtype) -> tuple[Any, Any]:
    """Both operands' numpy values in dt, for mul and div; a float16/bfloat16 tensor with a CPU
    scalar computes in float32 instead (rounded once into dt), as ATen's kernels do (add and sub
    take the scalar in dt, as the engine does)."""
    if dt in _REDUCED and isinstance(self, Tensor) and self.dtype is dt:
        scalar = _opmath_scalar(other)
        if scalar is not None:
            return array_of(self, dtypes.float32), scalar
    return array_of(self, dt), array_of(other, dt)



def _with_number(self: Any, other: Any, opmath: bool = False) -> tuple[np.ndarray, Any] | None:
    """The numpy values of a plain floating-point tensor and of a Python number in its dtype, for
    `x + 1`, `x * 0.5`: a number never lifts a float tensor's dtype, needs no broadcast check, and
    small enough the result skips the budget check. TensorIterator lays the result out as x's
    strides order it (a 0-dim operand never decides), so this takes x only when it is exactly
    row-major (or 1-D): torch's `x.t() + 1` of an (n, 1) x keeps x's strides, not row-major ones.
    None sends the op down its general path (`opmath`: for mul and div, float16 takes it)."""
    if type(self) is Tensor and (type(other) is float or type(other) is int) and self.dtype.is_floating_point \
            and not (opmath and self.dtype in _REDUCED):  # float16/bfloat16 mul and div: see _operands
        x = self._numpy_view()
        if x.size <= _UNRESERVED and (x.ndim < 2 or x.size and self._stride == geometry.row_major_strides(self._shape)):
            # a number beyond the dtype's range is inf, silently as in torch
            if -_HALF_MAX <= other <= _HALF_MAX:
                return x, self.dtype.np.type(other)
            dtypes.check_scalar_int(other)
            return x, quietly(self.dtype.np.type, other)
    return None


_NUMPY_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)  # bfloat16 is ml_dtypes': numpy may lift its numbers


def _scalar_op(ufunc: np.ufunc, self: Any, other: Any, opmath: bool = False,
               reverse: bool = False) -> Tensor | np.ndarray | None:
    """`self ufunc other` (`other ufunc self` when `reverse`) for a small floating tensor of at least
    one dim, exactly row-major, its numpy view cached, and a Python int or float, or a 0-dim tensor
    of its dtype: _with_number's and _with_one_value's cases, decided from the cache's fields and
    computed here. The number is taken in self's dtype (a number never lifts a float tensor's dtype):
    numpy's own float dtypes take a Python number within float16's range as if converted first, so it
    is passed as it is; beyond the dtype's range it is inf, silently as in torch. Returns what
    _alike_op returns: the new tensor when no node is recorded, the numpy result when one is, None
    for any other operands (`opmath`: mul and div, which take float16/bfloat16 elsewhere). An
    integer tensor with an int: _integer_op."""
    kind = type(other)
    if type(self) is not Tensor or (kind is Tensor and other._shape):  # a dimensioned operand: _broadcast_op's
        return None
    if not self.dtype.is_floating_point:
        return _integer_op(ufunc, self, other, reverse) if kind is int else None
    if opmath and self.dtype in _REDUCED:
        return None
    cache = self._np_cache
    if cache is None or cache[2] is None or cache[0] is not self._storage.data or self._bits or \
            not self._shape or self._stride != cache[2] or not cache[1].size:
        return None
    if kind is float or kind is int:
        if -_HALF_MAX <= other <= _HALF_MAX:  # numpy's own dtypes take such a number as they would in their type
            value = other if self.dtype in _NUMPY_FLOATS else self.dtype.np.type(other)
        else:
            dtypes.check_scalar_int(other)
            value = quietly(self.dtype.np.type, other)
        tracked = grad_mode.state.enabled and (
            self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad))
    elif kind is Tensor and not other._shape and other.dtype is self.dtype and self.dtype not in _REDUCED and \
            not other._bits and min(self._shape) > 1:  # _with_one_value's conditions for a 0-dim operand
        held = other._np_cache
        value = held[1] if held is not None and held[0] is other._storage.data else other._numpy_view()
        tracked = grad_mode.state.enabled and (
            self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad) or
            other._requires_grad or other._fn is not None or (other._view is not None and other.requires_grad))
    else:
        return None
    result = quiet_binary(ufunc, value, cache[1]) if reverse else quiet_binary(ufunc, cache[1], value)
    return result if tracked else Tensor._adopt(result, self.dtype, cache[2])


_INTEGER_RANGES = {dt: (int(np.iinfo(dt.np).min), int(np.iinfo(dt.np).max))
                   for dt in (dtypes.int64, dtypes.int32, dtypes.int16, dtypes.int8, dtypes.uint8)}
_WRAPPING = (np.add, np.subtract, np.multiply)  # integer ufuncs that wrap around as ATen's do


def _integer_op(ufunc: np.ufunc, self: Tensor, other: int, reverse: bool) -> Tensor | None:
    """_scalar_op's case for an integer tensor and a Python int within its dtype's range, for add,
    sub and mul: the int keeps the dtype (numpy takes it as ATen does, as if converted first), and
    the arithmetic wraps around in both. Integer results need no node (they cannot require grad)."""
    bounds = _INTEGER_RANGES.get(self.dtype)
    if bounds is None or ufunc not in _WRAPPING or not bounds[0] <= other <= bounds[1]:
        return None
    cache = self._np_cache
    if cache is None or cache[2] is None or cache[0] is not self._storage.data or self._bits or \
            not self._shape or self._stride != cache[2] or not cache[1].size:
        return None
    result = ufunc(other, cache[1]) if reverse else ufunc(cache[1], other)
    return Tensor._adopt(result, self.dtype, cache[2])


def _broadcast_op(ufunc: np.ufunc, self: Any, other: Any) -> Tensor | np.ndarray | None:
    """`self ufunc other` for a small exactly row-major tensor whose dims are all of size 2 or more
    (its strides order every pair of dims) and a dimensioned tensor of its dtype that broadcasts to
    its shape: `x + bias`. TensorIterator lays the result out by its first operand wherever that one
    orders the dims, so the result is row-major whatever other's layout. Returns what _alike_op
    returns; None for any other operands (0-dim operands: _scalar_op; float16/bfloat16 mul and div
    take those in float32)."""
    if type(self) is not Tensor or type(other) is not Tensor or self.dtype is not other.dtype or \
            not other._shape or other._bits:
        return None
    shape, cache = self._shape, self._np_cache
    if cache is None or cache[2] is None or cache[0] is not self._storage.data or self._bits or \
            self._stride != cache[2] or not shape or min(shape) < 2:
        return None
    lead = len(shape) - len(other._shape)
    if lead < 0:
        return None
    if other._shape != shape[lead:]:  # else a bias of self's trailing shape, the usual operand
        for d, n in enumerate(other._shape):
            if n != 1 and n != shape[lead + d]:
                return None
    held = other._np_cache  # its cached numpy view (other has no conj/neg bits), as _numpy_view reads it
    result = quiet_binary(ufunc, cache[1], held[1] if held is not None and held[0] is other._storage.data
                          else other._numpy_view())
    if not result.flags.c_contiguous:  # numpy may follow other's layout: the values laid out row-major
        result = np.ascontiguousarray(result)
    if grad_mode.state.enabled and (
            self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad) or
            other._requires_grad or other._fn is not None or (other._view is not None and other.requires_grad)):
        return result
    return Tensor._adopt(result, self.dtype, cache[2])


def _number_or_broadcast_op(ufunc: np.ufunc, self: Any, other: Any, opmath: bool = False) -> Tensor | np.ndarray | None:
    """A binary op's short paths after _alike_op's: a number or 0-dim operand, then a broadcast one."""
    done = _scalar_op(ufunc, self, other, opmath)
    return done if done is not None else _broadcast_op(ufunc, self, other)


def _one_value_operand(t: Tensor, shape: tuple[int, ...]) -> bool:
    """Whether `t` broadcasts to `shape` reading a single element (a 0-dim tensor, an expanded
    number such as sum's gradient, a (1, 1) tensor): every dim it has is of size 1 or stride 0."""
    lead = len(shape) - len(t._shape)
    if lead < 0:
        return False
    for d, (n, st) in enumerate(zip(t._shape, t._stride)):
        if n != 1 and (st or n != shape[lead + d]):
            return False
    return True


def _decides_row_major(t: Tensor) -> bool:
    """Whether TensorIterator lays out a result of `t`'s shape row-major when t is its only operand
    with strides that matter: t is row-major itself, or an expanded number (no dim decides)."""
    return t._stride == geometry.row_major_strides(t._shape) or not any(t._stride)


def _with_one_value(self: Any, other: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The numpy values of a plain row-major tensor and of a tensor of its dtype that broadcasts to
    its shape from one element (`grad * c` with a 0-dim c, an expanded gradient), either way round,
    small enough to skip the budget check. TensorIterator lays such a result out by the full
    operand alone (a broadcast dim never decides), so this takes it only when its strides order
    the dims strictly (no size-1 or size-0 dims) or it is itself an expanded number (nothing
    decides): the result is row-major, as numpy gives it.
    None sends the op down its general path."""
    if type(self) is not Tensor or type(other) is not Tensor or self.dtype is not other.dtype or \
            self.dtype in _REDUCED:  # float16/bfloat16 take a 0-dim operand as a float32 scalar (_operands)
        return None
    if _one_value_operand(other, self._shape) and _decides_row_major(self):
        shape = self._shape
    elif _one_value_operand(self, other._shape) and _decides_row_major(other):
        shape = other._shape
    else:
        return None
    if not shape:
        return None
    for n in shape:
        if n < 2:
            return None
    if math.prod(shape) > _UNRESERVED:
        return None
    return self._numpy_view(), other._numpy_view()


# --------------------------------------------------------------------------- binary arithmetic
_ALPHA_ONE = {"alpha": 1}  # the saved values of add's and sub's short paths, shared by their nodes (never written)


def add(self: Operand, other: Operand, *, alpha: float = 1, out: Tensor | None = None) -> Tensor:
    if alpha == 1 and out is None:
        done = _alike_op(np.add, self, other)
        if done is None:
            done = _number_or_broadcast_op(np.add, self, other)
        if done is not None:
            return done if type(done) is Tensor else \
                adopt_recorded("AddBackward0", done, self.dtype, (self, other), values=_ALPHA_ONE)
        alike = _alike(self, other) or _with_number(self, other) or _with_one_value(self, other)
        if alike is not None:
            a, b = alike  # unpacked here: a call with *alike is Python's slower call path
            result = quiet_binary(np.add, a, b)
            tensor = _untracked(result, self, other)
            return tensor if tensor is not None else \
                wrap_result("AddBackward0", result, self.dtype, (self, other), values={"alpha": 1})
    dtypes.check_scalar_int(alpha)
    dt = result_type(self, other)
    check_alpha(alpha, dt)
    sa, sb = _shape_of(self), _shape_of(other)
    _reserve(geometry.broadcast_shapes(sa, sb), dt)
    a, b = array_of(self, dt), array_of(other, dt)
    with np.errstate(invalid="ignore", over="ignore"):  # inf + -inf is nan, silently, as in torch
        result = a + (b * dt.np.type(alpha) if alpha != 1 else b) if alpha == 1 or dt is not dtypes.float32 \
            else fma32(np.float32(alpha), b, a)  # ATen's add with alpha: one fmadd in float32
    return _finish("AddBackward0", "add", result, dt, (self, other), out=out, values={"alpha": alpha})


def _int_alpha(alpha: Any) -> bool:
    """Whether sub takes alpha as ATen's -Scalar of an int (an int8's alpha of 128 is -128 there)."""
    return type(alpha) is int and alpha != 1


def _negated(alpha: int) -> int:
    """c10's -Scalar of an int alpha, through int64 as C++ computes it (2**64 - 1 negates to 1)."""
    wrapped = (alpha + 2 ** 63) % 2 ** 64 - 2 ** 63
    return (-wrapped + 2 ** 63) % 2 ** 64 - 2 ** 63


def check_alpha(alpha: Any, dt: dtypes.dtype, negated: bool = False) -> None:
    """ATen's alpha_check, then alpha taken in the op's dtype (checked_convert); sub and rsub take
    -alpha (`negated`: 2**64 - 1 is 1 there, and fits any dtype)."""
    if alpha == 1:
        return
    if type(alpha) is float and not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if negated:
        alpha = _negated(alpha) if type(alpha) is int else -alpha
    dtypes.check_fits(alpha, dt)


def _is_bool(x: Operand) -> bool:
    """Whether an operand is bool as ATen sees it: a bool tensor, or a Python bool (wrapped as one)."""
    return x.dtype is dtypes.bool_ if isinstance(x, Tensor) else type(x) is bool or isinstance(x, np.bool_)


def check_sub(self: Operand, other: Operand) -> None:
    """ATen's sub_check: subtraction refuses a bool operand, whatever the other one would promote
    it to (`mask - 1`, `1.5 - mask`, `x - mask`), with its own message for two bools."""
    dtypes.check_scalar_int(self)  # the argument parser's error comes first
    dtypes.check_scalar_int(other)
    self_bool, other_bool = _is_bool(self), _is_bool(other)
    if self_bool and other_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if self_bool or other_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def sub_dtype(self: Operand, other: Operand) -> dtypes.dtype:
    """sub's result dtype, refusing a bool operand as torch does (sub_ shares it)."""
    check_sub(self, other)
    return result_type(self, other)


def sub(self: Operand, other: Operand, *, alpha: float = 1, out: Tensor | None = None) -> Tensor:
    if alpha == 1 and out is None and isinstance(self, Tensor) and self.dtype is not dtypes.bool_:
        done = _alike_op(np.subtract, self, other)
        if done is None:
            done = _number_or_broadcast_op(np.subtract, self, other)
        if done is not None:
            return done if type(done) is Tensor else \
                adopt_recorded("SubBackward0", done, self.dtype, (self, other), values=_ALPHA_ONE)
    if alpha == 1 and out is None:
        alike = _alike(self, other) or _with_number(self, other) or _with_one_value(self, other)
        if alike is not None and self.dtype is not dtypes.bool_:
            a, b = alike
            result = quiet_binary(np.subtract, a, b)
            tensor = _untracked(result, self, other)
            return tensor if tensor is not None else \
                wrap_result("SubBackward0", result, self.dtype, (self, other), values={"alpha": 1})
    dtypes.check_scalar_int(alpha)
    dt = sub_dtype(self, other)
    check_alpha(alpha, dt, negated=True)
    _reserve(_broadcast(self, other), dt)
    a, b = array_of(self, dt), array_of(other, dt)
    with np.errstate(invalid="ignore", over="ignore"):
        result = a - (b * dt.np.type(alpha) if alpha != 1 else b) if not _int_alpha(alpha) else \
            a + b * dt.np.type(_negated(alpha))
        if alpha != 1 and dt is dtypes.float32:  # ATen's sub is add with -alpha: one fmadd in float32
            result = fma32(np.float32(_negated(alpha) if _int_alpha(alpha) else -alpha), b, a)
    return _finish("SubBackward0", "sub", result, dt, (self, other), out=out, values={"alpha": alpha})


def rsub(self: Tensor, other: Operand, alpha: float = 1) -> Tensor:
    """`2 - x` (RsubBackward1 for a scalar, RsubBackward0 for a tensor)."""
    if alpha == 1 and not isinstance(other, Tensor):
        done = _scalar_op(np.subtract, self, other, reverse=True)
        if done is not None:
            return done if type(done) is Tensor else wrap_result("RsubBackward1", done, self.dtype, (self,),
                                                                  values={"alpha": 1})
    dtypes.check_scalar_int(alpha)
    check_sub(other, self)
    dt = result_type(self, other)
    check_alpha(alpha, dt, negated=True)
    a, b = array_of(self, dt), array_of(other, dt)
    with np.errstate(invalid="ignore", over="ignore"):
        result = b - a * alpha if not _int_alpha(alpha) else b + a * dt.np.type(_negated(alpha))
    if isinstance(other, Tensor):
        return _finish("RsubBackward0", "rsub", result, dt, (self, other), values={"alpha": alpha})
    # the number is an operand of TensorIterator (so `1 - x` of a (1, n) x with strides (1, 1) keeps
    # them), not an input of the node
    tensor = wrap_strided(np.asarray(result), dt, output_strides(np.shape(result), (self, other), "iterator"))
    record("RsubBackward1", tensor, (self,), values={"alpha": alpha})
    return tensor


def mul(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
    """A Python number operand is a wrapped scalar: an edge-less input that mul still saves."""
    if out is None:
        done = _alike_op(np.multiply, self, other)
        if done is None:
            done = _number_or_broadcast_op(np.multiply, self, other, opmath=True)
        if done is not None:
            return done if type(done) is Tensor else \
                adopt_recorded("MulBackward0", done, self.dtype, (self, other), {"other": other, "self": self})
        alike = _alike(self, other) or _with_number(self, other, opmath=True) or _with_one_value(self, other)
        if alike is not None:
            a, b = alike
            result = quiet_binary(np.multiply, a, b)
            tensor = _untracked(result, self, other)
            return tensor if tensor is not None else \
                wrap_result("MulBackward0", result, self.dtype, (self, other), {"other": other, "self": self})
    if not isinstance(self, Tensor):
        self, other = other, self
    dt = result_type(self, other)
    _reserve(geometry.broadcast_shapes(_shape_of(self), _shape_of(other)), dt)
    a, b = _operands(self, other, dt)
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 is nan, silently, as in torch
        result = a * b
    return _finish("MulBackward0", "mul", result, dt, (self, other), {"other": other, "self": self}, out=out)


def _true_div_dtype(self: Operand, other: Operand) -> dtypes.dtype:
    dt = result_type(self, other)
    return dt if dt.is_floating_point or dt.is_complex else dtypes.get_default_dtype()


NO_MODE: Any = object()  # rounding_mode not given at all: torch's div.Tensor (DivBackward0)


def div_dtype(self: Operand, other: Operand, rounding_mode: Any = NO_MODE) -> dtypes.dtype:
    """A true division computes in a floating (or complex) dtype; a rounded one in the operands'."""
    return _true_div_dtype(self, other) if rounding_mode in (NO_MODE, None) else result_type(self, other)


def div(self: Operand, other: Operand, *, rounding_mode: str | None = NO_MODE, out: Tensor | None = None) -> Tensor:
    """`rounding_mode=None` given explicitly is torch's div.Tensor_mode: a true division recorded as
    DivBackward2 (which shows `_saved_rounding_mode`)."""
    if rounding_mode is not NO_MODE:
        return _rounded_div(self, other, rounding_mode, out)
    if out is None and isinstance(self, Tensor) and self.dtype.is_floating_point:  # true division keeps it
        done = _alike_op(np.true_divide, self, other)
        if done is None:
            done = _number_or_broadcast_op(np.true_divide, self, other, opmath=True)
        if done is not None:
            return done if type(done) is Tensor else \
                adopt_recorded("DivBackward0", done, self.dtype, (self, other), {"other": other, "self": self})
    if out is None:
        alike = _alike(self, other) or _with_number(self, other, opmath=True) or _with_one_value(self, other)
        if alike is not None and self.dtype.is_floating_point:  # true division keeps a float dtype
            a, b = alike
            result = quiet_binary(np.true_divide, a, b)
            tensor = _untracked(result, self, other)
            return tensor if tensor is not None else \
                wrap_result("DivBackward0", result, self.dtype, (self, other), {"other": other, "self": self})
    dt = _true_div_dtype(self, other)
    _reserve(_broadcast(self, other), dt)
    a, b = _operands(self, other, dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = a / b
    return _finish("DivBackward0", "div", result, dt, (self, other), {"other": other, "self": self}, out=out)


def _rounded_div(self: Operand, other: Operand, mode: str | None, out: Tensor | None) -> Tensor:
    dt = div_dtype(self, other, mode)
    _reserve(_broadcast(self, other), dt)
    a, b = array_of(self, dt), array_of(other, dt)
    if mode is not None:
        check_integer_divisor(b, dt, f"div_{mode}")
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode is None:
            result = a / b
        else:
            result = np.floor_divide(a, b) if mode == "floor" else np.trunc(a / b).astype(dt.np)
    return _finish("DivBackward2", "div", result, dt, (self, other), {"other": other, "self": self}, out=out,
                   values={"rounding_mode": mode})


def rdiv(self: Tensor, other: Operand) -> Tensor:
    """`2 / x` is `reciprocal(x) * 2`, as PyTorch records it."""
    return mul(unary("reciprocal", self), other)


def pow(self: Operand, exponent: Operand, *, out: Tensor | None = None) -> Tensor:  # noqa: A001
    if not isinstance(self, Tensor):
        return _scalar_pow(self, exponent)
    if out is None and not isinstance(exponent, Tensor) and exponent != -0.5 and exponent != 0.5 and \
            (self.dtype not in _REDUCED or _within_half(exponent)):  # -0.5: rsqrt, 0.5: sqrt, see _power_scalar
        done = _scalar_op(np.power, self, exponent)
        if done is not None:
            return done if type(done) is Tensor else \
                wrap_result("PowBackward0", done, self.dtype, (self,), {"self": self}, {"exponent": exponent})
    if type(exponent) is int and 2 ** 63 <= exponent < 2 ** 64 and not (self.dtype.is_floating_point or
                                                                    self.dtype.is_complex):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")  # a uint64 exponent
    dt = result_type(self, exponent)
    _reserve(_broadcast(self, exponent), dt)
    a = array_of(self, dt)
    if not isinstance(exponent, Tensor):
        e = exponent
        if not (dt.is_floating_point or dt.is_complex) and isinstance(e, int) and e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if dt is not dtypes.float32 and dt is not dtypes.float64:  # those take the exponent as a double
            dtypes.check_fits(e, dt)
        result = _power_scalar(a, quietly(dt.np.type, e) if dt.is_floating_point else int(e))
        return _finish("PowBackward0", "pow", result, dt, (self,), {"self": self}, out=out, values={"exponent": e})
    b = array_of(exponent, dt)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        result = np.power(a, b)
    return _finish("PowBackward1", "pow", result, dt, (self, exponent), {"exponent": exponent, "self": self},
                   save_result="result", out=out)


def _within_half(number: Any) -> bool:
    """Whether a Python number fits float16 (pow's exponent for a float16 tensor must)."""
    return type(number) in (int, float) and -_HALF_MAX <= number <= _HALF_MAX


def _sqrt_values(x: np.ndarray, out: np.ndarray | None = None, **kwargs: Any) -> np.ndarray:
    """sqrt as ATen's kernel (MKL's) gives it: a negative input (-inf too) gives +NaN, where the x86
    instruction numpy runs gives -NaN; a NaN input keeps its sign (measured)."""
    if x.dtype.kind != "f" or x.dtype.itemsize == 2:  # (float16 and bfloat16 go their own ways)
        return np.sqrt(x, out=out, **kwargs)
    negative = x < 0  # before an in-place sqrt overwrites x (float32/64 compare NaN quietly)
    result = np.sqrt(x, out=out, **kwargs)
    if np.count_nonzero(negative):  # (no ufunc set-up, unlike any())
        if out is None:
            return np.where(negative, np.abs(result), result)
        np.abs(out, out=out, where=negative)
    return result


def _power_scalar(a: np.ndarray, e: Any, out: np.ndarray | None = None) -> np.ndarray:
    """x ** e for a number e as ATen's kernel computes it: e == -0.5 is rsqrt (so -0. gives -inf and -inf
    NaN, where C's pow gives inf and 0); numpy already takes sqrt, square and reciprocal for 0.5, 2, -1."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if e == -0.5 and a.dtype.kind == "f":
            if out is None:  # (its NaN of a negative is the instruction's -NaN, as torch's: measured)
                return np.divide(a.dtype.type(1), np.sqrt(a))
            np.sqrt(a, out=out)
            return np.divide(a.dtype.type(1), out, out=out)
        if e == 0.5 and a.dtype.kind == "f" and (out is None or out.dtype == a.dtype):
            return _sqrt_values(a, out=out)
        return np.power(a, e, out=out, casting="unsafe") if out is not None else np.power(a, e)


def _scalar_pow(base: Operand, exponent: Tensor) -> Tensor:
    """`2 ** x`: PowBackward2, saving the exponent and the result."""
    dt = result_type(base, exponent)
    b = array_of(exponent, dt)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # 0 ** -1 is inf, silently
        result = np.power(array_of(base, dt), b)
    return _finish("PowBackward2", "pow", result, dt, (exponent,), {"exponent": exponent}, save_result="result",
                   values={"self": base})


def _minmax_binary(self: Tensor, other: Tensor, pick: Callable[..., np.ndarray], name: str,
                   out: Tensor | None = None) -> Tensor:
    dt = result_type(self, other)
    if dt.is_complex:
        raise RuntimeError(f"{name.lower()[:7]} not implemented for complex tensors.")
    a, b = array_of(self, dt), array_of(other, dt)
    return _finish(name, name.lower()[:7], pick(a, b), dt, (self, other), {"other": other, "self": self}, out=out)


def maximum(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _minmax_binary(self, other, np.maximum, "MaximumBackward0", out)


def minimum(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _minmax_binary(self, other, np.minimum, "MinimumBackward0", out)


def check_integer_divisor(divisor: Any, dt: dtypes.dtype, kernel: str, writes: bool = True) -> None:
    """A rounded division or remainder (`kernel`: ATen's name for it) has no complex or bool kernel,
    and an integer one by zero is an error (a float one is inf or nan) where it `writes` anything:
    the divisor is taken in dt, so `x // 2**40` of an int32 x divides by 0 too."""
    if dt.is_complex or dt is dtypes.bool_:
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{dt.short}'")
    if dt.is_floating_point or not writes:
        return
    if not np.all(divisor):
        raise RuntimeError("ZeroDivisionError")


def remainder_into(a: Any, b: Any, out: np.ndarray | None = None, casting: str = "same_kind") -> np.ndarray:
    """ATen's remainder: for floats fmod, then the divisor added where a nonzero result's sign differs
    from the divisor's (so a zero keeps the dividend's sign: -1.5 % 1.5 is -0.); for integers the
    floored modulo, numpy's."""
    if np.result_type(a, b).kind != "f":
        return np.mod(a, b, out=out, casting=casting)
    mod = np.fmod(a, b)
    result = np.where((mod != 0) & ((np.asarray(b) < 0) != (mod < 0)), mod + b, mod)
    if out is None:
        return result
    np.copyto(out, result, casting=casting)
    return out


def remainder(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
    dt = result_type(self, other)
    a, b = array_of(self, dt), array_of(other, dt)
    check_integer_divisor(b, dt, "remainder")
    with np.errstate(divide="ignore", invalid="ignore"):
        result = remainder_into(a, b)
    if isinstance(other, Tensor):
        return _finish("RemainderBackward1", "remainder", result, dt, (self, other), {"other": other, "self": self},
                       out=out)
    return _finish("RemainderBackward0", "remainder", result, dt, (self,), out=out)


def floor_divide(self: Operand, other: Operand) -> Tensor:
    """floor_divide has no derivative: its node is NotImplemented, whose backward raises."""
    dt = result_type(self, other)
    a, b = array_of(self, dt), array_of(other, dt)
    check_integer_divisor(b, dt, "div_floor")
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.floor_divide(a, b)
    return _finish("NotImplemented", "floor_divide", result, dt, tuple(x for x in (self, other) if isinstance(x, Tensor)),
                   values={"_op": "floor_divide"})


# --------------------------------------------------------------------------- unary ops
_CONSTANTS: dict[tuple[np.dtype, int], np.ndarray] = {}


def _constant(dtype: np.dtype, value: int) -> np.ndarray:
    """A cached 0-d array of `value` in `dtype`: numpy combines it with an array faster than a
    Python number, with the same result."""
    found = _CONSTANTS.get((dtype, value))
    if found is None:
        found = _CONSTANTS[dtype, value] = np.full((), value, dtype)
    return found


def _sign_values(x: np.ndarray, out: np.ndarray | None = None, **kwargs: Any) -> np.ndarray:
    """ATen's sign of real floats, (0 < x) - (x < 0): NaN and -0. give +0. (numpy's sign keeps them);
    numpy's sign for integers and complex numbers; a bool is its own sign."""
    if x.dtype.kind == "b":  # a bool's sign is itself
        if out is None:
            return np.copy(x)
        np.copyto(out, x)
        return out
    if x.dtype.kind in "iuc" or kwargs:
        return np.sign(x, out=out, **kwargs)
    with np.errstate(invalid="ignore"):  # bfloat16's comparison of NaN would warn
        result = (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)
    if out is None:
        return result
    np.copyto(out, result)
    return out


def _negative(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """np.negative, around a numpy 2.4 bug: from one strided array into another of the same strides (an
    in-place neg_ on a column, a row of a unbind) its loop reads the input as if it were contiguous. Such
    a pair goes through a fresh array instead."""
    if out is None or (x.flags.c_contiguous and out.flags.c_contiguous):
        return np.negative(x, out=out)
    np.copyto(out, np.negative(x))
    return out


def _sigmoid(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """1 / (1 + exp(-x)); exp may overflow to inf, whose reciprocal is the 0 torch gives (callers
    run it with numpy's warnings off)."""
    if out is None:
        out = np.empty_like(x)  # a 0-dim input would make numpy scalars below
    out = _negative(x, out=out)
    np.exp(out, out=out)
    np.add(out, _constant(out.dtype, 1), out=out)
    return np.reciprocal(out, out=out)


def _rsqrt(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    out = np.sqrt(x, out=out)
    return np.reciprocal(out, out=out)


def _reciprocal(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    return np.divide(_constant(x.dtype, 1), x, out=out)


def _erf(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    from engine.kernels.activation import erf

    result = erf(x).astype(x.dtype, copy=False)
    if out is None:
        return result
    out[...] = result
    return out


def _erfc(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    result = 1 - _erf(x)
    if out is None:
        return result
    out[...] = result
    return out


def _frac(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """x - trunc(x), computed as ATen does (so -1.5 gives -0.5)."""
    return np.subtract(x, np.trunc(x), out=out)


# name: (node, numpy forward (x, out=None), what the node saves); each node's derivative is in the table
# (engine/autograd/derivatives/pointwise.py)
UNARY: dict[str, tuple[str, Callable[..., np.ndarray], str]] = {
    "neg": ("NegBackward0", _negative, "none"),
    "exp": ("ExpBackward0", np.exp, "result"),
    "log": ("LogBackward0", np.log, "self"),
    "log2": ("Log2Backward0", np.log2, "self"),
    "log10": ("Log10Backward0", np.log10, "self"),
    "log1p": ("Log1PBackward0", np.log1p, "self"),
    "expm1": ("Expm1Backward0", np.expm1, "result"),
    "sqrt": ("SqrtBackward0", _sqrt_values, "result"),
    "rsqrt": ("RsqrtBackward0", _rsqrt, "result"),
    "abs": ("AbsBackward0", np.abs, "self"),
    "sin": ("SinBackward0", np.sin, "self"),
    "cos": ("CosBackward0", np.cos, "self"),
    "tan": ("TanBackward0", np.tan, "result"),
    "tanh": ("TanhBackward0", np.tanh, "result"),
    "sigmoid": ("SigmoidBackward0", _sigmoid, "result"),
    "relu": ("ReluBackward0", relu_kernel, "result"),
    "reciprocal": ("ReciprocalBackward0", _reciprocal, "result"),
    "square": ("PowBackward0", np.square, "self"),
    "sign": ("SignBackward0", _sign_values, "none"),
    "sgn": ("SgnBackward0", np.sign, "self, result"),
    "floor": ("FloorBackward0", np.floor, "none"),
    "ceil": ("CeilBackward0", np.ceil, "none"),
    "round": ("RoundBackward0", np.round, "none"),
    "trunc": ("TruncBackward0", np.trunc, "none"),
    "erf": ("ErfBackward0", _erf, "self"),
    "erfc": ("ErfcBackward0", _erfc, "self"),
    "asin": ("AsinBackward0", np.arcsin, "self"),
    "acos": ("AcosBackward0", np.arccos, "self"),
    "atan": ("AtanBackward0", np.arctan, "self"),
    "sinh": ("SinhBackward0", np.sinh, "self"),
    "cosh": ("CoshBackward0", np.cosh, "self"),
    "asinh": ("AsinhBackward0", np.arcsinh, "self"),
    "acosh": ("AcoshBackward0", np.arccosh, "self"),
    "atanh": ("AtanhBackward0", np.arctanh, "self"),
    "exp2": ("Exp2Backward0", np.exp2, "result"),
    "frac": ("FracBackward0", _frac, "none"),
}
_FLOAT_ONLY = {"exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
               "sigmoid", "reciprocal", "erf", "erfc", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
               "atanh", "exp2"}


_CAN_WARN = {"exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "sigmoid",
             "reciprocal", "erf", "erfc", "asin", "acos", "sinh", "cosh", "acosh", "atanh", "exp2", "square", "frac"}  # ops whose nan/inf results numpy would warn about (torch never does)


# float32 transcendentals whose float64 value rounded to float32 is nearly always what torch's
# vectorized (Sleef) kernels give, where numpy's own float32 loops differ in the last bit far more often
# (float32 sigmoid replays Sleef's exp itself: engine/kernels/sigmoid.py)
_VIA_DOUBLE = {"exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "tanh", "asin", "acos", "atan",
               "sinh", "cosh", "atanh", "exp2"}


def _forward(op: str, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """op's numpy forward of x (into `out` when given), without numpy's warnings for the ops whose
    nan/inf results it would warn about."""
    if op == "round" and out is not None:
        return np.round(x, out=out)
    if op == "sigmoid" and x.dtype == np.float32:
        return sigmoid_float32(x, out)
    if op == "sigmoid" and x.dtype.itemsize == 2 and x.dtype.kind in "fV":  # float16, bfloat16
        return sigmoid_reduced(x, out)
    if op in _VIA_DOUBLE and x.dtype == np.float32:
        wide = quietly(_in_double, UNARY[op][1], x)
        if out is None:
            return wide
        np.copyto(out, wide)
        return out
    if op not in _CAN_WARN:
        return UNARY[op][1](x, out=out)
    return quietly(UNARY[op][1], x, out=out)


def _in_double(forward: Callable[..., np.ndarray], x: np.ndarray) -> np.ndarray:
    """A float32 op (a numpy ufunc) computed by its float64 loop (x widens exactly) and rounded back."""
    return forward(x, dtype=np.float64).astype(np.float32)


def _small_kernel(op: str, dtype: dtypes.dtype) -> tuple[Callable[[np.ndarray], np.ndarray], bool] | None:
    """The one-argument numpy forward `_forward(op, x)` picks for an array of `dtype` (a floating
    one), and whether it must run quietly (it can make nan or inf, which numpy would warn about), for
    _small_unary to call without _forward's per-call choices; None for sigmoid and relu, which have
    their own kernels and entries."""
    if op in ("sigmoid", "relu") or not dtype.is_floating_point:
        return None
    forward = UNARY[op][1]
    if op in _VIA_DOUBLE and dtype is dtypes.float32:
        # _in_double's values (the same float64 loop on the same widened values): widened by astype
        # first, which numpy does in less time than the ufunc's casting of a dtype= argument
        return (lambda x: forward(x.astype(np.float64)).astype(np.float32)), True
    if forward is _negative:
        forward = np.negative  # _negative without out= is np.negative, one call less
    return forward, op in _CAN_WARN


_SMALL_KERNELS: dict[tuple[str, dtypes.dtype], tuple[Callable[[np.ndarray], np.ndarray], bool] | None] = {}


def small_untracked(self: Tensor) -> tuple[np.ndarray, tuple[int, ...]] | None:
    """The cached numpy view of `self` and its row-major strides when a one-operand op on it can take
    a short path: self has at least one dim, is small and C-contiguous, its view is cached (every
    op's result has one), and no node is to be recorded. Decided from the cache's fields, without
    asking numpy; the op computes from the view and adopts its fresh row-major result with the
    strides (Tensor._adopt), skipping the general steps, which cost more than the arithmetic. None
    sends the op down its general path."""
    cache = self._np_cache
    if cache is None or cache[2] is None or cache[0] is not self._storage.data or self._bits or not self._shape:
        return None
    if grad_mode.state.enabled and (  # self.requires_grad, read off its fields
            self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad)):
        return None
    return cache[1], cache[2]


def _small_unary(op: str, self: Tensor) -> Tensor | None:
    """op(self) as a new tensor for the commonest unary call (see small_untracked), computed by the
    kernel _forward would pick. None sends the call down unary()'s paths."""
    small = small_untracked(self)
    if small is None:
        return None
    key = (op, self.dtype)
    found = _SMALL_KERNELS.get(key, _SMALL_KERNELS)
    if found is _SMALL_KERNELS:
        found = _SMALL_KERNELS[key] = _small_kernel(op, self.dtype)
    if found is None:
        return None
    kernel, quiet = found
    x, stride = small
    return Tensor._adopt(quiet_unary(kernel, x) if quiet else kernel(x), self.dtype, stride)


_SAME_DTYPE_OUT = {"neg", "abs", "sign", "floor", "ceil", "round", "trunc", "frac"}  # no casting into out=


def check_out_dtype(out: Tensor, dt: dtypes.dtype, op: str, inputs: tuple[Any, ...]) -> None:
    """The ops whose out= must have the result's own dtype (TensorIterator's check_all_same_dtype);
    autograd's refusal of out= comes first."""
    if needs_grad(*inputs, out):
        raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op=op))
    check_out_overlap(out, inputs)
    if out.dtype is not dt:
        raise RuntimeError(f"Found dtype {out.dtype.short} but expected {dt.short}")


def check_unary_dtype(op: str, self: Tensor) -> None:
    """The dtypes ATen's activations refuse before they compute (relu checks bool itself, the others
    have no kernel for it)."""
    if op == "relu" and self.dtype is dtypes.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")


def _kernel_for(kernel: str, self: Tensor, integers: bool) -> None:
    """ATen's dispatch error for a dtype an activation's CPU kernel has no instance for: bool
    always, integers too unless `integers`."""
    if self.dtype is dtypes.bool_ or not (integers or self.dtype.is_floating_point):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self.dtype.short}'")


def _hardtanh_bounds(self: Tensor, min_val: float, max_val: float) -> None:
    """ATen's hardtanh_out: no bool, and no negative bound for uint8 (integer bounds truncate)."""
    if self.dtype is dtypes.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if self.dtype is dtypes.uint8 and (int(min_val) < 0 or int(max_val) < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")


def unary(op: str, self: Tensor, out: Tensor | None = None) -> Tensor:
    if out is None:
        done = _small_unary(op, self)
        if done is not None:
            return done
    name, _, saves = UNARY[op]
    # A row-major float tensor without out=, the common case: no dtype change, none of the checks
    # below, and the result row-major as TensorIterator makes it (numpy's contiguity is torch's here).
    if out is None and self.dtype.is_floating_point:
        x = self._numpy_view()
        if x.ndim < 2 or x.flags.c_contiguous:
            if x.size > _UNRESERVED:
                _reserve(self._shape, self.dtype)
            return wrap_result(name, _forward(op, x), self.dtype, (self,),
                               {"self": self} if "self" in saves else None,
                               {"exponent": 2} if op == "square" else None, "result" if "result" in saves else None)
    check_unary_dtype(op, self)
    dt = self.dtype if (self.dtype.is_differentiable or op not in _FLOAT_ONLY) else dtypes.get_default_dtype()
    if op == "abs" and self.dtype.is_complex:
        dt = self.dtype.to_real()
    if op == "square" and self.dtype is dtypes.bool_:  # pow(x, 2): a bool squared is a long
        dt = dtypes.int64
    if self.dtype is dtypes.bool_ and op in _NO_BOOL_KERNEL:
        raise NotImplementedError(f"\"{_NO_BOOL_KERNEL[op]}\" not implemented for 'Bool'")
    if out is not None and op in _SAME_DTYPE_OUT:
        check_out_dtype(out, dt, op, (self,))
    if op == "neg" and self.dtype is dtypes.bool_:
        raise RuntimeError(_BOOL_NEGATION)
    _reserve(self._shape, dt)
    result = _forward(op, array_of(self, self.dtype if self.dtype.is_complex else dt))  # |z| of complex z is real
    values = {"exponent": 2} if op == "square" else None
    return _finish(name, op, result, dt, (self,), {"self": self} if "self" in saves else None,
                   save_result="result" if "result" in saves else None, out=out, values=values)


# The unary kernels ATen dispatches over every dtype but bool (the out-of-place and in-place forms alike)
_NO_BOOL_KERNEL = {"abs": "abs_cpu", "ceil": "ceil_vml_cpu", "floor": "floor_vml_cpu", "round": "round_vml_cpu",
                   "trunc": "trunc_vml_cpu", "frac": "frac_cpu"}

_BOOL_NEGATION = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                  "mask, use the `~` or `logical_not()` operator instead.")


def unary_(op: str, self: Tensor) -> Tensor:
    """The in-place form: ops needing their input save a copy of it; the others save self after."""
    name, _, saves = UNARY[op]
    check_unary_dtype(op, self)
    check_inplace_allowed(self)
    if op == "neg" and self.dtype is dtypes.bool_:  # neg's meta function, before TensorIterator's checks
        raise RuntimeError(_BOOL_NEGATION)
    check_internal_overlap(self)  # TensorIterator checks memory overlap before dtypes
    if op in _FLOAT_ONLY and not self.dtype.is_differentiable:
        raise RuntimeError(errors.CAST.format(src=dtypes.get_default_dtype().short, dst=self.dtype.short))
    if self.dtype is dtypes.bool_ and op == "square":  # pow_(2): a bool squared is a long
        raise RuntimeError(errors.CAST.format(src=dtypes.int64.short, dst=self.dtype.short))
    check_writable(self)
    if self.dtype is dtypes.bool_ and op in _NO_BOOL_KERNEL:
        raise NotImplementedError(f"\"{_NO_BOOL_KERNEL[op]}\" not implemented for 'Bool'")

    def write(target: np.ndarray) -> None:
        _forward(op, target, out=target)

    return apply_inplace(self, write, name, (), check_autograd=False,
                         save_self_copy="self" if "self" in saves else None,
                         save_result="result" if "result" in saves else None,
                         values={"exponent": 2} if op == "square" else None)


def _make_unary(op: str) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    def fn(self: Tensor, *, out: Tensor | None = None) -> Tensor:
        return unary(op, self, out)

    def fn_(self: Tensor) -> Tensor:
        return unary_(op, self)

    fn.__name__, fn_.__name__ = op, op + "_"
    return fn, fn_


# --------------------------------------------------------------------------- parametrised activations
def _leaky(x: np.ndarray, slope: Any) -> np.ndarray:
    """x > 0 ? x : x * slope (run quietly: bfloat16's comparison of NaN would warn, torch never does)."""
    return np.where(x > 0, x, x * slope)


def leaky_relu(self: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return leaky_relu_(self, negative_slope)
    _kernel_for("leaky_relu_cpu", self, integers=False)
    slope = self.dtype.np.type(negative_slope)
    small = small_untracked(self)
    if small is not None:
        return Tensor._adopt(quiet_binary(_leaky, small[0], slope), self.dtype, small[1])
    result = quiet_binary(_leaky, self._numpy_view(), slope)
    return _finish("LeakyReluBackward0", "leaky_relu", result, self.dtype, (self,), {"self": self},
                   values={"negative_slope": negative_slope})


def leaky_relu_(self: Tensor, negative_slope: float = 0.01) -> Tensor:
    _kernel_for("leaky_relu_cpu", self, integers=False)
    check_inplace_allowed(self)
    check_writable(self)

    def write(t: np.ndarray) -> None:  # torch: x > 0 ? x : x * slope (so 0 * -0.5 is -0.)
        np.multiply(t, self.dtype.np.type(negative_slope), out=t, where=~(t > 0))

    return apply_inplace(self, write, "LeakyReluBackward1", (), save_result="result", check_autograd=False,
                         values={"negative_slope": negative_slope})


def hardtanh(self: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        return hardtanh_(self, min_val, max_val)
    _hardtanh_bounds(self, min_val, max_val)
    x = self._numpy_view()
    result = np.clip(x, self.dtype.np.type(min_val), self.dtype.np.type(max_val))
    return _finish("HardtanhBackward0", "hardtanh", result, self.dtype, (self,), {"self": self},
                   values={"max_val": max_val, "min_val": min_val})


def hardtanh_(self: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """torch records the in-place form as HardtanhBackward0 too, saving a clone of self from before the write
    (its formula reads self; under create_graph the clone's CloneBackward0 is the saved value's history)."""
    _hardtanh_bounds(self, min_val, max_val)
    check_inplace_allowed(self)
    check_writable(self)
    low, high = self.dtype.np.type(min_val), self.dtype.np.type(max_val)
    return apply_inplace(self, lambda t: np.clip(t, low, high, out=t), "HardtanhBackward0", (), save_self_copy="self",
                         check_autograd=False, values={"max_val": max_val, "min_val": min_val})


def threshold(self: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x > threshold ? x : value (NaN stays NaN)."""
    if inplace:
        return threshold_(self, threshold, value)
    _kernel_for("threshold_cpu", self, integers=True)
    x = self._numpy_view()
    result = np.where(x <= threshold, self.dtype.np.type(value), x)
    return _finish("ThresholdBackward0", "threshold", result, self.dtype, (self,), {"self": self},
                   values={"threshold": threshold})


def threshold_(self: Tensor, threshold: float, value: float) -> Tensor:
    """In place: ThresholdBackward1, which keeps a copy of self from before the write."""
    _kernel_for("threshold_cpu", self, integers=True)
    check_inplace_allowed(self)
    check_writable(self)
    fill = self.dtype.np.type(value)
    return apply_inplace(self, lambda t: np.copyto(t, fill, where=t <= threshold), "ThresholdBackward1", (),
                         save_self_copy="self", check_autograd=False, values={"threshold": threshold})


def signbit(self: Tensor, *, out: Tensor | None = None) -> Tensor:
    result = np.signbit(self._numpy_view())
    if out is not None:
        return write_out(out, result, "signbit", (self,))
    return iterated(result, dtypes.bool_, (self,))


def isin(elements: Operand, test_elements: Operand, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    values = elements._numpy_view() if isinstance(elements, Tensor) else np.asarray(elements)
    tests = test_elements._numpy_view() if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return Tensor._wrap(np.isin(values, tests, invert=invert), dtypes.bool_)


def gelu(self: Tensor, approximate: str = "none", *, out: Tensor | None = None) -> Tensor:
    from engine.kernels import activation

    _kernel_for("GeluKernelImpl", self, integers=False)
    if approximate == "none" and self.dtype is dtypes.float32 and self.numel() > 1 and self.is_contiguous():
        result = gelu_erf(self._numpy_view())  # where ATen hands the tensor to oneDNN
    else:
        result = activation.gelu(self._numpy_view(), approximate)
    return _finish("GeluBackward0", "gelu", result, self.dtype, (self,),
                   {"self": self}, out=out, values={"approximate": approximate})


def _clip(x: np.ndarray, low: Any, high: Any, out: np.ndarray | None = None) -> np.ndarray:
    """torch's clamp: min(max(x, low), high) keeping x where it equals a bound (so -0. stays -0.),
    NaN propagated; np.clip would return the bound."""
    result = np.array(x, copy=True) if out is None else out
    if out is not None and out is not x:
        np.copyto(result, x)
    if low is not None:
        np.copyto(result, low, where=result < low, casting="unsafe")
    if high is not None:
        np.copyto(result, high, where=result > high, casting="unsafe")
    return result


def clamp_bounds_check(name: str, self: Tensor, low: Any, high: Any) -> bool:
    """clamp's argument checks, shared by clamp_: at least one bound, and bounds all tensors or all
    numbers (torch's two overloads). Whether they are tensors."""
    dtypes.check_scalar_int(low)
    dtypes.check_scalar_int(high)
    if self.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    if low is None and high is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    given = [b for b in (low, high) if b is not None]
    tensors = [isinstance(b, Tensor) for b in given]
    if any(tensors) and not all(tensors):
        kinds = ", ".join(type(x).__name__ if not isinstance(x, Tensor) else "Tensor"
                          for x in ((self,) if name == "clamp" else ()) + (low, high) if x is not None)
        first = "Tensor input, " if name == "clamp" else ""
        out = ", *, Tensor out = None" if name == "clamp" else ""
        why = "" if name == "clamp" else ("      didn't match because some of the arguments have invalid types: ("
                                          + ", ".join(f"!{kind}!" for kind in kinds.split(", ")) + ")\n")
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({kinds}), but expected one of:"
                        f"\n * ({first}Tensor min = None, Tensor max = None{out})\n{why}"
                        f" * ({first}Number min = None, Number max = None{out})\n{why}")
    return any(tensors)


def clamp_tensor_dtype(self: Tensor, low: Tensor | None, high: Tensor | None) -> dtypes.dtype:
    return result_type(self, *(b for b in (low, high) if b is not None))


def _clamp_tensors(self: Tensor, low: Tensor | None, high: Tensor | None, name: str, op: str,
                   out: Tensor | None) -> Tensor:
    """clamp with tensor bounds (torch's clamp.Tensor, clamp_min.Tensor, clamp_max.Tensor): bounds
    broadcast with self, and are inputs of the node (their gradients where they win)."""
    dt = clamp_tensor_dtype(self, low, high)
    bounds = [b for b in (low, high) if b is not None]
    shape = geometry.broadcast_shapes(self._shape, *(b._shape for b in bounds))
    _reserve(shape, dt)
    result = np.array(np.broadcast_to(array_of(self, dt), shape))
    _clip(result, None if low is None else array_of(low, dt), None if high is None else array_of(high, dt),
          out=result)
    if name == "ClampBackward0":
        inputs: tuple[Any, ...] = (self, low, high)
    else:
        inputs = (self, low if low is not None else high)
    saved = {"self": self, **({"min": low} if low is not None else {}), **({"max": high} if high is not None else {})}
    return _finish(name, op, result, dt, inputs, saved, out=out)


def _integer_bound(bound: Any, dt: dtypes.dtype) -> Any:
    """A number bound as an integer clamp takes it, in dt (uint8's clamp(min=-1) clamps to 255)."""
    if bound is None or isinstance(bound, Tensor) or dt.is_floating_point or dt.is_complex:
        return bound
    return array_of(bound, dt)


def _number_bound(bound: Any) -> bool:
    """A bound clamp's short path takes: none, a float, or an int that is a Scalar without question."""
    return bound is None or ((type(bound) is float or type(bound) is int) and -_HALF_MAX <= bound <= _HALF_MAX)


def clamp(self: Tensor, min: float | None = None, max: float | None = None, *,  # noqa: A002
          out: Tensor | None = None) -> Tensor:
    if out is None and self.dtype.is_floating_point and (min is not None or max is not None) and \
            _number_bound(min) and _number_bound(max):  # numbers keep a float tensor's dtype
        small = small_untracked(self)
        if small is not None:
            return Tensor._adopt(quietly(_clip, small[0], min, max), self.dtype, small[1])
    if clamp_bounds_check("clamp", self, min, max):
        return _clamp_tensors(self, min, max, "ClampBackward0", "clamp", out)
    dt = result_type(self, *(v for v in (min, max) if v is not None))
    dtypes.check_fits(min, dt)
    dtypes.check_fits(max, dt)
    if out is not None:
        check_out_dtype(out, dt, "clamp", (self,))
    x = array_of(self, dt)
    # quietly: a bound past the dtype's range is inf, and bfloat16 compares NaN, without a warning
    result = quietly(_clip, x, _integer_bound(min, dt), _integer_bound(max, dt)).astype(dt.np, copy=False)
    return _finish("ClampBackward1", "clamp", result, dt, (self,), {"self": self}, out=out,
                   values={"max": max, "min": min})


def clamp_scalars_(self: Tensor, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A002
    return _clamp_inplace(self, min, max, "ClampBackward1", {"max": max, "min": min})


def _clamp_inplace(self: Tensor, low: Any, high: Any, name: str, values: dict[str, Any]) -> Tensor:
    check_inplace_allowed(self, low, high)
    dt = result_type(self, *(v for v in (low, high) if v is not None))
    if not dtypes.can_cast(dt, self.dtype):  # clamp_ names the target the C++ way
        raise RuntimeError(errors.CAST.format(src=dt.short, dst=self.dtype.cpp))
    dtypes.check_fits(low, dt)
    dtypes.check_fits(high, dt)
    check_writable(self)
    bounds = [v._numpy_view() if isinstance(v, Tensor) else _integer_bound(v, dt) for v in (low, high)]

    def write(t: np.ndarray) -> None:
        _clip(t, bounds[0], bounds[1], out=t)

    return apply_inplace(self, write, name, (), save_self_copy="self", check_autograd=False, values=values)


def clamp_min_(self: Tensor, min: float) -> Tensor:  # noqa: A002
    """Number bounds (inplace_forms.clamp_min_ takes a tensor too)."""
    return _clamp_inplace(self, min, None, "ClampMinBackward0", {"min": min})


def clamp_max_(self: Tensor, max: float) -> Tensor:  # noqa: A002
    """Number bounds (inplace_forms.clamp_max_ takes a tensor too)."""
    return _clamp_inplace(self, None, max, "ClampMaxBackward0", {"max": max})


def _number_clamp_dtype(self: Tensor, bound: Any) -> dtypes.dtype:
    """clamp_min/clamp_max with a number: clamp's checks, then the bound must fit the result dtype."""
    clamp_bounds_check("clamp", self, bound, None)
    dt = result_type(self, bound)
    dtypes.check_fits(bound, dt)
    return dt


def clamp_min(self: Tensor, min: float) -> Tensor:  # noqa: A002
    if isinstance(min, Tensor):
        return _clamp_tensors(self, min, None, "ClampMinBackward1", "clamp_min", None)
    dt = _number_clamp_dtype(self, min)
    result = quietly(np.maximum, array_of(self, dt), array_of(min, dt))
    return _finish("ClampMinBackward0", "clamp_min", result, dt, (self,), {"self": self}, values={"min": min})


def clamp_max(self: Tensor, max: float) -> Tensor:  # noqa: A002
    if isinstance(max, Tensor):
        return _clamp_tensors(self, None, max, "ClampMaxBackward1", "clamp_max", None)
    dt = _number_clamp_dtype(self, max)
    result = quietly(np.minimum, array_of(self, dt), array_of(max, dt))
    return _finish("ClampMaxBackward0", "clamp_max", result, dt, (self,), {"self": self}, values={"max": max})


# --------------------------------------------------------------------------- comparisons and logic
_ORDERINGS = {np.less: "lt", np.less_equal: "le", np.greater: "gt", np.greater_equal: "ge"}


def check_ordered(ufunc: np.ufunc, dt: dtypes.dtype) -> None:
    """Complex numbers have no order: torch has no lt/le/gt/ge kernel for them."""
    if dt.is_complex and ufunc in _ORDERINGS:
        raise NotImplementedError(f"\"{_ORDERINGS[ufunc]}_cpu\" not implemented for '{dt.short}'")


def _compare(ufunc: np.ufunc) -> Callable[..., Tensor]:
    def compare(self: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
        if out is None:
            alike = _alike(self, other) or _with_number(self, other)
            if alike is not None and alike[0].dtype.kind != "c":  # the binary ops' short path (no node)
                a, b = alike
                if a.dtype.kind == "V":  # bfloat16's comparison of NaN would warn; torch's never does
                    return Tensor._wrap(np.asarray(quiet_binary(ufunc, a, b)), dtypes.bool_)
                return Tensor._wrap(np.asarray(ufunc(a, b)), dtypes.bool_)
        dt = result_type(self, other)
        check_ordered(ufunc, dt)
        geometry.broadcast_shapes(_shape_of(self), _shape_of(other))
        result = quiet_binary(ufunc, array_of(self, dt), array_of(other, dt)) if dt is dtypes.bfloat16 else \
            ufunc(array_of(self, dt), array_of(other, dt))
        if out is not None:
            return write_out(out, np.asarray(result), ufunc.__name__, (self, other),
                             strides=output_strides(np.shape(result), (self, other), "iterator"), iterator=True)
        return iterated(np.asarray(result), dtypes.bool_, (self, other))
    return compare


eq, ne, lt, le, gt, ge = (_compare(u) for u in (np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                                                np.greater_equal))


def logical_not(self: Tensor) -> Tensor:
    return iterated(np.logical_not(self._numpy_view()), dtypes.bool_, (self,))


def _bitwise(ufunc: np.ufunc) -> Callable[..., Tensor]:
    def bitwise(self: Operand, other: Operand) -> Tensor:
        dt = result_type(self, other)
        if dt.is_floating_point or dt.is_complex:
            raise NotImplementedError(f"\"{ufunc.__name__}_cpu\" not implemented for '{dt.short}'")
        return iterated(np.asarray(ufunc(array_of(self, dt), array_of(other, dt))), dt, (self, other))
    return bitwise


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(u) for u in (np.bitwise_and, np.bitwise_or, np.bitwise_xor))


def bitwise_not(self: Tensor, *, out: Tensor | None = None) -> Tensor:
    if self.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    result = np.invert(self._numpy_view())
    if out is not None:
        check_out_dtype(out, self.dtype, "bitwise_not", (self,))
        return write_out(out, result, "bitwise_not", (self,))
    return iterated(result, self.dtype, (self,))


def bitwise_not_(self: Tensor) -> Tensor:
    if self.dtype.is_floating_point:
        raise RuntimeError(f"\"bitwise_not_cpu\" not implemented for '{self.dtype.short}'")
    check_inplace_allowed(self)
    check_writable(self)
    return apply_inplace(self, lambda t: np.invert(t, out=t), "", (), None, check_autograd=False)


def isnan(self: Tensor) -> Tensor:
    return iterated(np.isnan(self._numpy_view()), dtypes.bool_, (self,))


def isinf(self: Tensor) -> Tensor:
    return iterated(np.isinf(self._numpy_view()), dtypes.bool_, (self,))


def isfinite(self: Tensor) -> Tensor:
    return iterated(np.isfinite(self._numpy_view()), dtypes.bool_, (self,))


def where(condition: Tensor, input: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    dt = result_type(input, other)
    if dt not in _REDUCED:  # a number joins float16/bfloat16 as a wrapped tensor, unchecked
        dtypes.check_fits(input, dt)
        dtypes.check_fits(other, dt)
    if out is not None and out.dtype is not dt:
        raise RuntimeError(f"Expected out type to be {dt.short} but got {out.dtype.short}")
    geometry.broadcast_shapes(condition._shape, _shape_of(input), _shape_of(other))
    cond = condition._numpy_view().astype(bool, copy=False)
    result = np.where(cond, array_of(input, dt), array_of(other, dt))
    return _finish("WhereBackward0", "where", result, dt, (input, other), {"condition": condition}, out=out,
                   operands=(condition, input, other))


_UNARY_FNS = {op: _make_unary(op) for op in UNARY}

METHODS: dict[str, Callable[..., Any]] = {
    "add": add, "sub": sub, "subtract": sub, "mul": mul, "multiply": mul, "div": div, "divide": div,
    "true_divide": div, "pow": pow, "maximum": maximum, "minimum": minimum, "remainder": remainder,
    "floor_divide": floor_divide,
    "leaky_relu": leaky_relu, "clamp": clamp, "clip": clamp, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge,
    "greater": gt, "less": lt, "greater_equal": ge, "less_equal": le, "not_equal": ne,
    "logical_not": logical_not,
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not, "bitwise_not_": bitwise_not_,
    "isnan": isnan, "isinf": isinf, "isfinite": isfinite, "where": lambda self, cond, other: where(cond, self, other),
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
        "ge", "greater", "less", "greater_equal", "less_equal", "not_equal", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan",
        "isinf", "isfinite", "negative", "absolute", "rsub",
    ) if name in METHODS
}
FUNCTIONS.update({op: fn for op, (fn, _) in _UNARY_FNS.items()})


def relu(self: Tensor) -> Tensor:
    """torch.relu and Tensor.relu, which take no out= (unlike torch.sigmoid). A small row-major float
    tensor, most models' activations, goes straight to the kernel without unary()'s general steps."""
    cache = self._np_cache
    if cache is not None and cache[2] is not None and cache[0] is self._storage.data and not self._bits:
        x, stride = cache[1], cache[2]  # _numpy_view's answer, known small and C-contiguous
        if not self.dtype.is_floating_point:
            return unary("relu", self)
    else:
        x, stride = self._numpy_view(), None
        if not (self.dtype.is_floating_point and (x.ndim < 2 or x.flags.c_contiguous) and x.size <= _UNRESERVED):
            return unary("relu", self)
    result = relu_kernel(x)  # a fresh row-major array
    if grad_mode.state.enabled and (  # self.requires_grad, read off its fields
            self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad)):
        # by position (save, values, save_result, stride): keywords cost this hot call a few percent
        return adopt_recorded("ReluBackward0", result, self.dtype, (self,), None, None, "result", stride)
    return Tensor._adopt(result, self.dtype, stride)


def sigmoid(self: Tensor, *, out: Tensor | None = None) -> Tensor:
    """torch.sigmoid and Tensor.sigmoid: as relu, a small row-major float tensor without out= goes
    straight to the kernel (float32's replays torch's, as unary() computes it)."""
    if out is not None or not self.dtype.is_floating_point:
        return unary("sigmoid", self, out)
    cache = self._np_cache
    if cache is not None and cache[2] and cache[0] is self._storage.data and not self._bits:
        x = cache[1]  # _numpy_view's answer, known small and C-contiguous
    else:
        x = self._numpy_view()
        if not ((x.ndim < 2 or x.flags.c_contiguous) and x.size <= _UNRESERVED):
            return unary("sigmoid", self)
    dt = self.dtype
    result = sigmoid_float32(x) if dt is dtypes.float32 else quietly(_sigmoid, x) if dt.itemsize != 2 \
        else sigmoid_reduced(x)
    tensor = _untracked(result, self, None)  # a fresh row-major array, whichever kernel made it
    return tensor if tensor is not None else adopt_recorded("SigmoidBackward0", result, dt, (self,), save_result="result")


METHODS.update(relu=relu, sigmoid=sigmoid)
FUNCTIONS.update(relu=relu, sigmoid=sigmoid)
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


def _round_kernel_check(self: Tensor, decimals: int) -> None:
    if not self.dtype.is_floating_point:
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self.dtype.short}'")


def round(self: Tensor, *, decimals: int | None = None, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """round() is RoundBackward0; with decimals= (even 0) it is RoundBackward1 (both zero gradients)."""
    if decimals is None:
        return unary("round", self, out)
    _round_kernel_check(self, decimals)
    with np.errstate(over="ignore", invalid="ignore"):
        result = _round_decimals(self._numpy_view(), decimals)
    return _finish("RoundBackward1", "round", result, self.dtype, (self,), out=out)


def round_(self: Tensor, *, decimals: int | None = None) -> Tensor:
    if decimals is None:
        return unary_("round", self)
    _round_kernel_check(self, decimals)
    check_inplace_allowed(self)
    check_writable(self)

    def write(target: np.ndarray) -> None:
        with np.errstate(over="ignore", invalid="ignore"):
            target[...] = _round_decimals(target, decimals)

    return apply_inplace(self, write, "RoundBackward1", (), check_autograd=False)


METHODS.update(round=round, round_=round_)
FUNCTIONS.update(round=round, round_=round_)
METHODS.update(signbit=signbit, isin=isin)
FUNCTIONS.update(signbit=signbit, isin=isin, threshold=threshold, threshold_=threshold_)
