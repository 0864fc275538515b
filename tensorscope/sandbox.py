"""What user code may reach, and the meters that stop it: the policy half of the interpreter.

`tensorscope.interpreter` walks the AST; whenever it touches a user value (a name, an attribute, a
call, an operator, an import) it goes through this module, which holds the three allowlists and
the counters described in the interpreter's docstring:

- names: `make_builtins`, an explicit table of builtins, some replaced by metered versions;
- modules: `ModuleProxy` objects expose only listed names of the engine, numpy and math;
- attributes: `Sandbox.check_read` / `check_write` refuse dunders, private names and internals;
- meters: `Meter` counts steps and call depth; the `check_*` guards refuse results that would be
  too large before Python builds them.

Functions decorated with `@gateway` are where user-level errors are expected to arise (a TypeError
from `1 + "a"`, the MemoryError of a size guard); an exception raised by any other tensorscope
code is a bug, reported as InternalError (see `is_user_error`).
"""

from __future__ import annotations

import _string
import builtins
import contextlib
import functools
import importlib
import math
import operator
import re
import string
import sys
import types
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

import engine
import engine.autograd
import engine.cuda
import engine.nn
import engine.nn.functional
import engine.nn.init
from engine.allocator import allocator
from engine.autograd.node import Node
from engine.nn.module import Module

try:
    import resource
except ImportError:  # pragma: no cover - Windows has no resource module: no memory meter there
    resource = None

MAX_ITEMS = 10_000_000  # longest list, tuple, string or bytes one operation may build
MAX_INT_BITS = 100_000  # largest integer `*`, `**`, `<<` and friends may produce
MAX_FORMAT_WIDTH = 100_000  # widest field a format spec or %-format may ask for
MAX_ARRAY_ITEMS = 2**27  # largest numpy array a numpy call or operator may produce
MAX_OUTPUT_CHARS = 1_000_000  # most one statement may print
GRACE_STEPS = 1_000  # steps each __exit__ or finally block may still take after the step limit
MEMORY_CHECK_STEPS = 1_024  # how often (in steps) the meter looks at the process's memory
LARGE_RESULT = 100_000  # a result with more items than this makes the meter look at memory at once

# ----------------------------------------------------------------------------- gateways

_GATEWAY_CODES: set[types.CodeType] = set()
_OWN_MODULES = frozenset({"tensorscope.sandbox", "tensorscope.interpreter"})


