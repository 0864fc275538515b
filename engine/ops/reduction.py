"""Reductions: sums, means, extrema, statistics, norms, scans and softmax.

Each op is its numpy forward and the node it records (derivatives: engine/autograd/derivatives/
reduction.py). What a node saves follows PyTorch (see the reference), because that decides which
later in-place change breaks backward: sum and mean save nothing, max() and amax save their input
and result, max(dim) only its indices, var its input, std its input and result, softmax its result.

Whether a dim was passed at all matters too: `x.sum()` records SumBackward0 while `x.sum(dim=None)`
records SumBackward1, so a sentinel stands for "not given".
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.autograd import grad_mode
from engine.kernels import activation, summation
from engine.kernels.two_norm import two_norm_rows, two_norm_sequential
from engine.ops.core import adopt_recorded, needs_grad, record, wrap_result
from engine.ops.pointwise import _untracked, maximum, minimum, write_out
from engine.quiet import quiet_binary, quiet_unary, quietly
from engine.tensor import Tensor

Dim = int | Sequence[int] | None
Grads = tuple[np.ndarray | None, ...]
_ABSENT: Any = object()


# --------------------------------------------------------------------------- shared helpers
def _listed(dim: Any) -> tuple[int, ...]:
    """A dim argument as the tuple torch keeps (`1` and `[1]` both become `(1,)`)."""
    if dim is None:
        return ()
    if isinstance(dim, (tuple, list)):
        return tuple(int(d) for d in dim)
    return (int(dim),)


def _dims(dim: Dim, ndim: int) -> tuple[int, ...]:
    """Reduced dims, wrapped and checked; None or () mean every dim (none for a 0-d tensor)."""
    listed = (dim,) if dim is not None and not isinstance(dim, (tuple, list)) else tuple(dim or ())
    if not listed:
        return tuple(range(ndim))
    wrapped: list[int] = []
    for d in listed:
        w = geometry.wrap_dim(operator.index(d), ndim)
        if w in wrapped:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        wrapped.append(w)
    return tuple(wrapped) if ndim else ()


def _accumulate_in(dt: dtypes.dtype) -> np.dtype:
    """float16 sums in float32 (as torch accumulates); every other dtype in itself."""
    return np.dtype(np.float32) if dt in (dtypes.float16, dtypes.bfloat16) else dt.np


def _counted(shape: tuple[int, ...], dims: tuple[int, ...]) -> int:
    return math.prod(shape[d] for d in dims)


def _check_nonempty(self: Tensor, op: str, dims: tuple[int, ...], dim_given: bool, arg: bool = False,
                    as_given: Sequence[int] = ()) -> None:
    """Extrema have no identity: torch refuses empty reductions (argmax/argmin word it differently; amax
    and amin name the dim as the caller wrote it, `as_given`)."""
    if not dim_given and self.numel() == 0:
        if arg:
            raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
        raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    for d, name in zip(dims, as_given) if len(as_given) == len(dims) else zip(dims, dims):
        if self._shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {name} to have non-zero size.")


def _dense(array: Any, dt: np.dtype | None = None) -> np.ndarray:
    """A C-contiguous array, 0-d kept 0-d (np.ascontiguousarray would make it 1-d); a cast down that
    overflows (a float64 norm back to float32) gives inf without numpy's warning, as torch's does."""
    if dt is not None and getattr(array, "dtype", dt) != dt:
        with np.errstate(over="ignore"):
            return np.asarray(array, dtype=dt, order="C")
    return np.asarray(array, dtype=dt, order="C")


def _NO_CHECK() -> None:  # noqa: N802 - a constant-like no-op
    return None


def _emit(result: Any, dt: dtypes.dtype, name: str, op: str, inputs: tuple[Any, ...],
          save: dict[str, Tensor] | None = None, save_result: str | None = None,
          out: Tensor | None = None, values: dict[str, Any] | None = None, backward: Any = None) -> Tensor:
    """Wrap a reduction result as a new contiguous tensor and record it (unless `name` is empty), or
    honour `out=`; `backward` is a numpy closure for a node not in the derivative table yet."""
    result = _dense(result, dt.np)
    if out is not None:  # reductions do not check their out for overlap
        return write_out(out, result, op, inputs, after_resize=_NO_CHECK, adds=op in ("sum", "nansum"))
    if name:
        return wrap_result(name, result, dt, inputs, save, values, save_result, backward=backward)
    return Tensor._wrap(result, dt)


def saved_dims(dims: Any) -> Any:
    """A dim list as torch shows it in `grad_fn._saved_dim`: negative dims read as unsigned int64."""
    if dims is None:
        return None
    if isinstance(dims, (tuple, list)):
        return tuple(int(d) % (1 << 64) for d in dims)
    return int(dims) % (1 << 64)


def _keepdim_without_dim(op: str) -> TypeError:
    return TypeError(f"{op}() received an invalid combination of arguments - got (keepdim=bool, ), "
                     "but expected one with `dim` given")


def _out_without_dim(op: str, dim_type: str, dtype: Any) -> TypeError:
    """torch.sum / torch.prod over the whole tensor have no out= overload."""
    if dtype is not None:
        return TypeError(f'{op}() missing 1 required positional arguments: "dim"')
    return TypeError(f"{op}() received an invalid combination of arguments - got (Tensor, out=Tensor), but expected "
                     f"one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, {dim_type} dim, "
                     "bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n")


# --------------------------------------------------------------------------- sum, mean, prod
def _sum_dtype(dt: dtypes.dtype) -> dtypes.dtype:
    """Integers and bools sum to int64, so counting never overflows a narrow type."""
    return dt if dt.is_floating_point or dt.is_complex else dtypes.int64


def _sum(self: Tensor, dims: tuple[int, ...], keepdim: bool, out: dtypes.dtype) -> np.ndarray:
    """A sum into dtype `out` in the order ATen's kernel adds (kernels/summation.py) where its loop is
    known: every dim of a small tensor, or the last dim of a row-major one; numpy's sum elsewhere.
    Into another dtype than self's, ATen sums a copy converted first (dense, in self's dim order);
    a float16/bfloat16 sum into its own dtype accumulates in float32 as it loads."""
    x = self._numpy_view()
    shape, strides = self._shape, self._stride
    if out is not self.dtype and out.is_floating_point and x.size:
        x = x.astype(out.np, order="K")
        strides = tuple(s // x.itemsize for s in x.strides)
    # torch never warns about nan/inf sums
    return quietly(_ordered_sum, x, shape, strides, dims, keepdim, _accumulate_in(out))


def _ordered_sum(x: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...], dims: tuple[int, ...],
                 keepdim: bool, acc: np.dtype) -> np.ndarray:
    ndim = len(shape)
    if acc.kind == "f" and x.size:
        rows = None
        if len(dims) == ndim and x.size < summation.GRAIN_SIZE and geometry.non_overlapping_and_dense(shape, strides):
            order = sorted(range(ndim), key=lambda d: -strides[d])
            rows = x.transpose(order).reshape(1, -1)
        elif dims == (ndim - 1,) and x.flags.c_contiguous:
            rows = x.reshape(-1, shape[-1])
        elif dims == tuple(range(len(dims))) and x.flags.c_contiguous and x.dtype == acc and \
                x.size < summation.GRAIN_SIZE:
            total = _outer_sum(x, shape, len(dims))  # over the leading dims: a bias gradient's sum(0)
            return total.reshape(tuple(1 if d in dims else n for d, n in enumerate(shape)) if keepdim
                                 else shape[len(dims):])
        elif len(dims) == ndim and x.size < summation.GRAIN_SIZE:
            total = summation.strided_total(x, shape, strides, acc)
            if total is not None:
                return total.reshape((1,) * ndim if keepdim else ())
        if rows is not None:
            total = summation.row_sums(rows.astype(acc, copy=False))
            total = np.add(np.zeros_like(total), total)  # the output starts at 0 (so -0. sums to 0.)
            out_shape = tuple(1 if d in dims else n for d, n in enumerate(shape)) if keepdim else \
                tuple(n for d, n in enumerate(shape) if d not in dims)
            return total.reshape(out_shape)
    return np.add.reduce(x, axis=dims, dtype=acc, keepdims=keepdim)  # np.sum's own call, without its wrapper


def _outer_sum(x: np.ndarray, shape: tuple[int, ...], leading: int) -> np.ndarray:
    """The sum over the first `leading` dims of a row-major tensor, as TensorIterator loops it: the
    dims of size 1 dropped, the reduced ones and the kept ones each merged into one; a single kept
    element is a contiguous full sum, a single reduced row a copy into the zeroed output."""
    reduced, kept = math.prod(shape[:leading]), math.prod(shape[leading:])
    table = x.reshape(reduced, kept)
    if reduced == 1:
        return np.add(np.zeros(kept, x.dtype), table[0])
    if kept == 1:
        return np.add(np.zeros(1, x.dtype), summation.row_sums(table.reshape(1, -1)))
    if summation.outer_sums_in_turn(reduced, kept, x.itemsize):
        # outer_sums' additions for a few rows (row after row, into each column's first accumulator),
        # made in place in one fresh row; adding the zero the output starts at last gives the same
        # total (IEEE addition commutes, and only a zero's sign could tell the order)
        total = np.add(table[0], table[1])
        for i in range(2, reduced):
            np.add(total, table[i], total)
        np.add(total, x.dtype.type(0), total)
        return total
    return np.add(np.zeros(kept, x.dtype), summation.outer_sums(table))  # the output starts at 0


def sum(self: Tensor, dim: Any = _ABSENT, keepdim: bool = False, *, dtype: Any = None,  # noqa: A001
        out: Tensor | None = None, axis: Any = _ABSENT, keepdims: Any = _ABSENT) -> Tensor:
    """torch.sum and Tensor.sum. numpy's axis= and keepdims= are taken here as _numpy_names takes
    them for the other reductions: its wrapper would cost `x.sum()` of a small tensor a tenth of
    its time. `x.sum()` of a small row-major float32/float64 tensor (_short_total's case, decided
    from its cached numpy view's fields) goes straight to the kernel; one of exactly two vectors
    that holds its whole storage sums the storage's flat buffer (two_vector_sum), without a reshape."""
    if dim is _ABSENT and not keepdim and dtype is None and out is None and axis is _ABSENT and \
            keepdims is _ABSENT:
        cache = self._np_cache
        if cache is not None and cache[2] is not None and cache[0] is self._storage.data and not self._bits:
            x, flat = cache[1], cache[0]  # _numpy_view's answer (small, C-contiguous), the storage's buffer
            n = x.size  # torch never warns about nan/inf sums: the kernels run quietly
            if n == flat.size and n == _TWO_VECTORS.get(self.dtype) and not self._offset and flat.dtype is x.dtype:
                total = quiet_unary(summation.two_vector_sum, flat)
            elif 0 < n < _SHORT_SUMS.get(self.dtype, 0):
                total = quiet_unary(summation.short_row_sum, x)
            else:
                total = None
            if total is not None:
                if grad_mode.state.enabled and (  # self.requires_grad, read off its fields
                        self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad)):
                    # by position (save, values, save_result, stride): keywords cost this hot call a few percent
                    return adopt_recorded("SumBackward0", total, self.dtype, (self,), None,
                                          {"self_sym_sizes": self._shape}, None, ())
                return Tensor._adopt(total, self.dtype, ())
        if self.dtype.is_floating_point:
            return _sum_all(self)
    if axis is not _ABSENT:
        dim = axis
    if keepdims is not _ABSENT:
        keepdim = keepdims
    if dim is _ABSENT and keepdim:
        raise _keepdim_without_dim("sum")
    if dim is _ABSENT and out is not None:
        raise _out_without_dim("sum", "tuple of ints", dtype)
    dims = _dims(None if dim is _ABSENT else dim, self.ndim)
    dt = dtypes.to_dtype(dtype) if dtype is not None else (out.dtype if out is not None
                                                           else _sum_dtype(self.dtype))
    result = _sum(self, dims, keepdim, dt)
    if dim is _ABSENT:
        return _emit(result, dt, "SumBackward0", "sum", (self,), out=out, values={"self_sym_sizes": self._shape})
    return _emit(result, dt, "SumBackward1", "sum", (self,), out=out,
                 values={"dim": saved_dims(_listed(dim)), "keepdim": keepdim, "self_sym_sizes": self._shape})


