"""What torch's kernels give for the odd inputs: the rounding, abs, rounded division, remainder and
addcmul kernels have no bool instance (in place or not, empty or not), a bool squared is a long, sqrt and pow(0.5) of a negative give +NaN (MKL's; the
x86 instruction gives -NaN, which pow(-0.5) keeps), a NaN input keeps its sign; an integer division
writing nothing divides by nothing, cumsum_ of a 0-dim bool is a copy, and comparing a bfloat16 NaN
warns of nothing."""

import pytest

from tests.oracle import torch_and_engine

pytest.importorskip("torch")

X = "x = torch.tensor([-1., 4., -2., float('nan'), -float('nan'), -0., -float('inf')], dtype=torch.float64)\n"
CASES = {
    "abs_, ceil_, floor_, round_, trunc_, frac_ of bools": "\n".join(
        f"r{i} = _err(lambda: torch.tensor([True, False]).{op}())"
        for i, op in enumerate(["abs_", "ceil_", "floor_", "round_", "trunc_", "frac_", "abs", "round"])),
    "rounded divisions, remainders and addcmul_ of bools": "c = torch.tensor([True, True])\n" + "\n".join(
        f"d{i} = _err(lambda: {code})" for i, code in enumerate([
            "c.clone().div_(c, rounding_mode='trunc')", "c.clone().div_(c, rounding_mode='floor')",
            "c.clone().remainder_(c)", "c // c", "c % c", "c.clone().addcmul_(c, c, value=0.5)",
            "torch.zeros(0, dtype=torch.bool).floor_divide_(torch.zeros(0, dtype=torch.bool))"])),
    "a bool squared": "a = torch.tensor([True, False]).square()\nr = _err(lambda: torch.tensor([True]).square_())",
    "sqrt's NaN signs in float64": X + "s = x.sqrt().view(torch.int64)\np = x.pow(0.5).view(torch.int64)\n"
                                       "q = x.pow(-0.5).view(torch.int64)\ny = x.clone()\ny.sqrt_()\nv = y.view(torch.int64)",
    "sqrt's NaN signs in float32": X.replace("float64", "float32") + "s = x.sqrt().view(torch.int32)\n"
                                                                     "y = x.clone()\ny.pow_(0.5)\nv = y.view(torch.int32)",
    "an integer division writing nothing": "z = torch.zeros(0, 2, dtype=torch.int16)\n"
                                           "z.div_(torch.zeros(2, dtype=torch.int16), rounding_mode='trunc')\n"
                                           "z.remainder_(torch.zeros(2, dtype=torch.int16))",
    "cumsum_ of a 0-dim bool": "c = torch.tensor(True)\nc.cumsum_(0)",
    "bfloat16 compared with a NaN in it, quietly": "c = torch.tensor([float('nan'), 1.0]).to(torch.bfloat16)\n"
                                                   "m = c > 0\nw = torch.where(c.expand(2, 2) > 0, c, c)",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_odd_inputs_give_what_torch_s_kernels_give(code):
    expected, got = torch_and_engine("def _err(fn):  # the error, as text, is what is compared\n    try:\n        return fn()\n    except Exception as exc:\n"
                                     "        return f'{type(exc).__name__}: {exc}'\n" + code)
    assert got == expected
