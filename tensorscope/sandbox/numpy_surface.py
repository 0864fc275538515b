"""numpy as user code sees it: which names exist, which arguments a call may take, how big its
result may be.

numpy trusts its caller with raw memory: `np.ndarray(shape, dtype, buffer, offset, strides)`
reads any bytes as any type, an object dtype turns bytes into Python object pointers, and numpy
consults a value's own `__array_interface__`, `__len__` or `__index__` while building arrays. So
every numpy callable user code reaches (module functions, array and scalar methods, numpy's
classes) goes through `check_numpy_call` first:

- no `buffer=`, `offset=` or `strides=` (nor `np.ndarray`'s positional buffer);
- no object, void or structured dtype, however spelled (`object`, `'O'`, `'V8'`, `[('a', 'O')]`,
  `np.dtype('i4,O')`, a Python class);
- no instance of a user class as an argument, or inside a list given as one (numpy would call
  its methods while it measures and copies, and could be told different sizes each time);
- a result size (bytes, from the arguments, before numpy allocates) within MAX_ARRAY_BYTES.

And `check_numpy_value` refuses any object, void or structured array or scalar handed to user
code, however it was made.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorscope.sandbox.classes import is_user_instance
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import MAX_SEQUENCE_BYTES, refuse_size
from tensorscope.sandbox.sizes import (
    broadcast_count,
    check_array_bytes,
    check_matmul,
    extents,
    is_int,
    result_itemsize,
)
from tensorscope.sandbox.stand_ins import real_class

NUMPY_FUNCTIONS = (
    "array", "asarray", "ascontiguousarray", "copy", "zeros", "ones", "empty", "full", "zeros_like",
    "ones_like", "empty_like", "full_like", "arange", "linspace", "eye", "identity",
    "abs", "absolute", "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
    "mod", "maximum", "minimum", "negative", "sqrt", "square", "exp", "log", "log2", "log10", "log1p",
    "expm1", "sin", "cos", "tan", "tanh", "arctan", "sign", "floor", "ceil", "round", "around", "clip",
    "where", "isclose", "allclose", "array_equal", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "isnan", "isinf",
    "isfinite", "sum", "mean", "std", "var", "max", "min", "amax", "amin", "argmax", "argmin", "prod",
    "cumsum", "cumprod", "all", "any", "reshape", "transpose", "swapaxes", "moveaxis", "squeeze",
    "expand_dims", "ravel", "concatenate", "stack", "vstack", "hstack", "flip", "sort", "argsort",
    "unique", "count_nonzero", "nonzero", "shares_memory", "may_share_memory", "broadcast_to",
    "broadcast_shapes", "shape", "size", "ndim", "result_type", "promote_types", "can_cast",
    "isscalar", "issubdtype", "atleast_1d", "atleast_2d", "trace", "tril", "triu", "split", "take",
    "dot", "matmul", "inner",
)
NUMPY_VALUES = (
    "ndarray", "dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
    "bool_", "complex64", "complex128", "integer", "floating", "number", "generic", "pi", "e", "inf",
    "nan", "newaxis",
)
NUMPY_RANDOM = ("seed", "rand", "randn", "randint", "random", "normal", "uniform", "permutation",
                "shuffle", "choice", "standard_normal")
# Array attributes that hand out raw memory, write files or change memory in place.
NUMPY_BLOCKED_ATTRIBUTES = frozenset({"ctypes", "data", "tofile", "dump", "dumps", "setflags", "resize",
                                      "getfield", "setfield"})
NUMPY_WRITABLE_ATTRIBUTES = frozenset({"shape", "real", "imag", "flat"})  # `a.dtype = ...` reinterprets memory

# ----------------------------------------------------------------------------- arguments

_RAW_MEMORY_KEYWORDS = ("buffer", "offset", "strides")
_DTYPE_KEYWORDS = frozenset({"dtype", "signature", "sig", "type"})
# Where a dtype may be given positionally: function (or array method) -> argument positions.
_ALL = range(64)
_DTYPE_POSITIONS: dict[str, range | tuple[int, ...]] = {
    "array": (1,), "asarray": (1,), "ascontiguousarray": (1,), "zeros": (1,), "ones": (1,), "empty": (1,),
    "full": (2,), "zeros_like": (1,), "ones_like": (1,), "empty_like": (1,), "full_like": (2,),
    "arange": (1, 2, 3), "linspace": (5,), "eye": (3,), "identity": (1,), "sum": (2,), "mean": (2,),
    "std": (2,), "var": (2,), "prod": (2,), "cumsum": (2,), "cumprod": (2,), "trace": (4,),
    "ndarray": (1,), "dtype": (0,), "result_type": _ALL, "promote_types": _ALL, "can_cast": _ALL,
    "issubdtype": _ALL, "randint": (3,),
}
_METHOD_DTYPE_POSITIONS: dict[str, tuple[int, ...]] = {
    "astype": (0,), "view": (0, 1), "sum": (1,), "mean": (1,), "std": (1,), "var": (1,), "prod": (1,),
    "cumsum": (1,), "cumprod": (1,), "trace": (3,),
}
_SAFE_TYPES = (np.ndarray, bool, int, float, complex, str, bytes)


def _is_unsafe_type(value: type) -> bool:
    """A class numpy would read as an object or void dtype (`object`, `dict`, a user class...)."""
    if issubclass(value, np.generic):
        return issubclass(value, (np.object_, np.void))
    return not issubclass(value, _SAFE_TYPES)


def _is_unsafe_dtype(value: Any, spelled: bool) -> bool:
    """Whether value names an object, void or structured dtype. Strings, lists and dicts are read
    as dtypes only where a dtype is expected (`spelled`); elsewhere they are data."""
    if isinstance(value, np.dtype):
        return value.hasobject or value.kind == "V"
    if isinstance(value, type):
        return _is_unsafe_type(value)
    if not spelled or value is None:
        return False
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, (str, type, np.dtype)) for v in value) \
            and any(_is_unsafe_dtype(v, True) for v in value):  # a ufunc's signature=('O', 'O')
        return True
    try:
        parsed = np.dtype(value)
    except Exception:  # noqa: BLE001 - not a dtype: numpy reports it itself
        return False
    return parsed.hasobject or parsed.kind == "V"


def _dtype_itemsize(value: Any) -> int | None:
    """The element size a dtype argument asks for: None when it asks for none, 0 for text of a
    length numpy picks itself (`dtype=str`)."""
    try:
        return None if value is None else np.dtype(value).itemsize
    except Exception:  # noqa: BLE001 - not a dtype: numpy reports it itself
        return None


@gateway
def check_numpy_arguments(label: str, positions: range | tuple[int, ...], args: tuple[Any, ...],
                          kwargs: dict[str, Any]) -> None:
    """The argument rules above (size aside); `positions` are where args may spell a dtype."""
    for keyword in _RAW_MEMORY_KEYWORDS:
        if keyword in kwargs:
            raise TypeError(f"{label}: '{keyword}=' is not available in tensorscope (it reads raw memory)")
    for index, value in enumerate(args):
        _check_argument(label, value, index in positions)
    for key, value in kwargs.items():
        _check_argument(label, value, key in _DTYPE_KEYWORDS)


@gateway
def _check_argument(label: str, value: Any, spelled: bool) -> None:
    if _is_unsafe_dtype(value, spelled):
        raise TypeError(f"{label}: object, void and structured dtypes are not available in tensorscope")
    if is_user_instance(value) or (isinstance(value, (list, tuple)) and _holds_user_instance(value)):
        raise TypeError(f"{label}: numpy does not take instances of your own classes in tensorscope "
                        "(give it numbers, lists, arrays or tensors)")


def _holds_user_instance(value: list[Any] | tuple[Any, ...]) -> bool:
    seen: set[int] = set()
    stack = [value]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for item in current:
            if isinstance(item, (list, tuple)):
                stack.append(item)
            elif is_user_instance(item):
                return True
    return False


@gateway
def check_numpy_value(value: Any) -> None:
    """Refuse object, void and structured arrays and scalars, however they were made."""
    dtype = value.dtype
    if dtype.hasobject or dtype.kind == "V":
        raise TypeError("numpy object, void and structured arrays are not available in tensorscope")


# ----------------------------------------------------------------------------- result sizes

def _arange_count(*args: Any, **kwargs: Any) -> int:
    bounds = [a for a in args if isinstance(a, (int, float))][:3]
    if not bounds:
        return 0
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
    if not step or not all(map(math.isfinite, (start, stop, step))):
        return 0
    return max(math.ceil((stop - start) / step), 0)


def _eye_count(n: Any, m: Any = None, *args: Any, **kwargs: Any) -> int:
    m = kwargs.get("M", m)
    return operator.index(n) * operator.index(n if m is None else m)


def shape_count(shape: Any) -> int:
    dims = (shape,) if is_int(shape) or isinstance(shape, np.integer) else tuple(shape)
    return math.prod(max(operator.index(d), 0) for d in dims)


def _sized_at(index: int, keyword: str) -> Callable[..., int]:
    """Estimator for functions whose `size`/`shape` argument is positional `index` or `keyword`."""

    def estimate(*args: Any, **kwargs: Any) -> int:
        shape = args[index] if len(args) > index else kwargs.get(keyword)
        return 1 if shape is None else shape_count(shape)

    return estimate


def _num_at(index: int, keyword: str, default: int) -> Callable[..., int]:
    return lambda *a, **k: operator.index(a[index] if len(a) > index else k.get(keyword, default))


def _choice_count(a: Any, size: Any = None, replace: bool = True, *args: Any, **kwargs: Any) -> int:
    """choice() without replacement shuffles the whole population first."""
    count = 1 if size is None else shape_count(size)
    population = operator.index(a) if is_int(a) else 0
    return count if replace else max(count, population)


_COUNT_ESTIMATES: dict[str, Callable[..., int]] = {
    "zeros": _sized_at(0, "shape"), "ones": _sized_at(0, "shape"), "empty": _sized_at(0, "shape"),
    "full": _sized_at(0, "shape"), "ndarray": _sized_at(0, "shape"), "arange": _arange_count,
    "linspace": _num_at(2, "num", 50), "eye": _eye_count, "identity": lambda n, *a, **k: operator.index(n) ** 2,
    "rand": lambda *dims: shape_count(dims), "randn": lambda *dims: shape_count(dims),
    "random": _sized_at(0, "size"), "standard_normal": _sized_at(0, "size"),
    "normal": _sized_at(2, "size"), "uniform": _sized_at(2, "size"), "randint": _sized_at(2, "size"),
    "choice": _choice_count, "permutation": lambda x, *r, **k: operator.index(x) if is_int(x) else 0,
    "repeat": lambda repeats, *r, **k: int(np.max(repeats)) if np.size(repeats) else 0,
}
_MATRIX_PRODUCTS = frozenset({"dot", "matmul", "inner"})
_ARRAY_OBJECT_BYTES = 16  # x 8 bytes: a numpy array object, in element-sized units


def _dtype_argument(positions: range | tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The dtype a call asks for, if any: `dtype=`, else the last dtype-like value where one may be."""
    if "dtype" in kwargs:
        return kwargs["dtype"]
    spelled = [args[i] for i in positions if i < len(args) and isinstance(args[i], (str, type, np.dtype))]
    return spelled[-1] if spelled else None