# The dtypes whose small sums short_row_sum takes (they sum in themselves), with the length from
# which a row is no longer short.
_SHORT_SUMS = {dt: summation.SHORT_LENGTH[dt.np] for dt in (dtypes.float32, dtypes.float64)}
_TWO_VECTORS = {dt: summation.TWO_VECTORS[dt.np] for dt in (dtypes.float32, dtypes.float64)}


def _short_total(self: Tensor) -> np.ndarray | None:
    """The sum of every element of a small row-major float32/float64 tensor (the dtypes that sum in
    themselves), as a 0-d array of its own (short_row_sum's), by the kernel's short path (ATen's
    order all the same); None for any other tensor."""
    x = self._numpy_view()
    if 0 < x.size < summation.SHORT_LENGTH.get(x.dtype, 0) and x.flags.c_contiguous:
        return quiet_unary(summation.short_row_sum, x)  # torch never warns about nan/inf sums
    return None


def _sum_all(self: Tensor) -> Tensor:
    """`x.sum()` of a floating-point tensor, the common case, without sum()'s argument handling."""
    dt = self.dtype
    result = _short_total(self)
    if result is None:
        result = _dense(_sum(self, tuple(range(len(self._shape))), False, dt), dt.np)
    else:  # a fresh 0-d array, adopted as it is
        tensor = _untracked(result, self, None)
        return tensor if tensor is not None else \
            adopt_recorded("SumBackward0", result, dt, (self,), values={"self_sym_sizes": self._shape})
    return wrap_result("SumBackward0", result, dt, (self,), values={"self_sym_sizes": self._shape})


