"""In-place ops check their arguments as torch does, with its error type and text: index_put_ and
masked_scatter_ want the value's dtype to be self's, addcmul_/addcdiv_/lerp_ want tensors where their
signatures say so, addcdiv refuses two integer tensors, alpha may not be a float for integer
tensors, arange and cumsum_ have no bool kernel, neg_ refuses bools. And the values that come out: remainder keeps the
dividend's sign on a zero, addcmul_ takes its value in an integer self's dtype, fill_ with a 0-dim
tensor casts it as copy_ does (wrapping), scatter_ a number likewise, sign_ makes NaN and -0. +0.,
cumsum_ starts from +0., and copy_ into integers records no node."""

import pytest

from tests.oracle import torch_and_engine

pytest.importorskip("torch")

L = "a = torch.arange(6).reshape(3, 2)\n"
F = "t = torch.linspace(-1.5, 2.0, 6, dtype=torch.float64).reshape(3, 2)\n"
CASES = {
    "index_put_ of a float value into a long tensor": L + "a.index_put_((torch.tensor([0]),), torch.tensor(3.0))",
    "the dtype is checked before the bounds": L + "a.index_put_((torch.tensor([7]),), torch.tensor(3.0), accumulate=True)",
    "setitem of a tensor of another dtype": F + "t[[0, 2]] = torch.tensor([1, 2]).reshape(2, 1)",
    "a mask and one value: masked_fill_, which casts": L + "a[a > 2] = torch.tensor(0.5)",
    "masked_scatter_ from another dtype": L + "a.masked_scatter_(a > 0, torch.ones(6))",
    "addcmul_ with a number for tensor1": F + "t.addcmul_(2, t, value=0.5)",
    "addcmul_ with a number for tensor2": F + "t.addcmul_(t, 1.5)",
    "addcdiv_ with numbers": L + "a.addcdiv_(0.5, 3.0)",
    "addcdiv_ of integer tensors": L + "a.addcdiv_(a, a)",
    "addcmul_ of integers with a float value": L + "a.addcmul_(a, a, value=0.5)\nb = a.clone().addcmul_(a, a, value=2.7)",
    "lerp_ towards a number": F + "t.lerp_(1, 0.5)",
    "lerp_ towards a number with a tensor weight": F + "t.lerp_(-1, t)",
    "add_ with a float alpha into integers": L + "a.add_(torch.arange(2), alpha=-0.5)",
    "sub_ with a float alpha into integers": L + "a.sub_(1, alpha=0.5)",
    "remainder keeps the sign of a zero": F + "r = t.remainder(1.5)\nt.remainder_(-0.5)",
    "remainder of integers": L + "r = a.remainder(-4)\na.remainder_(4)",
    "arange of bools": "a = torch.arange(3, dtype=torch.bool)",
    "arange of no bools": "a = torch.arange(0, dtype=torch.bool)",
    "cumsum_ of bools": "a = torch.tensor([True, False, True])\na.cumsum_(0)",
    "setitem of a wide int64 total into an int32 view wraps":
        "a = torch.tensor([-2.4, -1.3, -2.6, -1.2, -2.1])\nc = a.view(torch.int32)\nc[::2] = c.sum()",
    "neg_ of bools": "a = torch.zeros(4).to(torch.bool)\na.neg_()",
    "masked_scatter_ into an expanded tensor: the overlap first":
        "a = torch.ones(2, 1).expand(2, 2)\na.masked_scatter_(a > 0, torch.ones(4, dtype=torch.float64))",
    "sign_ of NaN and -0. is +0.": "a = torch.tensor([float('nan'), -0., 0., -2., 3.])\nb = a.sign()\na.sign_()",
    "copy_ of a tensor requiring grad into integers records nothing":
        "a = torch.ones(1, requires_grad=True)\nc = torch.arange(8).reshape(4, 2)\nc.copy_(a)",
    "copy_ into integers still refuses a partly overlapping source":
        "a = torch.arange(3)\nd = a.chunk(2, 0)[-1]\na.copy_(d)",
    "scatter_ of a number out of a uint8's range wraps":
        "b = torch.arange(3, dtype=torch.uint8)\nb.scatter_(-1, torch.zeros_like(b, dtype=torch.long), -1)",
    "cumsum_ from +0.": "a = -torch.arange(12.).reshape(3, 4)\na.cumsum_(0)\nb = torch.tensor(-0.).cumsum(0)",
    "fill_ with 0-dim tensors casts as copy_": "b = torch.zeros(3, dtype=torch.int32)\nb.fill_(torch.tensor(2**40 + 5))\n"
                                             "d = torch.zeros(2, dtype=torch.uint8)\nd.fill_(torch.tensor(-1.0))",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_in_place_ops_check_and_compute_as_torch(code):
    expected, got = torch_and_engine(code)
    assert got == expected