def gateway(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark fn (and the functions and generator expressions nested in it) as a place where a
    user-level error may legitimately be raised."""
    _register_code(fn.__code__)
    return fn


def _register_code(code: types.CodeType) -> None:
    _GATEWAY_CODES.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _register_code(const)


def is_user_error(exc: BaseException) -> bool:
    """True when exc comes from user code, the engine or a library; False when tensorscope's own
    code raised it outside a gateway, which means a bug in the interpreter."""
    last_own: types.CodeType | None = None
    foreign_after = False
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_globals.get("__name__") in _OWN_MODULES:
            last_own, foreign_after = frame.f_code, False
        elif last_own is not None:
            foreign_after = True
        tb = tb.tb_next
    return last_own is None or foreign_after or last_own in _GATEWAY_CODES


# ----------------------------------------------------------------------------- meters


class Uncatchable(BaseException):
    """Base of what user code must never catch: control flow and exceeded limits."""


class LimitExceeded(Uncatchable):
    """A statement ran too long or printed too much; reported as `kind: message`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


_STATM = "/proc/self/statm"
_PAGE_SIZE = resource.getpagesize() if resource is not None else 4096


def _memory_bytes() -> int:
    """The process's resident size (Linux), else its peak resident size, else 0."""
    try:
        with open(_STATM) as statm:
            return int(statm.read().split()[1]) * _PAGE_SIZE
    except OSError:
        if resource is None:
            return 0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


class Meter:
    """Steps (loop iterations, calls, items consumed by builtins), user-function call depth, and
    the growth of the process's memory during one statement.

    Per-operation size guards cannot see memory piling up (`[big[:] for _ in range(1000)]`), so
    the meter also looks at the resident size every MEMORY_CHECK_STEPS steps and after any
    large result, and stops a statement that grew it by more than the engine's memory budget.
    """

    def __init__(self, max_steps: int, max_depth: int) -> None:
        self.max_steps = max_steps
        self.max_depth = max_depth
        self.steps = 0
        self.depth = 0
        self._memory_start = 0
        self._next_memory_check = 0

    def reset(self) -> None:
        self.steps = 0
        self.depth = 0
        self._memory_start = _memory_bytes()
        self._next_memory_check = MEMORY_CHECK_STEPS

    def tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > self.max_steps:
            raise LimitExceeded("RuntimeError", f"statement exceeded {self.max_steps} steps (an endless loop?)")
        if self.steps >= self._next_memory_check:
            self.check_memory()

    def check_memory(self) -> None:
        self._next_memory_check = self.steps + MEMORY_CHECK_STEPS
        grown = _memory_bytes() - self._memory_start
        if grown > allocator.budget_bytes:
            raise LimitExceeded("MemoryError", f"statement grew memory by {grown:,} bytes; tensorscope's limit "
                                               f"is {allocator.budget_bytes:,} (the engine's memory budget)")

    @gateway
    def enter(self) -> None:
        if self.depth >= self.max_depth:
            raise RecursionError("maximum recursion depth exceeded")
        self.depth += 1

    def leave(self) -> None:
        self.depth -= 1

    @contextlib.contextmanager
    def grace(self) -> Iterator[None]:
        """A small budget for cleanup code (__exit__, finally) while a statement that hit the step
        limit unwinds, so `with torch.no_grad():` still restores grad mode."""
        spent = self.steps
        self.steps = min(spent, self.max_steps - GRACE_STEPS)
        try:
            yield
        finally:
            self.steps = spent


class Counted:
    """An iterator that costs a step per item, so C code consuming it (list.extend, sum, ...) is
    metered too; what the sandbox's iter, zip, map, filter, enumerate and reversed return."""

    __slots__ = ("_iterator", "_meter")
    public_attributes: frozenset[str] = frozenset()

    def __init__(self, iterator: Iterator[Any], meter: Meter) -> None:
        self._iterator = iterator
        self._meter = meter

    def __iter__(self) -> Counted:
        return self

    @gateway
    def __next__(self) -> Any:
        self._meter.tick()
        return next(self._iterator)

    def __repr__(self) -> str:
        return repr(self._iterator)


# ----------------------------------------------------------------------------- size guards


def refuse_size(what: str, size: int, limit: int, unit: str = "items") -> MemoryError:
    return MemoryError(f"{what} would be too large: {size:,} {unit}, tensorscope's limit is {limit:,}")


_SEQUENCES = (str, bytes, bytearray, list, tuple)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@gateway
def check_binop(op: Callable[..., Any], a: Any, b: Any) -> None:
    """Refuse `*`, `**`, `<<`, `+` and `%` results that would be too large to build."""
    if op in (operator.mul, operator.imul):
        check_repeat(a, b)
        check_repeat(b, a)
        if _is_int(a) and _is_int(b):
            check_int_bits(a.bit_length() + b.bit_length())
    elif op in (operator.pow, operator.ipow):
        check_int_pow(a, b)
    elif op in (operator.lshift, operator.ilshift):
        if _is_int(a) and _is_int(b) and a:
            check_int_bits(a.bit_length() + b)
    elif op in (operator.add, operator.iadd):
        if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES) and len(a) + len(b) > MAX_ITEMS:
            raise refuse_size("the concatenation", len(a) + len(b), MAX_ITEMS)
    elif op in (operator.mod, operator.imod) and isinstance(a, (str, bytes)):
        check_percent_format(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        matmul = op in (operator.matmul, operator.imatmul)
        check_array_size("the numpy result", _matmul_size(a, b) if matmul else _broadcast_size((a, b)))


@gateway
def check_repeat(seq: Any, times: Any) -> None:
    if isinstance(seq, _SEQUENCES) and hasattr(type(times), "__index__"):
        size = len(seq) * max(operator.index(times), 0)
        if size > MAX_ITEMS:
            raise refuse_size("the repeated sequence", size, MAX_ITEMS)


@gateway
def check_int_bits(bits: int) -> None:
    if bits > MAX_INT_BITS:
        raise refuse_size("the integer", bits, MAX_INT_BITS, "bits")


@gateway
def check_int_pow(base: Any, exponent: Any) -> None:
    if _is_int(base) and _is_int(exponent) and exponent > 0 and abs(base) > 1:
        check_int_bits((base.bit_length() - 1) * exponent)


@gateway
def check_array_size(what: str, size: int) -> None:
    if size > MAX_ARRAY_ITEMS:
        raise refuse_size(what, size, MAX_ARRAY_ITEMS)


_FORMAT_NUMBER = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")


@gateway
def check_format_spec(spec: str) -> None:
    """Refuse format specs such as `{x:999999999}` that would build a huge string."""
    for number in _FORMAT_NUMBER.findall(spec):
        if len(number) > 6 or int(number) > MAX_FORMAT_WIDTH:
            raise refuse_size("the formatted field", int(number[:4000]), MAX_FORMAT_WIDTH, "characters")


@gateway
def check_percent_format(template: str | bytes, args: Any) -> None:
    text = template.decode("latin-1") if isinstance(template, bytes) else template
    values = args if isinstance(args, tuple) else (args,)
    widest = max((v for v in values if _is_int(v)), default=0)
    for match in _PERCENT_SPEC.finditer(text):
        for group in match.groups():
            if group == "*" and widest > MAX_FORMAT_WIDTH:
                raise refuse_size("the formatted field", widest, MAX_FORMAT_WIDTH, "characters")
            if group not in (None, "*"):
                check_format_spec(group)


# ----------------------------------------------------------------------------- numpy guards


def _shape_size(shape: Any) -> int:
    dims = (shape,) if hasattr(type(shape), "__index__") else tuple(shape)
    return math.prod(max(operator.index(d), 0) for d in dims)


def _array_shape(value: Any) -> tuple[int, ...] | None:
    if isinstance(value, (np.ndarray, np.generic)):
        return value.shape
    if isinstance(value, (list, tuple)):
        try:
            return np.shape(value)
        except ValueError:
            return None
    return None


def _broadcast_size(values: Any) -> int:
    """An upper bound on what an elementwise numpy call over `values` allocates."""
    shapes = [s for s in map(_array_shape, values) if s is not None]
    try:
        broadcast = math.prod(np.broadcast_shapes(*shapes)) if shapes else 0
    except ValueError:
        broadcast = 0  # numpy itself will refuse the shapes
    return max([broadcast, *(math.prod(s) for s in shapes)])


def _matmul_size(a: Any, b: Any) -> int:
    sa, sb = _array_shape(a), _array_shape(b)
    if not sa or not sb:
        return _broadcast_size((a, b))
    return math.prod(sa[:-1]) * math.prod(sb[:-2]) * (sb[-1] if len(sb) >= 2 else 1)


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
        return 1 if shape is None else _shape_size(shape)

    return estimate


def _num_at(index: int, keyword: str, default: int) -> Callable[..., int]:
    return lambda *a, **k: operator.index(a[index] if len(a) > index else k.get(keyword, default))


_NUMPY_ESTIMATES: dict[str, Callable[..., int]] = {
    "zeros": _sized_at(0, "shape"), "ones": _sized_at(0, "shape"), "empty": _sized_at(0, "shape"),
    "full": _sized_at(0, "shape"), "ndarray": _sized_at(0, "shape"), "arange": _arange_size,
    "linspace": _num_at(2, "num", 50), "eye": _eye_size, "identity": lambda n, *a, **k: operator.index(n) ** 2,
    "dot": lambda a, b, *r, **k: _matmul_size(a, b), "matmul": lambda a, b, *r, **k: _matmul_size(a, b),
    "inner": lambda a, b, *r, **k: _matmul_size(a, b),
    "rand": lambda *dims: _shape_size(dims), "randn": lambda *dims: _shape_size(dims),
    "random": _sized_at(0, "size"), "standard_normal": _sized_at(0, "size"),
    "normal": _sized_at(2, "size"), "uniform": _sized_at(2, "size"), "randint": _sized_at(2, "size"),
    "choice": _sized_at(1, "size"), "permutation": lambda x, *r, **k: operator.index(x) if _is_int(x) else 0,
    "repeat": lambda repeats, *r, **k: int(np.max(repeats)) if np.size(repeats) else 0,
}


def numpy_result_size(name: str, owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """An upper bound on the elements numpy's `name` allocates; 0 when the arguments are malformed
    (numpy then reports them itself)."""
    values = (*args, *kwargs.values()) if owner is None else (owner, *args, *kwargs.values())
    try:
        size = _broadcast_size(values)
        estimate = _NUMPY_ESTIMATES.get(name)
        if estimate is not None:
            extra = estimate(*args, **kwargs)
            size = max(size, extra * owner.size if name == "repeat" and owner is not None else extra)
        elif "shape" in kwargs:
            size = max(size, _shape_size(kwargs["shape"]))
    except (TypeError, ValueError, IndexError):
        return 0
    return size


def _numpy_guarded(name: str, fn: Callable[..., Any], owner: Any = None, label: str = "numpy") -> Callable[..., Any]:
    """fn, refusing calls whose result would exceed MAX_ARRAY_ITEMS."""

    @functools.wraps(fn)
    @gateway
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check_array_size(f"{label}.{name}()", numpy_result_size(name, owner, args, kwargs))
        return fn(*args, **kwargs)

    return guarded


def _limited_tolist(count: int, method: Callable[..., Any]) -> Callable[..., Any]:
    @gateway
    def tolist() -> Any:
        if count > MAX_ITEMS:
            raise refuse_size("the list", count, MAX_ITEMS)
        return method()

    return tolist


# ----------------------------------------------------------------------------- attributes

_SAFE_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__"})  # their values must be strings
# Methods equivalent to a guarded operation are left out: __call__ (type's check), __iter__ (metered
# iteration), __format__ (width caps), arithmetic (size checks), and everything introspective.
_SAFE_DUNDER_METHODS = frozenset({
    "__init__", "__repr__", "__str__", "__len__", "__getitem__", "__setitem__", "__delitem__",
    "__contains__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__",
    "__enter__", "__exit__",
})
_PRIVATE_READABLE = frozenset({"_version", "_base", "_is_view"})  # on tensors
_MODULE_PRIVATE = frozenset({"_parameters", "_buffers", "_modules"})
_BLOCKED_PREFIXES = ("gi_", "cr_", "ag_", "tb_", "co_", "func_", "im_")
_BLOCKED_NAMES = frozenset({"mro"})
_NUMPY_BLOCKED = frozenset({"ctypes", "tofile", "dump", "dumps", "setflags", "resize"})
_BLOCKED_VALUES = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType, types.CellType)


def refuse_attribute(name: str, why: str) -> AttributeError:
    return AttributeError(f"access to '{name}' is not allowed in tensorscope ({why})")


def _class_of(obj: Any) -> type:
    return obj if isinstance(obj, type) else type(obj)


def _is_internal(obj: Any) -> bool:
    """Objects and classes of the interpreter itself (user functions, proxies, iterators)."""
    return _class_of(obj).__module__ in _OWN_MODULES


def _is_numpy(obj: Any) -> bool:
    return issubclass(_class_of(obj), (np.ndarray, np.generic))


@gateway
def check_value(value: Any, what: str) -> Any:
    """Refuse the Python internals that would open a way out (modules, frames, code)."""
    if isinstance(value, _BLOCKED_VALUES):
        raise TypeError(f"{what} gave a '{type(value).__name__}' object, which tensorscope does not expose")
    return value


def is_large(value: Any) -> bool:
    """A container or array big enough that building it is worth a look at memory."""
    if type(value) in _COSTED or isinstance(value, (str, bytes, bytearray)):
        return len(value) > LARGE_RESULT
    return isinstance(value, np.ndarray) and value.size > LARGE_RESULT


@gateway
def _bound(fn: Callable[..., Any], *bound: Any, name: str) -> Callable[..., Any]:
    """fn with its first arguments fixed, as a plain function named `name`: unlike
    functools.partial it has no public attribute that would hand the bound arguments (the
    sandbox) to user code."""

    def method(*args: Any, **kwargs: Any) -> Any:
        return fn(*bound, *args, **kwargs)

    method.__name__, method.__qualname__, method.__doc__ = name.rpartition(".")[2], name, fn.__doc__
    return method


class SafeFormatter(string.Formatter):
    """str.format whose field names follow the attribute policy and whose widths are capped."""

    def __init__(self, read_attribute: Callable[[Any, str], Any]) -> None:
        self._read_attribute = read_attribute

    @gateway
    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, Any]:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            obj = self._read_attribute(obj, key) if is_attribute else obj[key]
        return obj, first

    @gateway
    def format_field(self, value: Any, format_spec: str) -> Any:
        check_format_spec(format_spec)
        return format(value, format_spec)