def mean(self: Tensor, dim: Any = _ABSENT, keepdim: bool = False, *, dtype: Any = None,
         out: Tensor | None = None) -> Tensor:
    if dim is _ABSENT and not keepdim and dtype is None and out is None and self.dtype.is_floating_point:
        total = _short_total(self)  # `x.mean()` of a small float tensor: its sum, divided in place
        if total is not None:
            numel = math.prod(self._shape)
            quiet_binary(_divide_in_place, total, self.dtype.np.type(numel))
            if not grad_mode.state.enabled or not (  # self.requires_grad, read off its fields
                    self._requires_grad or self._fn is not None or (self._view is not None and self.requires_grad)):
                return Tensor._adopt(total, self.dtype, ())  # no node: the fresh 0-d result as it is
            return adopt_recorded("MeanBackward0", total, self.dtype, (self,),
                                  values={"self_sym_numel": numel, "self_sym_sizes": self._shape}, stride=())
    if dim is _ABSENT and keepdim:
        raise _keepdim_without_dim("mean")
    if dtype is not None:
        dt = dtypes.to_dtype(dtype)
        if not dt.is_floating_point:
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either a "
                               f"floating point or complex dtype. Got: {dt.short}")
    elif not self.dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {self.dtype.short}")
    else:
        dt = out.dtype if out is not None and out.dtype.is_floating_point else self.dtype
    dims = _dims(None if dim is _ABSENT else dim, self.ndim)
    count = _counted(self._shape, dims)
    # ATen's CPU mean of float16/bfloat16 sums into float32, divides, then rounds once
    total_dt = dtypes.float32 if dt in (dtypes.float16, dtypes.bfloat16) else dt
    result = quietly(_mean_values, self, dims, keepdim, total_dt, dt, count)
    if not (grad_mode.state.enabled and self.requires_grad):  # no node: no saved fields to make
        return _emit(result, dt, "MeanBackward0", "mean", (self,), out=out)
    values = {"self_sym_numel": math.prod(self._shape), "self_sym_sizes": self._shape}
    if dim is _ABSENT:
        return _emit(result, dt, "MeanBackward0", "mean", (self,), out=out, values=values)
    return _emit(result, dt, "MeanBackward1", "mean", (self,), out=out,
                 values={"dim": saved_dims(_listed(dim)), "keepdim": keepdim, **values})


