"""Size guards: refuse results that would be too large before Python or numpy builds them.

Each guard looks at the operands of one operation (`*`, `**`, `<<`, `+`, `%`, a format spec, a
math function, a numpy call) and raises MemoryError when the result would pass its limit. Sizes
are bytes: a string counts its characters at their storage width, a list its pointers, a numpy
array its elements at their itemsize (a `U2500` element is 10,000 bytes). Lengths are read through
the built-in type's own `__len__`, so a subclass cannot under-report them.
"""

from __future__ import annotations

import collections
import math
import operator
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

import engine
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import (
    MAX_ARRAY_BYTES,
    MAX_FORMAT_WIDTH,
    MAX_INT_BITS,
    MAX_MATMUL_WORK,
    MAX_POW_WORK,
    MAX_SEQUENCE_BYTES,
    Counted,
    Meter,
    refuse_size,
    refuse_work,
)

_POINTER = 8  # bytes a list or tuple spends per item
_NUMBER = 8  # bytes numpy spends per number unless told otherwise (float64, int64)
_PLAIN_NUMBERS = (int, float, bool)
_UNSIZED_TEXT = 4 * 64  # numbers made into text (`astype(str)`): up to 64 characters each


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_index(value: object) -> bool:
    """A plain integer (or numpy integer) usable as a count: no user `__index__` runs."""
    return is_int(value) or isinstance(value, np.integer)


# ----------------------------------------------------------------------------- Python sequences

def str_width(text: str) -> int:
    """Bytes per character Python uses for text (an upper bound: 1 for ASCII, else 4)."""
    return 1 if str.isascii(text) else 4


def sequence_bytes(value: Any) -> int | None:
    """The bytes a str, bytes, bytearray, list, tuple or deque holds (not counting what a list points
    to), read through the built-in type, or None for anything else."""
    if isinstance(value, str):
        return str.__len__(value) * str_width(value)
    if isinstance(value, (bytes, bytearray)):
        return len(memoryview(value))
    if isinstance(value, list):
        return list.__len__(value) * _POINTER
    if isinstance(value, tuple):
        return tuple.__len__(value) * _POINTER
    if isinstance(value, collections.deque):
        return collections.deque.__len__(value) * _POINTER
    return None


