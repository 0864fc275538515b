"""Tensor factories and the NumPy bridge (from_numpy / as_tensor share memory; tensor() copies)."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.ops.views import sizes_arg
from engine.quiet import quietly
from engine.storage import Storage, UntypedStorage, hold_for_numpy
from engine.tensor import Size, Tensor, device


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not t.dtype.is_differentiable:
            raise RuntimeError(errors.REQUIRES_GRAD_DTYPE_FACTORY)
        t._requires_grad = True
    return t


def _ranges_as_lists(data: Any) -> Any:
    """torch.tensor reads any Python sequence: a range (`torch.tensor(range(5))`) as the list it is."""
    if isinstance(data, range):
        return list(data)
    if isinstance(data, (list, tuple)) and any(isinstance(x, (range, list, tuple)) for x in data):
        return type(data)(_ranges_as_lists(x) for x in data)
    return data


def _check_device(dev: Any) -> None:
    if dev is not None:
        device(dev)


def _infer_dtype(data: Any) -> dtypes.dtype:
    """torch.tensor's inference: bools stay bool, integers become int64, any float the default float;
    tensors and arrays inside the data bring their own dtype."""
    found: list[dtypes.dtype] = []

    def walk(x: Any) -> None:
        if isinstance(x, Tensor):
            found.append(x.dtype)
        elif isinstance(x, np.ndarray | np.generic):
            found.append(dtypes.from_numpy_dtype(np.asarray(x).dtype))
        elif isinstance(x, (list, tuple)):
            for item in x:
                walk(item)
        elif isinstance(x, bool):
            found.append(dtypes.bool_)
        elif isinstance(x, numbers.Integral):
            found.append(dtypes.int64)
        elif isinstance(x, numbers.Real):
            found.append(dtypes.get_default_dtype())
        elif isinstance(x, numbers.Complex):
            found.append(dtypes.default_complex())
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")

    walk(data)
    result = found[0] if found else dtypes.get_default_dtype()
    for d in found[1:]:
        result = dtypes.promote_types(result, d)
    return result


def _check_rectangular(data: Any, dim: int = 0) -> tuple[int, ...]:
    """The nested-list shape, or torch's error for ragged data."""
    if not isinstance(data, (list, tuple)):
        return tuple(data.shape) if isinstance(data, (np.ndarray, Tensor)) else ()
    shapes = [_check_rectangular(item, dim + 1) for item in data]
    if not shapes:
        return (0,)
    first = data[0]
    for item, shape in zip(data, shapes):
        if isinstance(first, (list, tuple)) != isinstance(item, (list, tuple)):
            if isinstance(first, (list, tuple)):
                raise TypeError("not a sequence")
            raise TypeError(f"'{type(item).__name__}' object cannot be interpreted as an integer")
        if isinstance(item, (list, tuple)) and len(item) != len(first):
            raise ValueError(f"expected sequence of length {len(first)} at dim {dim + 1} (got {len(item)})")
        if shape != shapes[0]:
            raise ValueError(f"expected sequence of length {shapes[0][0]} at dim {dim + 1} (got {shape[0]})")
    return (len(data), *shapes[0])


def _to_nested(data: Any, integral: dtypes.dtype | None = None) -> Any:
    """The data as numpy takes it; with an integer dtype, each Python number checked first."""
    if isinstance(data, Tensor):
        return data._numpy_view()
    if isinstance(data, (list, tuple)):
        return [_to_nested(x, integral) for x in data]
    return data if integral is None else _integral(data, integral)


def _converted(nested: Any, target: dtypes.dtype) -> np.ndarray:
    """Nested data as an array of `target`; a double becomes a half through float, as c10 converts it."""
    if target is dtypes.float16:
        return dtypes.through_float(np.asarray(nested), target).astype(target.np)
    return np.array(nested, dtype=target.np)


def _integral(value: Any, target: dtypes.dtype) -> Any:
    """A Python number stored into an integer tensor as torch.tensor stores it: an int is unpacked
    as a C++ long long first, then each is range-checked (c10's checked_convert, naming the dtype);
    a float truncates toward zero (2.**63 into int64 wraps to its lowest), a negative int wraps."""
    if type(value) is int:
        if not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
    elif not isinstance(value, float):  # numpy's float64 is a float too
        return value
    if dtypes.overflows(value, target):
        raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")
    number = int(value)
    if number == 2**63:
        return -2**63
    return number % 256 if target is dtypes.uint8 else number