def _divide_in_place(total: np.ndarray, count: Any) -> None:
    np.divide(total, count, out=total)


def _mean_values(self: Tensor, dims: tuple[int, ...], keepdim: bool, total_dt: dtypes.dtype, dt: dtypes.dtype,
                 count: int) -> np.ndarray:
    """mean's values: the sum over `dims` in total_dt, divided by `count`, rounded into dt (run
    quietly: torch never warns about the nan of an empty mean, nor about inf)."""
    # the sum and the quotient are fresh arrays (or numpy scalars): converted without a copy where the
    # dtype is already the one asked for
    return (_sum(self, dims, keepdim, total_dt).astype(total_dt.np, copy=False) / total_dt.np.type(count)).astype(
        dt.np, copy=False)


def prod(self: Tensor, dim: Any = _ABSENT, keepdim: bool = False, *, dtype: Any = None,
         out: Tensor | None = None) -> Tensor:
    if dim is _ABSENT and keepdim:
        raise _keepdim_without_dim("prod")
    if dim is _ABSENT and out is not None:
        raise _out_without_dim("prod", "int", dtype)
    if dim is not _ABSENT and not isinstance(dim, int):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    dims = _dims(None if dim is _ABSENT else dim, self.ndim)
    dt = dtypes.to_dtype(dtype) if dtype is not None else (out.dtype if out is not None
                                                           else _sum_dtype(self.dtype))
    with np.errstate(all="ignore"):  # torch never warns about inf/nan products
        result = np.prod(self._numpy_view(), axis=dims, dtype=_accumulate_in(dt), keepdims=keepdim)
    if dim is _ABSENT:
        return _emit(result, dt, "ProdBackward0", "prod", (self,), {"self": self}, save_result="result", out=out)
    return _emit(result, dt, "ProdBackward1", "prod", (self,), {"self": self}, save_result="result", out=out,
                 values={"dim": saved_dims(dim), "keepdim": keepdim})


# --------------------------------------------------------------------------- extrema
def _return_type(name: str) -> type[tuple]:
    """torch.return_types.max and friends: a (values, indices) tuple with torch's repr."""
    def __new__(cls: type, values: Tensor, indices: Tensor) -> tuple:  # noqa: N807
        return tuple.__new__(cls, (values, indices))

    def __repr__(self: tuple) -> str:  # noqa: N807
        return f"torch.return_types.{name}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    namespace = {
        "__new__": __new__, "__repr__": __repr__, "__str__": __repr__, "__slots__": (),
        "__module__": "torch.return_types", "_fields": ("values", "indices"),
        "values": property(operator.itemgetter(0)), "indices": property(operator.itemgetter(1)),
        "n_fields": 2, "n_sequence_fields": 2, "n_unnamed_fields": 0,
    }
    return type(name, (tuple,), namespace)


_RETURN_TYPES: dict[str, type[tuple]] = {}


