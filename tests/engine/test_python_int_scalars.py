"""Python numbers as operands behave as PyTorch's argument parser and kernels take them.

A Python int becomes a Scalar: an int64, else a uint64, else CPython's own OverflowError, so
`x * 2**70` fails before any arithmetic whatever x's dtype and whichever operator (torch.tensor(2**70)
is no Scalar and converts). A number an op then takes in a narrow dtype must fit it (clamp's
bounds, add's alpha, pow's exponent, where's number). Integer division by zero is an error;
complex tensors have no order, no rounded division and no bitwise ops. Each snippet runs in real
PyTorch and in the engine, and everything it leaves behind is compared.
"""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")

HUGE = ("2**70", "-2**70", "2**64", "-2**63 - 1")
TENSORS = {
    "float": "torch.ones(2)",
    "int64": "torch.ones(2, dtype=torch.int64)",
    "int32": "torch.ones(2, dtype=torch.int32)",
    "uint8": "torch.ones(2, dtype=torch.uint8)",
    "bool": "torch.ones(2, dtype=torch.bool)",
    "float16": "torch.ones(2, dtype=torch.float16)",
    "complex": "torch.ones(2, dtype=torch.complex64)",
    "requiring grad": "torch.ones(2, requires_grad=True)",
    "0-dim": "torch.tensor(1.5)",
}
FORMS = {
    "x * v": "r = x * v", "v * x": "r = v * x", "x + v": "r = x + v", "v + x": "r = v + x",
    "x - v": "r = x - v", "v - x": "r = v - x", "x / v": "r = x / v", "v / x": "r = v / x",
    "x ** v": "r = x ** v", "v ** x": "r = v ** x", "x // v": "r = x // v", "x % v": "r = x % v",
    "x == v": "r = x == v", "x < v": "r = x < v", "x & v": "r = x & v",
    "x *= v": "y = x.detach().clone()\ny *= v", "x += v": "y = x.detach().clone()\ny += v",
    "mul_": "y = x.detach().clone()\ny.mul_(v)", "torch.mul": "r = torch.mul(x, v)",
    "add with alpha": "r = torch.add(x, x, alpha=v)", "sub with alpha": "r = torch.sub(x, x, alpha=v)",
    "clamp": "r = x.clamp(max=v)", "clamp_": "y = x.detach().clone()\ny.clamp_(min=v)",
    "where": "r = torch.where(x == x, x, v)", "fill_": "y = x.detach().clone()\ny.fill_(v)",
    "full": "r = torch.full((2,), v, dtype=x.dtype)", "torch.tensor (no Scalar)": "r = torch.tensor(v)",
}


@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize("tensor", TENSORS.values(), ids=TENSORS.keys())
@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_an_int_beyond_a_scalar_overflows_in_every_form(form: str, tensor: str, value: str) -> None:
    expected, got = torch_and_engine(f"x = {tensor}\nv = {value}\n{form}")
    assert got == expected


NARROW = {
    "int32 clamp past int": "r = torch.ones(2, dtype=torch.int32).clamp(max=2**40)",
    "int8 clamp_ to 300": "y = torch.ones(2, dtype=torch.int8)\ny.clamp_(min=300)",
    "uint8 clamp to -1": "r = torch.ones(2, dtype=torch.uint8).clamp(min=-1)",
    "int clamp by a float past float32": "r = torch.ones(2, dtype=torch.int32).clamp(max=1e39)",
    "float16 clamp past its range": "r = torch.ones(2, dtype=torch.float16).clamp(max=70000.0)",
    "float32 clamp past its range": "r = torch.ones(2).clamp(max=1e39)",
    "int8 alpha of 300": "x = torch.ones(2, dtype=torch.int8)\nr = torch.add(x, x, alpha=300)",
    "int alpha of a float": "x = torch.ones(2, dtype=torch.int32)\nr = torch.add(x, x, alpha=2.0)",
    "bool alpha of a float": "x = torch.ones(2, dtype=torch.bool)\nr = torch.add(x, x, alpha=0.5)",
    "float alpha of a float": "x = torch.ones(2)\nr = torch.sub(x, x, alpha=0.5)",
    "int8 to the 300th": "r = torch.ones(2, dtype=torch.int8) ** 300",
    "300 to an int8 power": "r = 300 ** torch.ones(2, dtype=torch.int8)",
    "int to a power past float32": "r = torch.ones(2, dtype=torch.int32) ** 1e39",
    "float16 to a power past its range": "r = torch.ones(2, dtype=torch.float16) ** 70000.0",
    "int32 where with 2**40": "x = torch.ones(2, dtype=torch.int32)\nr = torch.where(x > 0, x, 2**40)",
    "float16 where with 1e6": "x = torch.ones(2, dtype=torch.float16)\nr = torch.where(x > 0, x, 1e6)",
    "int times a float past float32": "r = torch.ones(2, dtype=torch.int32) * 1e39",
    "uint8 plus 300 wraps": "r = torch.ones(2, dtype=torch.uint8) + 300",
    "int8 sub with alpha 128 (-128 fits)": "x = torch.ones(2, dtype=torch.int8)\nr = torch.sub(x, x, alpha=128)",
    "int8 rsub with alpha 128": "x = torch.ones(2, dtype=torch.int8)\nr = torch.rsub(x, 2, alpha=128)",
    "int8 add with alpha 128": "x = torch.ones(2, dtype=torch.int8)\nr = torch.add(x, x, alpha=128)",
    "int8 sub with alpha -128": "x = torch.ones(2, dtype=torch.int8)\nr = torch.sub(x, x, alpha=-128)",
}