# ----------------------------------------------------------------------------- modules


class ModuleProxy:
    """A read-only module that hands out only its listed names, each resolved on first use (so
    importing torch does not evaluate every lazy attribute of the engine)."""

    __slots__ = ("_hidden", "_name", "_names", "_resolve", "_values")
    public_attributes: frozenset[str] = frozenset()

    def __init__(self, name: str, names: Iterable[str], resolve: Callable[[str], Any], hidden: Any) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_names", frozenset(names))
        object.__setattr__(self, "_resolve", resolve)
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_hidden", hidden)

    @gateway
    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        if name in object.__getattribute__(self, "_names"):
            values[name] = object.__getattribute__(self, "_resolve")(name)
            return values[name]
        module_name = object.__getattribute__(self, "_name")
        if hasattr(object.__getattribute__(self, "_hidden"), name):
            raise AttributeError(f"module '{module_name}' has no attribute '{name}' (not available in tensorscope)")
        raise AttributeError(f"module '{module_name}' has no attribute '{name}'")

    @gateway
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"module '{self._name}' is read-only in tensorscope")

    @gateway
    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"module '{self._name}' is read-only in tensorscope")

    def __dir__(self) -> list[str]:
        return sorted(object.__getattribute__(self, "_names"))

    def __repr__(self) -> str:
        return f"<module '{object.__getattribute__(self, '_name')}' (tensorscope)>"