def return_type(name: str, values: Tensor, indices: Tensor) -> tuple:
    """A `torch.return_types.<name>` (values, indices) pair (sort, topk, ...)."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        cls = _RETURN_TYPES[name] = _return_type(name)
    return cls(values, indices)


class return_types:  # noqa: N801 - torch's name
    """The namedtuple types torch.max / torch.min return (`torch.return_types`)."""

    max = _return_type("max")
    min = _return_type("min")
    max_out = _return_type("max_out")
    min_out = _return_type("min_out")


def _extreme(self: Tensor, dim: Any, keepdim: bool, out: Any, op: str) -> Any:
    """max/min: the whole tensor (MaxBackward1, ties share the gradient evenly) or along one dim
    (values and indices; MaxBackward0 saves only the indices and routes the gradient through them)."""
    pick, arg = (np.max, np.argmax) if op == "max" else (np.min, np.argmin)
    title = op.capitalize()
    x = self._numpy_view()
    if dim is _ABSENT:
        if keepdim:
            raise _keepdim_without_dim(op)
        _check_nonempty(self, op, (), False)
        return _emit(pick(x), self.dtype, f"{title}Backward1", op, (self,), {"self": self}, save_result="result",
                     out=out)
    if not isinstance(dim, int):
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    dims = _dims(dim, self.ndim)
    _check_nonempty(self, op, dims, True)
    if dims:
        values = pick(x, axis=dims[0], keepdims=keepdim)
        indices = arg(x, axis=dims[0], keepdims=keepdim)
    else:
        values, indices = x.copy(), np.zeros((), np.int64)

    if out is not None:
        write_out(out[0], _dense(values), op, (self,), after_resize=_NO_CHECK)
        write_out(out[1], _dense(indices, np.int64), op, (self,), after_resize=_NO_CHECK)
        return getattr(return_types, op + "_out")(out[0], out[1])
    index_tensor = Tensor._wrap(_dense(indices, np.int64), dtypes.int64)
    value_tensor = Tensor._wrap(_dense(values, self.dtype.np), self.dtype)
    record(f"{title}Backward0", value_tensor, (self,), None, None, {"indices": index_tensor},
           {"dim": saved_dims(dim), "keepdim": keepdim, "self_sym_sizes": self._shape})
    return getattr(return_types, op)(value_tensor, index_tensor)


def _unsqueeze(g: np.ndarray, dims: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """A reduced array with its reduced dims back as size 1, ready to broadcast against the input."""
    return np.expand_dims(g, tuple(sorted(dims))) if dims and not keepdim else g


def _median(self: Tensor, dim: Any, keepdim: bool, ignore_nan: bool) -> Any:
    """median/nanmedian: the lower of the two middle values (NaN if any is NaN, for median; the
    non-NaN values', for nanmedian). Over the whole tensor the gradient is shared evenly by the
    elements equal to the result (MedianBackward0); along a dim it goes to the picked index."""
    op = "nanmedian" if ignore_nan else "median"
    title = "Nanmedian" if ignore_nan else "Median"
    x = self._numpy_view()

    def middle(v: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(v, axis=axis, kind="stable")  # NaNs sort last
        count = v.shape[axis] - (np.isnan(v).sum(axis=axis, keepdims=True) if ignore_nan else 0)
        k = np.maximum((count - 1) // 2, 0) if ignore_nan else np.full_like(
            np.take(order, [0], axis=axis), (v.shape[axis] - 1) // 2)
        if not ignore_nan:
            has_nan = np.isnan(v).any(axis=axis, keepdims=True)
            first_nan = np.argmax(np.isnan(np.take_along_axis(v, order, axis=axis)), axis=axis)
            k = np.where(has_nan, np.expand_dims(first_nan, axis), k)
        picked = np.take_along_axis(order, np.asarray(k, dtype=np.int64), axis=axis)
        return np.take_along_axis(v, picked, axis=axis), picked

    if dim is _ABSENT:
        if x.size == 0:
            value = np.array(np.nan, dtype=x.dtype)
        else:
            value = middle(x.reshape(-1), 0)[0].reshape(())

        return _emit(value, self.dtype, f"{title}Backward0", op, (self,), {"self": self}, save_result="result")
    d = geometry.wrap_dim(dim, builtins.max(self.ndim, 1))
    if self.ndim == 0:
        values, indices = x.copy(), np.zeros((), np.int64)
    else:
        values, indices = middle(x, d)
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
    index_tensor = Tensor._wrap(_dense(indices, np.int64), dtypes.int64)
    value_tensor = _emit(values, self.dtype, f"{title}Backward1", op, (self,), {"indices": index_tensor},
                         values={"dim": saved_dims(dim), "keepdim": keepdim, "self_sym_sizes": self._shape})
    return return_type(op, value_tensor, index_tensor)


def median(self: Tensor, dim: Any = _ABSENT, keepdim: bool = False) -> Any:
    return _median(self, dim, keepdim, ignore_nan=False)


def nanmedian(self: Tensor, dim: Any = _ABSENT, keepdim: bool = False) -> Any:
    return _median(self, dim, keepdim, ignore_nan=True)


def _elementwise(pick: Callable[[Tensor, Tensor], Tensor], self: Tensor, other: Tensor, out: Tensor | None,
                 op: str) -> Tensor:
    """max(a, b) / min(a, b) are torch.maximum / torch.minimum."""
    if out is None:
        return pick(self, other)
    if needs_grad(self, other):
        raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op=op))
    return write_out(out, pick(self, other)._numpy_view(), op, ())


def max(self: Tensor, dim: Any = _ABSENT, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A001
    if isinstance(dim, Tensor):
        return _elementwise(maximum, self, dim, out, "maximum")
    return _extreme(self, dim, keepdim, out, "max")


def min(self: Tensor, dim: Any = _ABSENT, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A001
    if isinstance(dim, Tensor):
        return _elementwise(minimum, self, dim, out, "minimum")
    return _extreme(self, dim, keepdim, out, "min")


def _amax_amin(self: Tensor, dim: Dim, keepdim: bool, out: Tensor | None, op: str) -> Tensor:
    """amax/amin: a gradient split evenly among the tied extremes of each reduced slice."""
    dims = _dims(dim, self.ndim)
    _check_nonempty(self, op, dims, dim not in (None, (), []), as_given=_listed(dim) or ())
    pick = np.max if op == "amax" else np.min
    result = pick(self._numpy_view(), axis=dims, keepdims=keepdim)
    return _emit(result, self.dtype, "AmaxBackward0" if op == "amax" else "AminBackward0", op, (self,),
                 {"self": self}, save_result="result", out=out,
                 values={"dim": saved_dims(_listed(dim) or ()), "keepdim": keepdim})


def amax(self: Tensor, dim: Dim = (), keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    return _amax_amin(self, dim, keepdim, out, "amax")


def amin(self: Tensor, dim: Dim = (), keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    return _amax_amin(self, dim, keepdim, out, "amin")


def _arg_extreme(self: Tensor, dim: int | None, keepdim: bool, out: Tensor | None, op: str) -> Tensor:
    """argmax/argmin: int64 positions, of the flattened tensor when no dim is given."""
    if self.dtype is dtypes.bool_:
        raise RuntimeError(f"{op}(): does not support bool input")
    dims = _dims(dim, self.ndim) if dim is not None else ()
    _check_nonempty(self, op, dims, dim is not None, arg=True)
    pick = np.argmax if op == "argmax" else np.argmin
    x = self._numpy_view()
    if dim is None:
        result = np.full((1,) * self.ndim if keepdim else (), pick(x), dtype=np.int64)
    else:
        result = pick(x, axis=dims[0], keepdims=keepdim) if dims else np.zeros((), np.int64)
    return _emit(result, dtypes.int64, "", op, (), out=out)


def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    return _arg_extreme(self, dim, keepdim, out, "argmax")


def argmin(self: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    return _arg_extreme(self, dim, keepdim, out, "argmin")


# --------------------------------------------------------------------------- variance and std
def _correction(unbiased: bool | None, correction: float | None, op: str) -> float:
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments - got both `unbiased` and "
                        "`correction`")
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def _moments(self: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: float | None,
             op: str) -> tuple[np.ndarray, np.ndarray, tuple[int, ...], float, bool]:
    """var and mean over `dim` (computed in float64, then rounded), the reduced dims and correction.

    Divides by max(0, N - correction) like torch, warning when that leaves no degrees of freedom."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{op if op.endswith('_mean') else 'std and var'} only support floating point and complex "
                           "dtypes")
    c = _correction(unbiased, correction, op)
    dims = _dims(dim, self.ndim)
    count = _counted(self._shape, dims)
    if count - c <= 0:
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    x = self._numpy_view().astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.sum(x, axis=dims, keepdims=True) / count
        var = np.sum(np.square(x - mu), axis=dims, keepdims=keepdim) / np.float64(builtins.max(0, count - c))
    return var, mu if keepdim else np.squeeze(mu, axis=dims), dims, c, dim is None