def tensor(data: Any, *, dtype: dtypes.dtype | None = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A copy of `data` in a new storage (even from an ndarray or another tensor)."""
    _check_device(device)
    data = _ranges_as_lists(data)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning, stacklevel=2)
    if isinstance(data, np.ndarray):
        target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.from_numpy_dtype(data.dtype)
    else:
        target = dtypes.to_dtype(dtype) if dtype is not None else _infer_dtype(data)
    _check_rectangular(data)
    checked = not isinstance(data, np.ndarray) and target is not dtypes.bool_ and not target.is_floating_point \
        and not target.is_complex
    # a float beyond float32's range is inf, an array's inf into int64 its lowest, silently as in torch
    array = quietly(_converted, _to_nested(data, target if checked else None), target)
    return _finish(Tensor._wrap(np.require(array, requirements='C'), target), requires_grad)


def _filled(shape: tuple[int, ...], value: Any, dtype: dtypes.dtype) -> Tensor:
    t = Tensor._empty(shape, dtype)
    if value is not None and t.numel():
        t._storage.data.fill(value)
    return t


def check_sizes(shape: tuple[int, ...], op: str | None = None) -> None:
    """Negative sizes fail as torch words it (zeros says so in its own way)."""
    if any(s < 0 for s in shape):
        if op == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        negative = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {list(shape)}")


def size_argument(op: str, positional: tuple[Any, ...], size: Any) -> tuple[int, ...]:
    """The shape a factory was given, positionally (`zeros(2, 3)`) or as `size=(2, 3)`."""
    if size is not None:
        if positional:
            raise TypeError(f"{op}() got multiple values for argument 'size'")
        positional = (size,)
    return sizes_arg(positional)


def _factory(fill: Any, op: str) -> Any:
    def make(*positional: Any, size: Any = None, dtype: dtypes.dtype | None = None, device: Any = None,
             requires_grad: bool = False, out: Tensor | None = None, **_: Any) -> Tensor:
        _check_device(device)
        shape = size_argument(op, positional, size)
        check_sizes(shape, op)
        target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
        return _finish(_filled(shape, fill, target), requires_grad)
    return make


zeros = _factory(0, "zeros")
ones = _factory(1, "ones")
empty = _factory(0, "empty")


def full(size: Sequence[int], fill_value: Any, *, dtype: dtypes.dtype | None = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    _check_device(device)
    if dtype is None:
        dtype = (dtypes.bool_ if isinstance(fill_value, bool) else dtypes.int64
                 if isinstance(fill_value, numbers.Integral) else dtypes.get_default_dtype()
                 if isinstance(fill_value, numbers.Real) else dtypes.default_complex())
    shape = sizes_arg([size])
    check_sizes(shape)
    dtype = dtypes.to_dtype(dtype)
    t = Tensor._empty(shape, dtype)
    t._storage.data.fill(dtypes.checked_scalar(fill_value, dtype, single=t.numel() == 1))
    return _finish(t, requires_grad)


def _filled_like(other: Tensor, value: Any, dtype: dtypes.dtype) -> Tensor:
    """`*_like` factories keep a dense input's layout (torch.preserve_format)."""
    t = Tensor._empty_strided(other._shape, geometry.like_strides(other._shape, other._stride), dtype)
    if value is not None and t.numel():
        t._storage.data.fill(value)
    return t


def _like(fill: Any) -> Any:
    def make(other: Tensor, *, dtype: dtypes.dtype | None = None, device: Any = None,
             requires_grad: bool = False, memory_format: Any = None) -> Tensor:
        dtype = dtypes.to_dtype(dtype) if dtype is not None else None
        return _finish(_filled_like(other, fill, dtype or other.dtype), requires_grad)
    return make


zeros_like = _like(0)
ones_like = _like(1)
empty_like = _like(0)


def full_like(other: Tensor, fill_value: Any, *, dtype: dtypes.dtype | None = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    dtype = dtypes.to_dtype(dtype) if dtype is not None else other.dtype
    t = _filled_like(other, None, dtype)
    t._storage.data.fill(dtypes.checked_scalar(fill_value, dtype, single=t.numel() == 1))
    return _finish(t, requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: dtypes.dtype | None = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    dtype = dtypes.to_dtype(dtype) if dtype is not None else None
    _check_device(device)
    if end is None:
        start, end = 0, start
    values = [start, end, step]
    if dtype is None:
        floating = any(isinstance(v, float) or (isinstance(v, Tensor) and v.dtype.is_floating_point)
                       for v in values)
        dtype = dtypes.get_default_dtype() if floating else dtypes.int64
    if dtype is dtypes.bool_:  # ATen's kernel is dispatched over every dtype but bool, before its checks
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    start, end, step = (float(v) if isinstance(v, Tensor) else v for v in values)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = max(0, math.ceil((end - start) / step))
    array = (start + np.arange(count, dtype=np.float64) * step).astype(dtype.np) if dtype.is_floating_point \
        else np.arange(start, end, step, dtype=dtype.np)
    return _finish(Tensor._wrap(array, dtype), requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: dtypes.dtype | None = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    dtype = dtypes.to_dtype(dtype) if dtype is not None else None
    target = dtype or dtypes.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _finish(Tensor._wrap(_linspace(start, end, steps, target), target), requires_grad)


def _linspace(start: float, end: float, steps: int, target: dtypes.dtype) -> np.ndarray:
    """ATen's linspace kernel: the first half counts up from start, the second down from end, each
    element one fused multiply-add in the dtype's arithmetic (start + step * i, end - step * j)."""
    if steps <= 1 or not target.is_floating_point:
        return np.linspace(start, end, steps).astype(target.np)
    from engine.kernels.fma import fma32

    t = target.np.type
    first, last = t(start), t(end)
    step = (last - first) / t(steps - 1)
    idx = np.arange(steps)
    halfway = steps // 2
    up = idx[:halfway].astype(target.np)
    down = (steps - 1 - idx[halfway:]).astype(target.np)
    if target.itemsize == 8:
        values = np.concatenate([_fma64(up, step, first), _fma64(down, -step, last)])
    elif target.itemsize == 4:
        values = np.concatenate([fma32(up, step, first), fma32(down, -step, last)])
    else:
        values = np.where(idx < halfway, first + step * idx, last - step * (steps - 1 - idx))
    return values.astype(target.np)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: dtypes.dtype | None = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    """ATen's logspace: base ** e, the exponents counted up from start for the first half and down
    from end for the rest in double (start and end taken in the dtype first, so an integer dtype
    truncates them), each power the C library's pow (math.pow: numpy's own float64 power differs
    in the last bit), rounded (or truncated) into the dtype."""
    dtype = dtypes.to_dtype(dtype) if dtype is not None else None
    target = dtype or dtypes.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if target.is_complex:
        raise NotImplementedError("torch.logspace with a complex dtype is not supported by this engine")
    if steps <= 1:  # nothing, or one element filled with pow(base, start) taken as doubles
        data = np.empty(0, target.np) if steps == 0 else \
            dtypes.checked_scalar(_pow(float(base), float(start)), target, single=True).reshape(1)
        return _finish(Tensor._wrap(data, target), requires_grad)
    dtypes.check_fits(start, target)  # Scalar::to<T>, checked
    dtypes.check_fits(end, target)
    if target.is_floating_point:
        first, last = target.np.type(start), target.np.type(end)
        with np.errstate(over="ignore", invalid="ignore"):
            span = float(last - first)
    else:  # as C++ converts: an int wraps into the dtype, a float truncates
        first, last = (int(np.array(int(v) if isinstance(v, numbers.Integral) else math.trunc(v)).astype(target.np))
                       for v in (start, end))
        span = float(last - first)
    step = span / (steps - 1)
    halfway = steps // 2
    exponents = [float(first) + step * i if i < halfway else float(last) - step * (steps - i - 1)
                 for i in range(steps)]
    values = np.array([_pow(float(base), e) for e in exponents], np.float64)
    if target.is_floating_point:
        with np.errstate(over="ignore", invalid="ignore"):
            data = values.astype(target.np)
    else:
        data = _c_cast(values, target)
    return _finish(Tensor._wrap(data, target), requires_grad)


def _c_cast(values: np.ndarray, target: dtypes.dtype) -> np.ndarray:
    """double to an integer dtype as x86 code converts it: truncated through a 32-bit integer (a
    64-bit one for int64), the integer minimum where it does not fit, then the low bits."""
    wide = 64 if target.itemsize == 8 else 32
    low, high = -2.0 ** (wide - 1), 2.0 ** (wide - 1)
    with np.errstate(invalid="ignore"):
        fits = (values >= low) & (values < high)
        ints = np.where(fits, np.trunc(np.where(fits, values, 0)), low).astype(np.int64 if wide == 64 else np.int32)
    return ints.astype(target.np)


def _pow(base: float, exponent: float) -> float:
    """C's pow, with inf where it overflows (math.pow raises)."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf
    except ValueError:  # a negative base to a fractional power
        return math.nan


def _fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """float64 a*b+c as one fused multiply-add (error-free product and sum, then one rounding)."""
    a = np.asarray(a, dtype=np.float64)
    b, c = np.float64(b), np.float64(c)
    product = a * b

    def split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scaled = 134217729.0 * x
        high = scaled - (scaled - x)
        return high, x - high

    ah, al = split(a)
    bh, bl = split(np.full_like(a, b))
    product_error = ((ah * bh - product) + ah * bl + al * bh) + al * bl
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    with np.errstate(invalid="ignore"):
        result = total + (sum_error + product_error)
    return np.where(np.isfinite(result), result, product + c)


def eye(n: int, m: int | None = None, *, dtype: dtypes.dtype | None = None, device: Any = None,
        requires_grad: bool = False) -> Tensor:
    dtype = dtypes.to_dtype(dtype) if dtype is not None else None
    target = dtype or dtypes.get_default_dtype()
    return _finish(Tensor._wrap(np.eye(n, m, dtype=target.np), target), requires_grad)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor over the array's own memory: writes on either side show on the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtype = dtypes.from_numpy_dtype(array.dtype)
    itemsize = array.itemsize
    if any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides "
            "are not currently supported. (You can probably work around this by making a copy of your array "
            " with array.copy().) ")
    if any(s % itemsize for s in array.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    stride = tuple(s // itemsize for s in array.strides)
    span = 1 + sum((n - 1) * st for n, st in zip(array.shape, stride)) if array.size else 0
    flat = _flat_span(array, span)
    if not array.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This "
            "means writing to this tensor will result in undefined behavior. You may want to copy the array to "
            "protect its data or make it writable before converting it to a tensor. This type of warning will "
            "be suppressed for the rest of this program.", UserWarning, stacklevel=2)
    shape = tuple(array.shape)
    storage = Storage.wrap(flat)
    hold_for_numpy(storage)
    return Tensor._make(storage, 0, shape, stride if array.size else _contig(shape), dtype)


def _flat_span(array: np.ndarray, span: int) -> np.ndarray:
    """A flat array over the `span` elements an array touches, based on the array's own root buffer
    (so the bridge is visible as shared memory to anyone who looks at numpy's base chain)."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.flags.c_contiguous and array.size:
        start = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return np.ndarray((span,), array.dtype, buffer=root, offset=start)
    if array.size == 0:
        return np.empty(0, dtype=array.dtype)
    return np.lib.stride_tricks.as_strided(array, shape=(span,), strides=(array.itemsize,))


def _contig(shape: tuple[int, ...]) -> tuple[int, ...]:
    from engine.geometry import contiguous_strides

    return contiguous_strides(shape)


def as_tensor(data: Any, dtype: dtypes.dtype | None = None, device: Any = None) -> Tensor:
    """Shares memory with an ndarray (or returns the tensor itself) when no conversion is needed."""
    dtype = dtypes.to_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        shared = from_numpy(data)
        return shared if dtype is None or dtype is shared.dtype else shared.to(dtype)
    return tensor(data, dtype=dtype)


def scalar_tensor(value: Any, *, dtype: dtypes.dtype | None = None, device: Any = None) -> Tensor:
    dtype = dtypes.to_dtype(dtype) if dtype is not None else None
    target = dtype or dtypes.get_default_dtype()
    return Tensor._wrap(np.array(value, dtype=target.np), target)


def legacy_new(dtype: dtypes.dtype, *args: Any, **kwargs: Any) -> Tensor:
    """The legacy constructors `torch.FloatTensor(10)` (uninitialised sizes) and
    `torch.FloatTensor([1, 2])` (data)."""
    if kwargs.get("device") is not None:
        device(kwargs["device"])
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)) and not isinstance(args[0], Size):
        return tensor(args[0], dtype=dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0] if args[0].dtype is dtype else args[0].to(dtype)
    shape = sizes_arg(args)
    check_sizes(shape)
    return _filled(shape, 0, dtype)


class _LegacyTensorType(type):
    """`torch.FloatTensor` and friends: callable constructors that also work with isinstance."""

    dtype: dtypes.dtype

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:  # type: ignore[override]
        return legacy_new(cls.dtype, *args, **kwargs)

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


LEGACY_TYPES = {
    d.legacy: _LegacyTensorType(d.legacy, (), {"dtype": d})
    for d in (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.int64, dtypes.int32, dtypes.int16,
              dtypes.int8, dtypes.uint8, dtypes.bool_)
}


def diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """1-D in: a new square matrix; 2-D in: a copy of the diagonal (unlike Tensor.diagonal, a view)."""
    from engine.ops.copying import clone
    from engine.ops.indexing import _finish_diag

    if input.ndim == 2:
        return clone(input.diagonal(diagonal), contiguous=True)
    return _finish_diag(input, diagonal)


def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: dtypes.dtype | None = None,
                  device: Any = None, requires_grad: bool = False) -> Tensor:
    """Fresh memory laid out with exactly the given strides (a storage as large as they reach)."""
    _check_device(device)
    shape, strides = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(shape) != len(strides):
        raise RuntimeError("mismatch in length of strides and shape")
    check_sizes(shape)
    target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    span = 0 if 0 in shape else 1 + sum((n - 1) * st for n, st in zip(shape, strides))
    t = Tensor._make(Storage.allocate(span, target.np), 0, shape, strides, target)
    return _finish(t, requires_grad)


FUNCTIONS = {
    "tensor": tensor, "zeros": zeros, "ones": ones, "empty": empty, "full": full, "zeros_like": zeros_like,
    "ones_like": ones_like, "empty_like": empty_like, "full_like": full_like, "arange": arange,
    "linspace": linspace, "logspace": logspace, "eye": eye, "from_numpy": from_numpy, "as_tensor": as_tensor, "asarray": as_tensor,
    "scalar_tensor": scalar_tensor, "diag": diag, "empty_strided": empty_strided, **LEGACY_TYPES,
}


def new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The legacy `x.new(...)`: `new()` is empty, sizes give a fresh tensor, a list or tuple is data,
    a storage is viewed (shared) as x's dtype; always x's dtype."""
    if not args:
        return _filled((0,), None, self.dtype)
    if len(args) == 1 and isinstance(args[0], UntypedStorage):  # torch sets an empty tensor to it
        storage = args[0]._storage
        count = storage.nbytes // self.dtype.itemsize
        t = Tensor._make(storage, 0, (count,), (1,), self.dtype)
        t._bump_version()
        return t
    return legacy_new(self.dtype, *args, **kwargs)


def new_factory(fill: Any) -> Any:
    """Tensor.new_zeros/new_ones/new_empty: same dtype as self unless told otherwise."""
    def make(self: Tensor, *size: Any, dtype: dtypes.dtype | None = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
        return _finish(_filled(sizes_arg(size), fill, dtype or self.dtype), requires_grad)
    return make


def new_tensor(self: Tensor, data: Any, dtype: dtypes.dtype | None = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_full(self: Tensor, size: Sequence[int], fill_value: Any, dtype: dtypes.dtype | None = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


METHODS = {"new_zeros": new_factory(0), "new_ones": new_factory(1), "new_empty": new_factory(0),
           "new_tensor": new_tensor, "new_full": new_full, "new": new}