def public_names(module: ModuleProxy) -> list[str]:
    """What `from module import *` binds."""
    return sorted(n for n in object.__getattribute__(module, "_names") if not n.startswith("_"))


_TORCH_EXTRA = ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "ByteTensor",
                "is_tensor", "numel", "can_cast", "is_floating_point", "get_default_dtype",
                "set_default_dtype", "promote_types", "strided", "contiguous_format", "preserve_format")
_TORCH_SUBMODULES = {"nn": "torch.nn", "autograd": "torch.autograd", "cuda": "torch.cuda", "optim": "torch.optim"}
_NN_SUBMODULES = {"functional": "torch.nn.functional", "init": "torch.nn.init"}
_AUTOGRAD_EXTRA = ("Function",)

_NUMPY_FUNCTIONS = (
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
_NUMPY_VALUES = (
    "ndarray", "dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
    "bool_", "complex64", "complex128", "integer", "floating", "number", "generic", "pi", "e", "inf",
    "nan", "newaxis",
)
_NUMPY_RANDOM = ("seed", "rand", "randn", "randint", "random", "normal", "uniform", "permutation",
                 "shuffle", "choice", "standard_normal")

MODULE_NAMES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.autograd",
                "torch.cuda", "torch.optim", "numpy", "numpy.random", "math", "paddle", "paddle.nn", "paddle.nn.functional",
                "paddle.nn.initializer", "paddle.nn.init", "paddle.device", "paddle.device.cuda", "paddle.optimizer",
                "paddle.tensor", "paddle.utils", "paddle.utils.dlpack")
# The Paddle dialect (engine.paddle): module -> (engine module path, submodules)
_PADDLE_MODULES = {
    "paddle": ("engine.paddle", {"nn": "paddle.nn", "device": "paddle.device", "optimizer": "paddle.optimizer",
                                 "tensor": "paddle.tensor", "utils": "paddle.utils"}),
    "paddle.nn": ("engine.paddle.nn", {"functional": "paddle.nn.functional",
                                       "initializer": "paddle.nn.initializer", "init": "paddle.nn.init"}),
    "paddle.nn.functional": ("engine.paddle.nn.functional", {}),
    "paddle.nn.initializer": ("engine.paddle.nn.initializer", {}),
    "paddle.nn.init": ("engine.paddle.nn.init", {}),
    "paddle.tensor": ("engine.paddle.tensor_api", {}),
    "paddle.utils": ("engine.paddle.utils", {"dlpack": "paddle.utils.dlpack"}),
    "paddle.utils.dlpack": ("engine.paddle.utils.dlpack", {}),
    "paddle.device": ("engine.paddle.device", {"cuda": "paddle.device.cuda"}),
    "paddle.device.cuda": ("engine.paddle.device.cuda", {}),
    "paddle.optimizer": ("engine.paddle.optimizer", {}),
}
_PADDLE_PRIVATE = frozenset({"_inplace_version", "_is_shared_buffer_with", "_grad_ivar", "_bump_inplace_version",
                             "_offset"})
_PADDLE_LAYER_PRIVATE = frozenset({"_parameters", "_sub_layers"})


def _is_paddle_tensor(obj: Any) -> bool:
    paddle = sys.modules.get("engine.paddle")
    return paddle is not None and isinstance(obj, paddle.Tensor)


def _paddle_private(obj: Any, name: str) -> bool:
    """The few private names Paddle users read: `_inplace_version()`, and a Layer's tables."""
    if name in _PADDLE_PRIVATE:
        return _is_paddle_tensor(obj)
    if name in _PADDLE_LAYER_PRIVATE:
        nn = sys.modules.get("engine.paddle.nn")
        return nn is not None and isinstance(obj, nn.Layer)
    return False


