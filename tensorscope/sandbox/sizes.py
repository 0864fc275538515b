"""Size guards: refuse results that would be too large before Python builds them.

Each guard looks at the operands of one operation (`*`, `**`, `<<`, `+`, `%`, a format spec, a
math function) and raises MemoryError when the result would pass its limit.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import (
    MAX_ARRAY_ITEMS,
    MAX_FORMAT_WIDTH,
    MAX_INT_BITS,
    MAX_ITEMS,
    Counted,
    Meter,
    refuse_size,
)

_SEQUENCES = (str, bytes, bytearray, list, tuple)


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def shape_size(shape: Any) -> int:
    dims = (shape,) if hasattr(type(shape), "__index__") else tuple(shape)
    return math.prod(max(operator.index(d), 0) for d in dims)


def array_shape(value: Any) -> tuple[int, ...] | None:
    if isinstance(value, (np.ndarray, np.generic)):
        return value.shape
    if isinstance(value, (list, tuple)):
        try:
            return np.shape(value)
        except ValueError:
            return None
    return None


def broadcast_size(values: Any) -> int:
    """An upper bound on what an elementwise numpy call over `values` allocates."""
    shapes = [s for s in map(array_shape, values) if s is not None]
    try:
        broadcast = math.prod(np.broadcast_shapes(*shapes)) if shapes else 0
    except ValueError:
        broadcast = 0  # numpy itself will refuse the shapes
    return max([broadcast, *(math.prod(s) for s in shapes)])


def matmul_size(a: Any, b: Any) -> int:
    sa, sb = array_shape(a), array_shape(b)
    if not sa or not sb:
        return broadcast_size((a, b))
    return math.prod(sa[:-1]) * math.prod(sb[:-2]) * (sb[-1] if len(sb) >= 2 else 1)


@gateway
def check_binop(op: Callable[..., Any], a: Any, b: Any) -> None:
    """Refuse `*`, `**`, `<<`, `+` and `%` results that would be too large to build."""
    if op in (operator.mul, operator.imul):
        check_repeat(a, b)
        check_repeat(b, a)
        if is_int(a) and is_int(b):
            check_int_bits(a.bit_length() + b.bit_length())
    elif op in (operator.pow, operator.ipow):
        check_int_pow(a, b)
    elif op in (operator.lshift, operator.ilshift):
        if is_int(a) and is_int(b) and a:
            check_int_bits(a.bit_length() + b)
    elif op in (operator.add, operator.iadd):
        if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES) and len(a) + len(b) > MAX_ITEMS:
            raise refuse_size("the concatenation", len(a) + len(b), MAX_ITEMS)
    elif op in (operator.mod, operator.imod) and isinstance(a, (str, bytes)):
        check_percent_format(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        matmul = op in (operator.matmul, operator.imatmul)
        check_array_size("the numpy result", matmul_size(a, b) if matmul else broadcast_size((a, b)))


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
    if is_int(base) and is_int(exponent) and exponent > 0 and abs(base) > 1:
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
    widest = max((v for v in values if is_int(v)), default=0)
    for match in _PERCENT_SPEC.finditer(text):
        for group in match.groups():
            if group == "*" and widest > MAX_FORMAT_WIDTH:
                raise refuse_size("the formatted field", widest, MAX_FORMAT_WIDTH, "characters")
            if group not in (None, "*"):
                check_format_spec(group)


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
def math_prod(meter: Meter, iterable: Any, *, start: Any = 1) -> Any:
    result = start
    for value in Counted(iter(iterable), meter):
        check_binop(operator.mul, result, value)
        result = result * value
    return result
