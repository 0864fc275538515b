"""numpy as user code sees it: which names exist, and how big a call's result may be.

Array-producing calls are wrapped so that their result size is estimated from the arguments and
refused past MAX_ARRAY_ITEMS before numpy allocates it.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import MAX_ITEMS, refuse_size
from tensorscope.sandbox.sizes import (
    broadcast_size,
    check_array_size,
    is_int,
    matmul_size,
    shape_size,
)

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


def _arange_size(*args: Any, **kwargs: Any) -> int:
    bounds = [a for a in args if isinstance(a, (int, float))][:3]
    if not bounds:
        return 0
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
    if not step or not all(map(math.isfinite, (start, stop, step))):
        return 0
    return max(math.ceil((stop - start) / step), 0)


def _eye_size(n: Any, m: Any = None, *args: Any, **kwargs: Any) -> int:
    m = kwargs.get("M", m)
    return operator.index(n) * operator.index(n if m is None else m)


def _sized_at(index: int, keyword: str) -> Callable[..., int]:
    """Estimator for functions whose `size`/`shape` argument is positional `index` or `keyword`."""

    def estimate(*args: Any, **kwargs: Any) -> int:
        shape = args[index] if len(args) > index else kwargs.get(keyword)
        return 1 if shape is None else shape_size(shape)

    return estimate


def _num_at(index: int, keyword: str, default: int) -> Callable[..., int]:
    return lambda *a, **k: operator.index(a[index] if len(a) > index else k.get(keyword, default))


_NUMPY_ESTIMATES: dict[str, Callable[..., int]] = {
    "zeros": _sized_at(0, "shape"), "ones": _sized_at(0, "shape"), "empty": _sized_at(0, "shape"),
    "full": _sized_at(0, "shape"), "ndarray": _sized_at(0, "shape"), "arange": _arange_size,
    "linspace": _num_at(2, "num", 50), "eye": _eye_size, "identity": lambda n, *a, **k: operator.index(n) ** 2,
    "dot": lambda a, b, *r, **k: matmul_size(a, b), "matmul": lambda a, b, *r, **k: matmul_size(a, b),
    "inner": lambda a, b, *r, **k: matmul_size(a, b),
    "rand": lambda *dims: shape_size(dims), "randn": lambda *dims: shape_size(dims),
    "random": _sized_at(0, "size"), "standard_normal": _sized_at(0, "size"),
    "normal": _sized_at(2, "size"), "uniform": _sized_at(2, "size"), "randint": _sized_at(2, "size"),
    "choice": _sized_at(1, "size"), "permutation": lambda x, *r, **k: operator.index(x) if is_int(x) else 0,
    "repeat": lambda repeats, *r, **k: int(np.max(repeats)) if np.size(repeats) else 0,
}


def numpy_result_size(name: str, owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """An upper bound on the elements numpy's `name` allocates; 0 when the arguments are malformed
    (numpy then reports them itself)."""
    values = (*args, *kwargs.values()) if owner is None else (owner, *args, *kwargs.values())
    try:
        size = broadcast_size(values)
        estimate = _NUMPY_ESTIMATES.get(name)
        if estimate is not None:
            extra = estimate(*args, **kwargs)
            size = max(size, extra * owner.size if name == "repeat" and owner is not None else extra)
        elif "shape" in kwargs:
            size = max(size, shape_size(kwargs["shape"]))
    except (TypeError, ValueError, IndexError):
        return 0
    return size


def numpy_guarded(name: str, fn: Callable[..., Any], owner: Any = None, label: str = "numpy") -> Callable[..., Any]:
    """fn, refusing calls whose result would exceed MAX_ARRAY_ITEMS."""

    @functools.wraps(fn)
    @gateway
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check_array_size(f"{label}.{name}()", numpy_result_size(name, owner, args, kwargs))
        return fn(*args, **kwargs)

    return guarded


def limited_tolist(count: int, method: Callable[..., Any]) -> Callable[..., Any]:
    @gateway
    def tolist() -> Any:
        if count > MAX_ITEMS:
            raise refuse_size("the list", count, MAX_ITEMS)
        return method()

    return tolist