def range_length(values: range) -> int:
    """len(range), also for ranges longer than sys.maxsize."""
    step = values.step
    return max(0, (values.stop - values.start + step - (1 if step > 0 else -1)) // step)


@gateway
def check_sequence_bytes(what: str, size: int) -> None:
    if size > MAX_SEQUENCE_BYTES:
        raise refuse_size(what, size, MAX_SEQUENCE_BYTES)


@gateway
def check_joined(texts: list[str]) -> None:
    """An f-string's parts, before they are joined: `f'{big}{big}...'`."""
    chars = sum(map(str.__len__, texts))
    if chars * 4 > MAX_SEQUENCE_BYTES:
        check_sequence_bytes("the formatted string", chars * max(map(str_width, texts)))


@gateway
def check_repeat(seq: Any, times: Any) -> None:
    size = sequence_bytes(seq)
    if size is not None and is_index(times):
        check_sequence_bytes("the repeated sequence", size * max(int(times), 0))


@gateway
def check_concatenation(a: Any, b: Any) -> None:
    if isinstance(a, str) and isinstance(b, str):
        chars = str.__len__(a) + str.__len__(b)
        if chars * 4 > MAX_SEQUENCE_BYTES:
            check_sequence_bytes("the concatenation", chars * max(str_width(a), str_width(b)))
        return
    size_a, size_b = sequence_bytes(a), sequence_bytes(b)
    if size_a is not None and size_b is not None:
        check_sequence_bytes("the concatenation", size_a + size_b)


@gateway
def check_binop(op: Callable[..., Any], a: Any, b: Any) -> None:
    """Refuse `*`, `**`, `<<`, `+`, `%` and numpy results that would be too large to build."""
    if (type(a) is float and type(b) in _PLAIN_NUMBERS) or (type(b) is float and type(a) in _PLAIN_NUMBERS):
        return  # float arithmetic has a fixed size
    if op is operator.mul or op is operator.imul:
        check_repeat(a, b)
        check_repeat(b, a)
        if is_int(a) and is_int(b):
            check_int_bits(a.bit_length() + b.bit_length())
    elif op is operator.pow or op is operator.ipow:
        check_int_pow(a, b)
    elif op is operator.lshift or op is operator.ilshift:
        if is_int(a) and is_int(b) and a:
            check_int_bits(a.bit_length() + b)
    elif op is operator.add or op is operator.iadd:
        check_concatenation(a, b)
    elif (op is operator.mod or op is operator.imod) and isinstance(a, (str, bytes)):
        check_percent_format(a, b)
    elif (op is operator.or_ or op is operator.ior) and (type(a) is str) != (type(b) is str):
        check_forward_union(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if op is operator.matmul or op is operator.imatmul:
            check_matmul("the numpy result", a, b)
        else:
            check_array_bytes("the numpy result", elementwise_bytes((a, b)))


@gateway
def check_forward_union(a: Any, b: Any) -> None:
    """`Optional[int] | 'X'`: typing would compile 'X' (see stdlib.typing_module)."""
    other = b if type(a) is str else a
    if type(other).__module__ == "typing":
        raise TypeError("tensorscope does not take a string in `|` with a typing type; "
                        "write Optional['X'] or Union[..., 'X']")


# ----------------------------------------------------------------------------- integers

@gateway
def check_int_bits(bits: int) -> None:
    if bits > MAX_INT_BITS:
        raise refuse_size("the integer", bits, MAX_INT_BITS, "bits")


@gateway
def check_int_pow(base: Any, exponent: Any) -> None:
    if is_int(base) and is_int(exponent) and exponent > 0 and abs(base) > 1:
        check_int_bits((base.bit_length() - 1) * exponent)


@gateway
def check_modular_pow(exponent: Any, modulus: Any) -> None:
    """pow(b, e, m) takes time in proportion to e's bits times m's bits squared."""
    if is_int(exponent) and is_int(modulus):
        work = abs(exponent).bit_length() * abs(modulus).bit_length() ** 2
        if work > MAX_POW_WORK:
            raise refuse_work("pow() with a modulus", work, MAX_POW_WORK, "bit operations")


@gateway
def int_from_bytes(data: Any, *args: Any, **kwargs: Any) -> int:
    check_int_bits(len(data) * 8)
    return int.from_bytes(data, *args, **kwargs)


@gateway
def math_factorial(n: Any) -> int:
    if is_int(n) and n > 1:
        check_int_bits(int(n * math.log2(n)))
    return math.factorial(n)


@gateway
def math_comb(n: Any, k: Any) -> int:
    if is_int(n):
        check_int_bits(n)
    return math.comb(n, k)


@gateway
def math_perm(n: Any, k: Any = None) -> int:
    count = n if k is None else k
    if is_int(n) and is_int(count) and n > 1:
        check_int_bits(int(count * math.log2(n)))
    return math.perm(n, k)


@gateway
def math_lcm(*integers: Any) -> int:
    """The lcm can have as many bits as all its arguments together (`math.lcm(*range(1, 10**5))`)."""
    check_int_bits(sum(abs(n).bit_length() for n in integers if is_int(n)))
    return math.lcm(*integers)


@gateway
def math_prod(meter: Meter, iterable: Any, *, start: Any = 1) -> Any:
    result = start
    for value in Counted(iter(iterable), meter):
        check_binop(operator.mul, result, value)
        result = result * value
    return result


# ----------------------------------------------------------------------------- format widths

_FORMAT_NUMBER = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")
_PERCENT_KEY = re.compile(r"%\(([^)]*)\)")


@gateway
def check_format_spec(spec: str) -> None:
    """Refuse format specs such as `{x:999999999}` that would build a huge string."""
    for number in _FORMAT_NUMBER.findall(str(spec)):
        if len(number) > 6 or int(number) > MAX_FORMAT_WIDTH:
            raise refuse_size("the formatted field", int(number[:4000]), MAX_FORMAT_WIDTH, "characters")


@gateway
def check_percent_format(template: str | bytes, args: Any) -> None:
    text = bytes(template).decode("latin-1") if isinstance(template, bytes) else str(template)
    values = args if isinstance(args, tuple) else (args,)
    widest = max((v for v in values if is_int(v)), default=0)
    for match in _PERCENT_SPEC.finditer(text):
        for group in match.groups():
            if group == "*" and widest > MAX_FORMAT_WIDTH:
                raise refuse_size("the formatted field", widest, MAX_FORMAT_WIDTH, "characters")
            if group not in (None, "*"):
                check_format_spec(group)
    check_percent_result(template, args)


def check_percent_result(template: str | bytes, args: Any) -> None:
    """`'%s%s...' % (big, big, ...)`: the text a %-format copies from its values, in bytes."""
    if type(args) is dict:
        keys = _percent_keys(template)
        values = [args[k] for k in keys if k in args]
    else:
        values = list(args) if type(args) is tuple else [args]
    texts = [v for v in values if isinstance(v, (str, bytes, bytearray))]
    if not texts:
        return  # numbers: their widths were checked above
    size = sum(sequence_bytes(v) or 0 for v in (template, *texts))
    if isinstance(template, str):
        size *= max([str_width(template), *(str_width(v) for v in texts if isinstance(v, str))])
    check_sequence_bytes("the formatted string", size)


def _percent_keys(template: str | bytes) -> list[Any]:
    """The `%(name)s` keys of a template, once per use, of the template's own type."""
    text = bytes(template).decode("latin-1") if isinstance(template, bytes) else str(template)
    keys = [match.group(1) for match in _PERCENT_KEY.finditer(text)]
    return [k.encode("latin-1") for k in keys] if isinstance(template, bytes) else keys


# ----------------------------------------------------------------------------- numpy results

class Extent(NamedTuple):
    """What an array-like argument would become in numpy: its shape (None when ragged), its
    element count, its widest element in bytes, and whether it holds text (numpy's string
    additions make wider elements)."""

    shape: tuple[int, ...] | None
    count: int
    itemsize: int
    text: bool = False


_SCALAR = Extent((), 1, _NUMBER)
_MAX_DIMS = 64  # numpy's own limit; deeper lists are left to numpy to refuse


def extent(value: Any, _memo: dict[int, Extent] | None = None, _depth: int = 0) -> Extent | None:
    """The Extent of an array, tensor, scalar or nested list/tuple, without building anything.
    Shared sublists (`[[0.0] * 1000] * 1000`) are measured once."""
    if isinstance(value, (np.ndarray, np.generic)):
        return Extent(value.shape, value.size, value.itemsize, value.dtype.kind in "US")
    if isinstance(value, engine.Tensor):
        return Extent(tuple(value.shape), value.numel(), value.element_size())
    if isinstance(value, (bool, int, float)):
        return _SCALAR
    if isinstance(value, complex):
        return Extent((), 1, 16)
    if isinstance(value, str):
        return Extent((), 1, max(str.__len__(value), 1) * 4, True)
    if isinstance(value, (bytes, bytearray)):
        return Extent((), 1, max(len(memoryview(value)), 1), True)
    if not isinstance(value, (list, tuple)):
        return None
    memo = {} if _memo is None else _memo
    known = memo.get(id(value))
    if known is not None:
        return known
    items = list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value)
    parts = [_SCALAR if _depth >= _MAX_DIMS else (extent(item, memo, _depth + 1) or _SCALAR) for item in items]
    shapes = {p.shape for p in parts}
    inner = shapes.pop() if len(shapes) == 1 else None
    shape = (len(parts), *inner) if inner is not None and None not in shapes else None
    if not parts:
        shape = (0,)
    found = Extent(shape, sum(p.count for p in parts), max((p.itemsize for p in parts), default=_NUMBER),
                   any(p.text for p in parts))
    memo[id(value)] = found
    return found


def extents(values: Any) -> list[Extent]:
    memo: dict[int, Extent] = {}
    return [e for e in (extent(v, memo) for v in values) if e is not None]


def result_itemsize(parts: list[Extent], dtype_itemsize: int | None = None) -> int:
    """The widest element a numpy result over these parts may have: the dtype asked for, else
    the widest input (text inputs added together: their widths summed), at least a float64; a
    text dtype of no given length (`dtype=str`, itemsize 0) adds room for a number's digits."""
    if dtype_itemsize:
        return dtype_itemsize
    text = sum(p.itemsize for p in parts if p.text)
    widest = max([_NUMBER, text, *(p.itemsize for p in parts)])
    return widest + _UNSIZED_TEXT if dtype_itemsize == 0 else widest


def broadcast_count(parts: list[Extent]) -> int:
    """Elements of the broadcast of the parts' shapes (0 when they do not broadcast: numpy will
    refuse them itself), or more if one part is bigger."""
    shapes = [p.shape for p in parts if p.shape is not None]
    largest = max((p.count for p in parts), default=0)
    if not shapes or all(s == shapes[0] for s in shapes):
        return largest
    ndim = max(map(len, shapes))
    dims = [1] * ndim
    for shape in shapes:
        for axis, size in enumerate(shape, start=ndim - len(shape)):
            if size != 1:
                if dims[axis] not in (1, size):
                    return largest
                dims[axis] = size
    return max(math.prod(dims), largest)


def elementwise_bytes(values: Any, dtype_itemsize: int | None = None) -> int:
    """An upper bound on what an elementwise numpy call over `values` allocates."""
    parts = extents(values)
    return broadcast_count(parts) * result_itemsize(parts, dtype_itemsize)


def matmul_shape_work(a: Any, b: Any) -> tuple[int, int, int]:
    """(result elements, multiply-adds, result itemsize) of a @ b, from the operands' extents."""
    ea, eb = extent(a), extent(b)
    if ea is None or eb is None or not ea.shape or not eb.shape:
        parts = [e for e in (ea, eb) if e is not None]
        return broadcast_count(parts), 0, result_itemsize(parts)
    sa, sb = ea.shape, eb.shape
    count = math.prod(sa[:-1]) * math.prod(sb[:-2]) * (sb[-1] if len(sb) >= 2 else 1)
    return count, count * sa[-1], result_itemsize([ea, eb])


@gateway
def check_matmul(what: str, a: Any, b: Any) -> None:
    count, work, itemsize = matmul_shape_work(a, b)
    check_array_bytes(what, count * itemsize)
    if work > MAX_MATMUL_WORK:
        raise refuse_work(what, work, MAX_MATMUL_WORK, "multiply-adds")


@gateway
def check_array_bytes(what: str, size: int) -> None:
    if size > MAX_ARRAY_BYTES:
        raise refuse_size(what, size, MAX_ARRAY_BYTES)