@pytest.mark.parametrize("code", NARROW.values(), ids=NARROW.keys())
def test_a_number_an_op_takes_in_a_narrow_dtype_must_fit_it(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


INT = "x = torch.tensor([4, 7], dtype=torch.int32)\n"
DIVISION = {
    "int // 0": INT + "r = x // 0",
    "int % 0": INT + "r = x % 0",
    "int // a zero tensor": INT + "r = x // torch.tensor([1, 0], dtype=torch.int32)",
    "int % a zero tensor": INT + "r = x % torch.tensor([0, 1], dtype=torch.int32)",
    "int32 // 2**40 (0 in int32)": INT + "r = x // 2**40",
    "div trunc by 0": INT + "r = torch.div(x, 0, rounding_mode='trunc')",
    "div floor by 0": INT + "r = torch.div(x, 0, rounding_mode='floor')",
    "floor_divide_ by 0 leaves x": INT + "try:\n    x.floor_divide_(0)\nexcept RuntimeError:\n    pass",
    "remainder_ by 0": INT + "x.remainder_(0)",
    "div_ floor by 0": INT + "x.div_(0, rounding_mode='floor')",
    "true division by 0 is inf": INT + "r = x / 0",
    "float // 0 is inf": "r = torch.tensor([4., -7.]) // 0",
    "int // 256 is 0": INT + "r = x // 256",
    "a number // ints with a zero": INT + "r = 3 // (x - 4)",
}


@pytest.mark.parametrize("code", DIVISION.values(), ids=DIVISION.keys())
def test_integer_division_by_zero_is_an_error(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


C = "c = torch.tensor([1 + 2j, -1j])\n"
COMPLEX = {
    "c > 0": C + "r = c > 0", "c <= c": C + "r = c <= c", "c == c": C + "r = c == c",
    "lt with out": C + "r = torch.lt(c, 1, out=torch.empty(2, dtype=torch.bool))",
    "lt_": C + "c.lt_(0)", "ge_": C + "c.ge_(c)",
    "maximum": C + "r = torch.maximum(c, c)", "minimum": C + "r = torch.minimum(c, c)",
    "clamp": C + "r = c.clamp(max=0)", "clamp_": C + "c.clamp_(0)", "clamp_min": C + "r = c.clamp_min(0)",
    "clamp with tensors": C + "r = c.clamp(torch.ones(1))",
    "c // 2": C + "r = c // 2", "c % 2": C + "r = c % 2", "2 // c": C + "r = 2 // c",
    "div trunc": C + "r = torch.div(c, 2, rounding_mode='trunc')",
    "floor_divide_": C + "c.floor_divide_(2)", "remainder_": C + "c.remainder_(2)",
    "c ** -2": C + "r = c ** -2", "c & 1": C + "r = c & 1",
    "float & 1": "r = torch.ones(2) & 1", "float16 | True": "r = torch.ones(2, dtype=torch.float16) | True",
}


@pytest.mark.parametrize("code", COMPLEX.values(), ids=COMPLEX.keys())
def test_complex_and_float_tensors_refuse_what_has_no_kernel(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


BOUNDARY = ("2**63", "2**64 - 1", "2**63 - 1", "-2**63")
NOT_COMPLEX = {name: code for name, code in TENSORS.items() if name != "complex"}  # see the note below


@pytest.mark.parametrize("value", BOUNDARY)
@pytest.mark.parametrize("tensor", NOT_COMPLEX.values(), ids=NOT_COMPLEX.keys())
@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_ints_at_the_edges_of_int64_and_uint64(form: str, tensor: str, value: str) -> None:
    """2**63 and up are uint64 Scalars: bool tensors refuse to promote with them, integer powers
    refuse them as exponents, the rest wrap as C++ casts. (A complex base of 2**63 raised to a
    complex tensor differs in the last digits: torch's complex pow is not numpy's.)"""
    expected, got = torch_and_engine(f"x = {tensor}\nv = {value}\n{form}")
    assert got == expected