def _public_api(module: types.ModuleType) -> list[str]:
    """A package's public names: its __all__, else the engine classes and the functions the module
    defines itself (not helpers it imported)."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        owner = getattr(value, "__module__", None) or ""
        if (isinstance(value, type) and owner.startswith("engine")) or (callable(value) and owner == module.__name__):
            names.append(name)
    return names


# ----------------------------------------------------------------------------- the policy


class Sandbox:
    """The policy for one interpreter: its builtins, modules, attribute rules, meter and output."""

    def __init__(self, meter: Meter, call: Callable[..., Any], namespace: dict[str, Any]) -> None:
        self.meter = meter
        self.call = call  # the interpreter's metered call, for builtins that call user functions
        self.namespace = namespace  # the user's names, for dir()
        self.user_classes: weakref.WeakSet[type] = weakref.WeakSet()
        self.output: list[str] = []
        self.output_chars = 0
        self.formatter = SafeFormatter(self.getattr)
        self.free_ids: frozenset[int] = frozenset()
        self.builtins = make_builtins(self)
        self._modules: dict[str, ModuleProxy] = {}

    # ------------------------------------------------------------------ output
    def write(self, text: str) -> None:
        self.output_chars += len(text)
        if self.output_chars > MAX_OUTPUT_CHARS:
            raise LimitExceeded("RuntimeError", f"statement printed more than {MAX_OUTPUT_CHARS:,} characters")
        self.output.append(text)

    def take_output(self) -> str:
        text = "".join(self.output)
        self.output.clear()
        self.output_chars = 0
        return text

    # ------------------------------------------------------------------ user classes
    def register_class(self, cls: type) -> None:
        self.user_classes.add(cls)

    def _user_mro(self, obj: Any) -> tuple[type, ...] | None:
        """The MRO of obj's class (or of obj, a class) when a user class is in it, else None."""
        mro = _class_of(obj).__mro__
        return mro if any(c in self.user_classes for c in mro) else None

    def _user_private(self, obj: Any, name: str) -> bool:
        """A `_name` of a user object that no engine or builtin class in its MRO defines."""
        mro = self._user_mro(obj)
        return mro is not None and not any(name in vars(c) for c in mro if c not in self.user_classes)

    # ------------------------------------------------------------------ attributes
    @gateway
    def check_read(self, obj: Any, name: Any) -> None:
        """Raise AttributeError unless user code may read `obj.name`."""
        if not isinstance(name, str):
            raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        if isinstance(obj, ModuleProxy):
            if name.startswith("_") and name != "__version__":
                raise refuse_attribute(name, "private name of a module")
        elif _is_internal(obj):
            if name not in _class_of(obj).public_attributes and name not in ("__name__", "__qualname__"):
                raise refuse_attribute(name, "interpreter internals")
        elif name.startswith("__"):
            if name not in _SAFE_DUNDERS and name not in _SAFE_DUNDER_METHODS:
                hint = "; use type(obj)" if name == "__class__" else ""
                raise refuse_attribute(name, f"names starting with '__' are blocked{hint}")
        elif name.startswith("_"):
            if not self._private_readable(obj, name):
                raise refuse_attribute(name, f"private attribute of '{type(obj).__name__}'")
        else:
            self._check_public(obj, name)

    def readable(self, obj: Any, name: str) -> bool:
        """Whether the policy lets user code read `obj.name` (without reading it)."""
        try:
            self.check_read(obj, name)
        except AttributeError:
            return False
        return True

    def _private_readable(self, obj: Any, name: str) -> bool:
        return ((name in _PRIVATE_READABLE and isinstance(obj, engine.Tensor))
                or _paddle_private(obj, name)
                or (name.startswith("_saved_") and isinstance(obj, Node))
                or (name in _MODULE_PRIVATE and isinstance(obj, Module))
                or self._user_private(obj, name))

    @staticmethod
    @gateway
    def _check_public(obj: Any, name: str) -> None:
        if name.startswith(_BLOCKED_PREFIXES) or name in _BLOCKED_NAMES or (
                name.startswith("f_") and isinstance(obj, types.FrameType)):
            raise refuse_attribute(name, "interpreter internals")
        if _is_numpy(obj) and (name in _NUMPY_BLOCKED or isinstance(obj, type)):
            raise refuse_attribute(name, "numpy file, raw-memory and class attributes")

    @gateway
    def check_write(self, obj: Any, name: Any) -> None:
        """Raise AttributeError unless user code may set or delete `obj.name`."""
        if not isinstance(name, str):
            raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        if isinstance(obj, (ModuleProxy, types.ModuleType)) or _is_internal(obj):
            raise AttributeError(f"cannot set attributes of '{type(obj).__name__}' objects in tensorscope")
        if isinstance(obj, type) and self._user_mro(obj) is None:
            raise AttributeError(f"cannot set attributes of the class '{obj.__name__}' in tensorscope")
        if name.startswith("__"):
            raise refuse_attribute(name, "names starting with '__' are blocked")
        if name.startswith("_") and not self._user_private(obj, name):
            raise refuse_attribute(name, f"private attribute of '{type(obj).__name__}'")
        self._check_public(obj, name)

    @gateway
    def getattr(self, obj: Any, name: Any) -> Any:
        """`obj.name` under the attribute policy, with size-guarded methods where needed."""
        self.check_read(obj, name)
        value = getattr(obj, name)
        if name in _SAFE_DUNDERS and not isinstance(value, (str, type(None))):
            raise refuse_attribute(name, "not a string")
        return self.checked(self._guard_method(obj, name, value), f"attribute '{name}'")

    def checked(self, value: Any, what: str) -> Any:
        """A result handed to user code: never a module, frame or code object; large ones make
        the meter look at memory."""
        check_value(value, what)
        if is_large(value):
            self.meter.check_memory()
        return value

    def _guard_method(self, obj: Any, name: str, value: Any) -> Any:
        """The guarded stand-in for methods that could build huge results or bypass the policy."""
        if name in _STRING_GUARDS:
            if isinstance(obj, (str, bytes, bytearray)):
                return _bound(_STRING_GUARDS[name], self, obj, name=f"{type(obj).__name__}.{name}")
            if obj is str or obj is bytes or obj is bytearray:
                return _bound(_STRING_GUARDS[name], self, name=f"{obj.__name__}.{name}")
        if isinstance(obj, np.ndarray) and callable(value):
            if name == "tolist":
                return _limited_tolist(obj.size, value)
            return _numpy_guarded(name, value, obj, "numpy.ndarray")
        if name == "tolist" and isinstance(obj, engine.Tensor):
            return _limited_tolist(obj.numel(), value)
        if name == "tolist" and _is_paddle_tensor(obj):
            return _limited_tolist(int(obj.size), value)
        if obj is int and name == "from_bytes":
            return _int_from_bytes
        return value

    @gateway
    def setattr(self, obj: Any, name: Any, value: Any) -> None:
        self.check_write(obj, name)
        setattr(obj, name, value)

    @gateway
    def delattr(self, obj: Any, name: Any) -> None:
        self.check_write(obj, name)
        delattr(obj, name)

    # ------------------------------------------------------------------ calls
    @gateway
    def before_call(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Meter a call into non-interpreted code (containers it is given cost a step per item) and
        refuse the calls the policy forbids."""
        work = 0
        if id(func) not in self.free_ids:
            for value in (*args, *kwargs.values()):
                if type(value) in _COSTED:
                    work += len(value)
        self.meter.tick(1 + work)
        if func is type and len(args) != 1:
            raise TypeError("type() takes 1 argument in tensorscope (classes are made with `class`)")
        if func is int and args and isinstance(args[0], (str, bytes, bytearray)) and len(args[0]) > MAX_INT_BITS // 4:
            raise refuse_size("int() of a string", len(args[0]), MAX_INT_BITS // 4, "digits")
        if func is np.ndarray:
            check_array_size("numpy.ndarray()", numpy_result_size("ndarray", None, args, kwargs))
        if (func is bytes or func is bytearray) and args and _is_int(args[0]) and args[0] > MAX_ITEMS:
            raise refuse_size(f"{func.__name__}()", args[0], MAX_ITEMS)
        if isinstance(func, type) and _is_internal(func):
            raise TypeError(f"cannot create '{func.__name__}' objects in tensorscope")

    @gateway
    def check_bases(self, bases: tuple[Any, ...]) -> None:
        """User classes may not extend the interpreter's own classes, nor `type` (a metaclass
        could make classes without going through `class`)."""
        for base in bases:
            if isinstance(base, type) and (_is_internal(base) or issubclass(base, type)):
                raise TypeError(f"classes may not inherit from '{base.__name__}' in tensorscope")

    # ------------------------------------------------------------------ imports
    @gateway
    def import_module(self, dotted: str) -> ModuleProxy:
        """The proxy for `import dotted`, or ModuleNotFoundError naming what is available."""
        if dotted not in MODULE_NAMES:
            raise ModuleNotFoundError(
                f"No module named '{dotted}' (tensorscope provides: {', '.join(MODULE_NAMES)})")
        if dotted not in self._modules:
            self._modules[dotted] = self._build_module(dotted)
        return self._modules[dotted]

    @gateway
    def import_from(self, module: ModuleProxy, dotted: str, name: str) -> Any:
        try:
            return getattr(module, name)
        except AttributeError:
            raise ImportError(f"cannot import name '{name}' from '{dotted}' (tensorscope)") from None

    def _build_module(self, dotted: str) -> ModuleProxy:
        if dotted in _PADDLE_MODULES:
            path, submodules = _PADDLE_MODULES[dotted]
            return self._engine_module(dotted, importlib.import_module(path), (), submodules)
        if dotted == "torch":
            dtypes = [n for n, v in vars(engine).items() if isinstance(v, engine.dtype) and not n.startswith("_")]
            return self._engine_module("torch", engine, (*_TORCH_EXTRA, *dtypes), _TORCH_SUBMODULES)
        if dotted == "torch.nn":
            return self._engine_module("torch.nn", engine.nn, (), _NN_SUBMODULES)
        if dotted == "torch.autograd":
            return self._engine_module("torch.autograd", engine.autograd, _AUTOGRAD_EXTRA)
        if dotted.startswith("torch."):
            modules = {"torch.nn.functional": engine.nn.functional, "torch.nn.init": engine.nn.init,
                       "torch.cuda": engine.cuda, "torch.optim": engine.optim}
            return self._engine_module(dotted, modules[dotted])
        if dotted == "numpy":
            return ModuleProxy(dotted, [*_NUMPY_FUNCTIONS, *_NUMPY_VALUES, "random", "__version__"], self._numpy, np)
        if dotted == "numpy.random":
            return ModuleProxy(dotted, _NUMPY_RANDOM, lambda n: _numpy_guarded(n, getattr(np.random, n), None, dotted),
                               np.random)
        return ModuleProxy(dotted, [n for n in vars(math) if not n.startswith("_")], self._math, math)

    def _engine_module(self, dotted: str, module: types.ModuleType, extra: tuple[str, ...] = (),
                       submodules: dict[str, str] | None = None) -> ModuleProxy:
        """An engine package: its public API (plus `extra` names it defines), with the listed
        submodules as proxies and any other module left out."""
        submodules = submodules or {}
        defined = vars(module)
        names = {*_public_api(module), *(n for n in extra if n in defined), *submodules}

        def resolve(name: str) -> Any:
            if name in submodules:
                return self.import_module(submodules[name])
            value = getattr(module, name)
            if isinstance(value, types.ModuleType):
                raise AttributeError(f"module '{dotted}' has no attribute '{name}' (not available in tensorscope)")
            return value

        return ModuleProxy(dotted, names, resolve, module)

    def _numpy(self, name: str) -> Any:
        if name == "random":
            return self.import_module("numpy.random")
        if name in _NUMPY_FUNCTIONS:
            return _numpy_guarded(name, getattr(np, name))
        return getattr(np, name)

    def _math(self, name: str) -> Any:
        guarded = {"factorial": _math_factorial, "comb": _math_comb, "perm": _math_perm}
        if name == "prod":
            return _bound(_math_prod, self.meter, name="prod")
        return guarded.get(name) or getattr(math, name)


_COSTED = frozenset({list, tuple, dict, set, frozenset, range})


# ----------------------------------------------------------------------------- guarded functions


@gateway
def _int_from_bytes(data: Any, *args: Any, **kwargs: Any) -> int:
    check_int_bits(len(data) * 8)
    return int.from_bytes(data, *args, **kwargs)


@gateway
def _math_factorial(n: Any) -> int:
    if _is_int(n) and n > 1:
        check_int_bits(int(n * math.log2(n)))
    return math.factorial(n)


@gateway
def _math_comb(n: Any, k: Any) -> int:
    if _is_int(n):
        check_int_bits(n)
    return math.comb(n, k)


@gateway
def _math_perm(n: Any, k: Any = None) -> int:
    count = n if k is None else k
    if _is_int(n) and _is_int(count) and n > 1:
        check_int_bits(int(count * math.log2(n)))
    return math.perm(n, k)


@gateway
def _math_prod(meter: Meter, iterable: Any, *, start: Any = 1) -> Any:
    result = start
    for value in Counted(iter(iterable), meter):
        check_binop(operator.mul, result, value)
        result = result * value
    return result


@gateway
def _guard_join(sandbox: Sandbox, sep: Any, iterable: Any) -> Any:
    items = list(Counted(iter(iterable), sandbox.meter))
    size = sum(len(i) for i in items if isinstance(i, (str, bytes, bytearray))) + len(sep) * max(len(items) - 1, 0)
    if size > MAX_ITEMS:
        raise refuse_size("the joined string", size, MAX_ITEMS, "characters")
    return sep.join(items)


def _guard_width(method: str) -> Callable[..., Any]:
    @gateway
    def padded(sandbox: Sandbox, text: Any, width: Any, *args: Any) -> Any:
        if hasattr(type(width), "__index__") and operator.index(width) > MAX_ITEMS:
            raise refuse_size(f"{method}()", operator.index(width), MAX_ITEMS, "characters")
        return getattr(text, method)(width, *args)

    return padded


@gateway
def _guard_replace(sandbox: Sandbox, text: Any, old: Any, new: Any, count: Any = -1) -> Any:
    if isinstance(old, type(text)) and isinstance(new, type(text)):
        hits = text.count(old) + (0 if old else 1)
        size = len(text) + hits * (len(new) - len(old))
        if size > MAX_ITEMS:
            raise refuse_size("the replaced string", size, MAX_ITEMS, "characters")
    return text.replace(old, new, count)


@gateway
def _guard_expandtabs(sandbox: Sandbox, text: Any, tabsize: Any = 8) -> Any:
    tab = "\t" if isinstance(text, str) else b"\t"
    if _is_int(tabsize) and len(text) + text.count(tab) * tabsize > MAX_ITEMS:
        raise refuse_size("expandtabs()", len(text) + text.count(tab) * tabsize, MAX_ITEMS, "characters")
    return text.expandtabs(tabsize)


@gateway
def _guard_translate(sandbox: Sandbox, text: Any, table: Any) -> Any:
    if isinstance(text, str) and isinstance(table, dict):
        longest = max((len(v) for v in table.values() if isinstance(v, str)), default=1)
        if len(text) * longest > MAX_ITEMS:
            raise refuse_size("the translated string", len(text) * longest, MAX_ITEMS, "characters")
    return text.translate(table)


@gateway
def _guard_format(sandbox: Sandbox, template: Any, *args: Any, **kwargs: Any) -> str:
    if not isinstance(template, str):
        raise TypeError(f"descriptor 'format' for 'str' objects doesn't apply to a '{type(template).__name__}' object")
    return sandbox.formatter.vformat(template, args, kwargs)


@gateway
def _guard_format_map(sandbox: Sandbox, template: Any, mapping: Any) -> str:
    if not isinstance(template, str):
        raise TypeError(f"descriptor 'format_map' for 'str' objects doesn't apply to a '{type(template).__name__}' object")
    return sandbox.formatter.vformat(template, (), mapping)


_STRING_GUARDS: dict[str, Callable[..., Any]] = {
    "join": _guard_join, "replace": _guard_replace, "expandtabs": _guard_expandtabs,
    "translate": _guard_translate, "format": _guard_format, "format_map": _guard_format_map,
    **{m: _guard_width(m) for m in ("ljust", "rjust", "center", "zfill")},
}


# ----------------------------------------------------------------------------- builtins

_PLAIN_BUILTINS = (
    "abs", "all", "any", "ascii", "bin", "bool", "callable", "chr", "classmethod", "complex", "dict",
    "divmod", "float", "frozenset", "hash", "hex", "id", "int", "isinstance", "issubclass", "len",
    "list", "max", "min", "next", "object", "oct", "ord", "property", "range", "repr", "round", "set",
    "slice", "sorted", "staticmethod", "str", "super", "tuple", "type", "NotImplemented", "Ellipsis",
    "BaseException", "Exception", "ArithmeticError", "AssertionError", "AttributeError", "BufferError",
    "EOFError", "FloatingPointError", "ImportError", "IndexError", "KeyError", "LookupError",
    "MemoryError", "ModuleNotFoundError", "NameError", "NotImplementedError", "OSError",
    "OverflowError", "RecursionError", "ReferenceError", "RuntimeError", "StopIteration",
    "TypeError", "UnboundLocalError", "UnicodeError", "ValueError", "ZeroDivisionError", "Warning",
    "UserWarning", "DeprecationWarning", "RuntimeWarning", "FutureWarning",
)
_METERED_BUILTINS = ("print", "iter", "zip", "enumerate", "reversed", "map", "filter", "sum", "pow",
                     "format", "getattr", "hasattr", "setattr", "delattr", "dir")
_LEFT_OUT = (frozenset(n for n in dir(builtins) if not n.startswith("_"))
             - frozenset(_PLAIN_BUILTINS) - frozenset(_METERED_BUILTINS)) | {"__import__", "__build_class__", "__builtins__"}
_NO_SENTINEL = object()


def left_out_builtin(name: str) -> bool:
    """Whether `name` is a Python builtin tensorscope deliberately leaves out (open, eval, ...)."""
    return name in _LEFT_OUT


def make_builtins(sandbox: Sandbox) -> dict[str, Any]:
    """The names user code sees besides its own: an explicit allowlist, metered where needed."""
    meter = sandbox.meter
    table: dict[str, Any] = {name: builtins.getattr(builtins, name) for name in _PLAIN_BUILTINS}

    @gateway
    def print(*values: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False) -> None:
        if file is not None:
            raise TypeError("print(file=...) is not supported in tensorscope")
        for what, value in (("sep", sep), ("end", end)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{what} must be None or a string, not {type(value).__name__}")
        sep = " " if sep is None else sep
        sandbox.write(sep.join(str(v) for v in values) + ("\n" if end is None else end))

    @gateway
    def iter(obj: Any, sentinel: Any = _NO_SENTINEL) -> Counted:
        if sentinel is not _NO_SENTINEL:
            if not callable(obj):
                raise TypeError("iter(v, w): v must be callable")
            return Counted(builtins.iter(lambda: sandbox.call(obj), sentinel), meter)
        return obj if isinstance(obj, Counted) else Counted(builtins.iter(obj), meter)

    @gateway
    def zip(*iterables: Any, strict: bool = False) -> Counted:
        return Counted(builtins.zip(*iterables, strict=strict), meter)

    @gateway
    def enumerate(iterable: Any, start: int = 0) -> Counted:
        return Counted(builtins.enumerate(iterable, start), meter)

    @gateway
    def reversed(sequence: Any) -> Counted:
        return Counted(builtins.reversed(sequence), meter)

    @gateway
    def map(function: Any, *iterables: Any) -> Counted:
        if not iterables:
            raise TypeError("map() must have at least two arguments.")
        iterators = [builtins.iter(i) for i in iterables]
        return Counted((sandbox.call(function, *items) for items in builtins.zip(*iterators, strict=False)), meter)

    @gateway
    def filter(function: Any, iterable: Any) -> Counted:
        iterator = builtins.iter(iterable)
        if function is None:
            return Counted((x for x in iterator if x), meter)
        return Counted((x for x in iterator if sandbox.call(function, x)), meter)

    @gateway
    def sum(iterable: Any, /, start: Any = 0) -> Any:
        if isinstance(start, (int, float, complex)) and not isinstance(start, bool):
            return builtins.sum(iterable, start)
        if isinstance(start, (str, bytes, bytearray)):
            raise TypeError(f"sum() can't sum {type(start).__name__} [use ''.join(seq) instead]")
        for value in Counted(builtins.iter(iterable), meter):
            check_binop(operator.add, start, value)
            start = start + value
        return start

    @gateway
    def pow(base: Any, exp: Any, mod: Any = None) -> Any:
        if mod is None:
            check_int_pow(base, exp)
        return builtins.pow(base, exp, mod)

    @gateway
    def format(value: Any, format_spec: str = "") -> str:
        check_format_spec(format_spec)
        return builtins.format(value, format_spec)

    @gateway
    def getattr(obj: Any, name: Any, *default: Any) -> Any:
        if len(default) > 1:
            raise TypeError(f"getattr expected at most 3 arguments, got {2 + len(default)}")
        try:
            return sandbox.getattr(obj, name)
        except AttributeError:
            if default:
                return default[0]
            raise

    @gateway
    def hasattr(obj: Any, name: Any) -> bool:
        try:
            sandbox.getattr(obj, name)
        except AttributeError:
            return False
        return True

    @gateway
    def setattr(obj: Any, name: Any, value: Any) -> None:
        sandbox.setattr(obj, name, value)

    @gateway
    def delattr(obj: Any, name: Any) -> None:
        sandbox.delattr(obj, name)

    @gateway
    def dir(*obj: Any) -> list[str]:
        if not obj:
            return sorted(sandbox.namespace)
        return [name for name in builtins.dir(*obj) if not name.startswith("_") and sandbox.readable(obj[0], name)]

    metered = (print, iter, zip, enumerate, reversed, map, filter, sum, pow, format, getattr, hasattr,
               setattr, delattr, dir)
    for fn in metered:
        fn.__qualname__ = fn.__name__  # error messages say `print()`, as Python's do
    table.update({fn.__name__: fn for fn in metered}, __name__="__main__")
    sandbox.free_ids = frozenset(id(fn) for fn in (
        len, isinstance, issubclass, id, type, callable, next, builtins.range, super, bool,
        getattr, hasattr, setattr, delattr, iter, zip, enumerate, reversed, map, filter))
    return table