def _moment_values(dim: Any, unbiased: Any, correction: Any, keepdim: bool) -> dict[str, Any]:
    """VarBackward0's fields as torch keeps them: correction None only for the whole-tensor default."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None and unbiased is not None:
        correction = 1 if unbiased else 0
    if correction is None and dim is not None:
        correction = 1
    return {"correction": correction, "dim": saved_dims(_listed(dim)) if dim is not None else None,
            "keepdim": keepdim}


def var(self: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None, out: Tensor | None = None) -> Tensor:
    v, _, dims, c, whole = _moments(self, dim, unbiased, keepdim, correction, "var")
    return _emit(v, self.dtype, "VarBackward0", "var", (self,), {"self": self}, out=out,
                 values=_moment_values(dim, unbiased, correction, keepdim))


def std(self: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None, out: Tensor | None = None) -> Tensor:
    v, _, dims, c, whole = _moments(self, dim, unbiased, keepdim, correction, "std")
    return _emit(np.sqrt(v), self.dtype, "StdBackward0", "std", (self,), {"self": self}, save_result="result",
                 out=out, values=_moment_values(dim, unbiased, correction, keepdim))


def _two_moments(self: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: float | None,
                 take_root: bool) -> tuple[Tensor, Tensor]:
    """var_mean / std_mean: one node with two outputs, whose backward adds both contributions."""
    op = "std_mean" if take_root else "var_mean"
    v, mu, dims, c, whole = _moments(self, dim, unbiased, keepdim, correction, op)
    first = Tensor._wrap(_dense(np.sqrt(v) if take_root else v, self.dtype.np), self.dtype)
    second = Tensor._wrap(_dense(mu, self.dtype.np), self.dtype)
    record("StdMeanBackward0" if take_root else "VarMeanBackward0", (first, second), (self,), None,
           {"self": self}, {"result0": first} if take_root else None,
           _moment_values(dim, unbiased, correction, keepdim))
    return first, second


def var_mean(self: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    return _two_moments(self, dim, unbiased, keepdim, correction, take_root=False)


def std_mean(self: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    return _two_moments(self, dim, unbiased, keepdim, correction, take_root=True)


# --------------------------------------------------------------------------- norms and logsumexp
def _vector_norm(x: np.ndarray, p: float, dims: tuple[int, ...], keepdim: bool) -> np.ndarray:
    a = np.abs(x)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
    if p == 1:
        return np.sum(a, axis=dims, keepdims=keepdim)
    if p == math.inf:
        return np.max(a, axis=dims, keepdims=keepdim)
    if p == -math.inf:
        return np.min(a, axis=dims, keepdims=keepdim)
    if p == 0:
        return np.sum(a != 0, axis=dims, keepdims=keepdim).astype(x.dtype)
    with np.errstate(divide="ignore"):
        return np.power(np.sum(np.power(a, p), axis=dims, keepdims=keepdim), 1.0 / p)


def _contiguous_rows(self: Tensor, dims: tuple[int, ...]) -> np.ndarray | None:
    """The input as (kept, reduced) rows where ATen's last-dim norm kernel takes it: a contiguous
    tensor whose reduced dims (those longer than one) all follow its kept ones; else None."""
    long = [d for d, n in enumerate(self._shape) if n > 1]
    reduced = [d for d in long if d in dims]
    if not reduced or builtins.any(d not in dims for d in long if d > reduced[0]):
        return None
    width = math.prod(self._shape[d] for d in reduced)
    return self._numpy_view().reshape(-1, width)


def norm(self: Tensor, p: float | str | None = "fro", dim: Dim = None, keepdim: bool = False,
         dtype: Any = None, *, out: Tensor | None = None) -> Tensor:
    """torch.norm for vector orders, which torch 2 routes to linalg.vector_norm."""
    if p == "fro" and isinstance(dim, (tuple, list)) and len(dim) > 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    if p is None or p == "fro":
        p = 2
    elif p == "nuc":
        raise NotImplementedError("norm(p='nuc') needs an SVD, which this engine does not provide")
    elif isinstance(p, str):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if not self.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {self.dtype.short}")
    dims = _dims(dim, self.ndim)
    if math.isinf(p) and builtins.any(self._shape[d] == 0 for d in dims):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {'inf' if p > 0 else '-inf'} norm on an "
                           "empty tensor because the operation does not have an identity")
    dt = dtypes.to_dtype(dtype) if dtype is not None else self.dtype
    float32_two = p == 2 and dt is dtypes.float32 is self.dtype and self.is_contiguous() and self.numel() > 0
    rows = _contiguous_rows(self, dims) if float32_two else None
    # ATen's float32 2-norm kernels, in their order: the last-dim one (each row on one thread), or
    # the generic one where a single thread adds everything
    if rows is not None or (float32_two and self.numel() <= summation.GRAIN_SIZE):
        x, kept = self._numpy_view(), [d for d in range(self.ndim) if d not in dims]
        result = two_norm_rows(rows) if rows is not None else \
            two_norm_sequential(np.transpose(x, kept + list(dims)).reshape(math.prod(x.shape[d] for d in kept), -1))
        result = result.reshape(tuple(1 if d in dims else n for d, n in enumerate(self._shape)))
        result = result if keepdim else result.reshape([n for d, n in enumerate(self._shape) if d not in dims])
    else:
        result = _vector_norm(self._numpy_view().astype(np.float64), float(p), dims, keepdim)
    return _emit(result, dt, "LinalgVectorNormBackward0", "linalg_vector_norm", (self,), {"self": self},
                 save_result="result", out=out,
                 values={"dim": saved_dims(_listed(dim)) if dim is not None else None, "keepdim": keepdim,
                         "ord": p})


def logsumexp(self: Tensor, dim: Dim, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """log(sum(exp(x - m))) + m with m the slice max (0 where it is infinite, as torch does)."""
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' (position 1) must be tuple of ints, not NoneType")
    dims = _dims(dim, self.ndim)
    dt = self.dtype if self.dtype.is_floating_point else dtypes.get_default_dtype()
    x = self._numpy_view().astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        shift = np.max(x, axis=dims, keepdims=True, initial=-np.inf)
        shift = np.where(np.isinf(shift), 0, shift)
        total = np.log(np.sum(np.exp(x - shift), axis=dims, keepdims=True)) + shift
    result = total if keepdim else np.squeeze(total, axis=dims)
    return _emit(result, dt, "LogsumexpBackward0", "logsumexp", (self,), {"self": self}, save_result="result",
                 out=out, values={"dim": saved_dims(_listed(dim)), "keepdim": keepdim})


# --------------------------------------------------------------------------- logical reductions
def _logical(self: Tensor, dim: Dim, keepdim: bool, out: Tensor | None, op: str) -> Tensor:
    """all/any: bool results (uint8 for uint8 input, as torch keeps it)."""
    dims = _dims(dim, self.ndim)
    reduce = np.all if op == "all" else np.any
    dt = dtypes.uint8 if self.dtype is dtypes.uint8 else dtypes.bool_
    return _emit(reduce(self._numpy_view(), axis=dims, keepdims=keepdim), dt, "", op, (), out=out)


def all(self: Tensor, dim: Dim = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:  # noqa: A001
    return _logical(self, dim, keepdim, out, "all")


def any(self: Tensor, dim: Dim = None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:  # noqa: A001
    return _logical(self, dim, keepdim, out, "any")


def count_nonzero(self: Tensor, dim: Dim = None) -> Tensor:
    dims = _dims(dim, self.ndim)
    return _emit(np.count_nonzero(self._numpy_view(), axis=dims), dtypes.int64, "", "count_nonzero", ())


# --------------------------------------------------------------------------- scans and softmax
def _cumulative_acc(dt: dtypes.dtype) -> np.dtype:
    """The running total's type in ATen's CPU cumsum/cumprod (acc_type<T, false>): double for float32
    and float64, float for float16 and bfloat16."""
    return np.dtype(np.float64) if dt in (dtypes.float32, dtypes.float64) else _accumulate_in(dt)


def cumsum(self: Tensor, dim: int, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    d = geometry.wrap_dim(operator.index(dim), self.ndim)
    dt = dtypes.to_dtype(dtype) if dtype is not None else (out.dtype if out is not None
                                                           else _sum_dtype(self.dtype))
    x = self._numpy_view()
    with np.errstate(all="ignore"):  # torch never warns about inf/nan sums
        if self.ndim and dt.is_floating_point:  # from 0 (so -0. totals +0.), in acc_type: float32 sums in double
            result = np.cumsum(x, axis=d, dtype=_cumulative_acc(dt)) + 0.0
        else:
            result = np.cumsum(x, axis=d, dtype=_accumulate_in(dt)) if self.ndim else x.astype(dt.np)
    return _emit(result, dt, "CumsumBackward0", "cumsum", (self,), out=out,
                 values={"dim": saved_dims(dim), "_self_dtype": self.dtype})


def _cumprod_backward(g: np.ndarray, x: np.ndarray, result: np.ndarray, d: int) -> np.ndarray:
    """d/dx_i of sum_j g_j prod_{k<=j} x_k: reversed cumsum of g * result over x where x has no
    zeros; along slices with zeros, the products of the other factors (no division)."""
    if x.ndim == 0:
        return g.astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        fast = np.flip(np.cumsum(np.flip(g * result, d), axis=d), d) / x
    if not (x == 0).any():
        return fast.astype(x.dtype)
    moved_x, moved_g = np.moveaxis(x, d, -1), np.moveaxis(g, d, -1)
    grad = np.moveaxis(fast, d, -1).copy()
    n = moved_x.shape[-1]
    for index in np.ndindex(moved_x.shape[:-1]):
        row = moved_x[index]
        if not (row == 0).any():
            continue
        for i in range(n):
            others = row.copy()
            others[i] = 1
            grad[index + (i,)] = np.sum(moved_g[index][i:] * np.cumprod(others)[i:])
    return np.moveaxis(grad, -1, d).astype(x.dtype)


def cumprod(self: Tensor, dim: int, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    d = geometry.wrap_dim(operator.index(dim), self.ndim)
    dt = dtypes.to_dtype(dtype) if dtype is not None else (out.dtype if out is not None
                                                           else _sum_dtype(self.dtype))
    x = self._numpy_view()
    with np.errstate(all="ignore"):
        acc = _cumulative_acc(dt) if dt.is_floating_point else _accumulate_in(dt)
        result = np.cumprod(x, axis=d, dtype=acc) if self.ndim else x.astype(dt.np)
    return _emit(result, dt, "CumprodBackward0", "cumprod", (self,), {"self": self}, save_result="result", out=out,
                 values={"dim": saved_dims(dim), "_self_dtype": self.dtype})


def _softmax_family(self: Tensor, dim: int, dtype: Any, out: Tensor | None, op: str) -> Tensor:
    """softmax/log_softmax save their result. With dtype=, the input is first converted (a
    ToCopyBackward0 node), as torch does. Under out= with a grad input, torch raises nothing and
    gives out a NotImplemented node whose backward fails."""
    source = self.to(dtypes.to_dtype(dtype)) if dtype is not None else self
    d = geometry.wrap_dim(operator.index(dim), self.ndim)
    if not source.dtype.is_floating_point:
        kernel = "lastdim_kernel_impl" if d == builtins.max(self.ndim - 1, 0) else "kernel_impl"
        raise NotImplementedError(f"\"{op}_{kernel}\" not implemented for '{source.dtype.short}'")
    forward = activation.softmax if op == "softmax" else activation.log_softmax
    x = source._numpy_view()
    result = forward(x.astype(_accumulate_in(source.dtype)), d).astype(source.dtype.np) if x.size else \
        np.empty(x.shape, source.dtype.np)
    if out is not None and needs_grad(source):
        target = write_out(out, _dense(result), op, ())
        record("NotImplemented", target, (source,), values={"_op": op})
        return target
    return _emit(result, source.dtype, "SoftmaxBackward0" if op == "softmax" else "LogSoftmaxBackward0", op,
                 (source,), save_result="result", out=out, values={"dim": saved_dims(dim), "_d": d})


def softmax(self: Tensor, dim: int, dtype: Any = None, *, out: Tensor | None = None) -> Tensor:
    return _softmax_family(self, dim, dtype, out, "softmax")


def log_softmax(self: Tensor, dim: int, dtype: Any = None, *, out: Tensor | None = None) -> Tensor:
    return _softmax_family(self, dim, dtype, out, "log_softmax")


def _numpy_names(fn: Callable[..., Any]) -> Callable[..., Any]:
    """torch also accepts numpy's `axis=` and `keepdims=` for `dim=` and `keepdim=`."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)
    return call


METHODS: dict[str, Callable[..., Any]] = {"sum": sum, **{fn.__name__: _numpy_names(fn) for fn in (
    mean, prod, max, min, amax, amin, argmax, argmin, var, std, norm, logsumexp, all, any, count_nonzero,
    cumsum, cumprod, softmax, log_softmax, median, nanmedian)}}
FUNCTIONS: dict[str, Any] = {**METHODS, "var_mean": _numpy_names(var_mean), "std_mean": _numpy_names(std_mean),
                             "return_types": return_types}