def numpy_result_bytes(name: str, owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                       positions: range | tuple[int, ...] = ()) -> int:
    """An upper bound on the bytes numpy's `name` allocates; 0 when the arguments are malformed
    (numpy then reports them itself)."""
    values = (*args, *kwargs.values()) if owner is None else (owner, *args, *kwargs.values())
    try:
        parts = extents(values)
        itemsize = result_itemsize(parts, _dtype_itemsize(_dtype_argument(positions, args, kwargs)))
        count = broadcast_count(parts)
        estimate = _COUNT_ESTIMATES.get(name)
        if estimate is not None:
            extra = estimate(*args, **kwargs)
            count = max(count, extra * owner.size if name == "repeat" and owner is not None else extra)
        elif "shape" in kwargs:
            count = max(count, shape_count(kwargs["shape"]))
        if name == "split" and len(args) > 1:  # a list of that many arrays
            pieces = args[1]
            count = max(count, (operator.index(pieces) if is_int(pieces) else len(pieces)) * _ARRAY_OBJECT_BYTES)
    except (TypeError, ValueError, IndexError, OverflowError):
        return 0
    return count * itemsize


@gateway
def check_numpy_call(label: str, name: str, owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Everything a numpy call must pass before numpy runs (see the module docstring)."""
    positions = _METHOD_DTYPE_POSITIONS.get(name, ()) if owner is not None else _DTYPE_POSITIONS.get(name, ())
    call = f"{label}.{name}()"
    if owner is None and name == "ndarray" and len(args) > 2:
        raise TypeError(f"{call}: 'buffer', 'offset' and 'strides' are not available in tensorscope (they read raw memory)")
    check_numpy_arguments(call, positions, args, kwargs)
    if name in _MATRIX_PRODUCTS and len(args) >= (1 if owner is not None else 2):
        left, right = (owner, args[0]) if owner is not None else args[:2]
        check_matmul(call, left, right)
    check_array_bytes(call, numpy_result_bytes(name, owner, args, kwargs, positions))


def numpy_guarded(name: str, fn: Callable[..., Any], owner: Any = None, label: str = "numpy") -> Callable[..., Any]:
    """fn, refusing calls that break the argument rules or whose result would be too large."""

    @functools.wraps(fn)
    @gateway
    def guarded(*args: Any, **kwargs: Any) -> Any:
        args = tuple(map(real_class, args))  # `a.view(np.ndarray)`: numpy reads the class itself
        kwargs = {key: real_class(value) for key, value in kwargs.items()}
        check_numpy_call(label, name, owner, args, kwargs)
        return fn(*args, **kwargs)

    return guarded


def limited_tolist(size: int, method: Callable[..., Any]) -> Callable[..., Any]:
    """`tolist()` of `size` bytes of elements: each becomes a Python object of about 32 bytes more."""

    @gateway
    def tolist() -> Any:
        if size > MAX_SEQUENCE_BYTES:
            raise refuse_size("the list", size, MAX_SEQUENCE_BYTES)
        return method()

    return tolist


def tolist_bytes(count: int, itemsize: int) -> int:
    return count * (32 + itemsize)
