"""A copy whose source shares memory with what it writes gives the values PyTorch's copy kernel
gives: torch refuses it only when both layouts are dense, and otherwise a later element reads what
an earlier one wrote, in TensorIterator's order, a block of 64 bytes at a time where both sides
are contiguous (the differential fuzzer's `f[..., -1] = f[0:-1]`)."""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")

CASES = {
    "a column from an overlapping row": "f = torch.arange(4).reshape(2, 2)\nf[..., -1] = f[0:-1]",
    "rows shifted right (a block, then one by one)": "b = torch.arange(40.).reshape(2, 20)\nb[:, 1:20] = b[:, 0:19]",
    "uint8 rows: 64 to a block": "b = torch.arange(200).reshape(2, 100).to(torch.uint8)\nb[:, 1:] = b[:, :-1]",
    "int64 rows: 8 to a block": "b = torch.arange(60).reshape(2, 30)\nb[:, 1:] = b[:, :-1]",
    "odd elements from even ones": "c = torch.arange(40.)\nc[1::2] = c[0:40:2]",
    "strided columns from shifted rows": "b = torch.arange(36.).reshape(6, 6)\nb[1:, ::2] = b[:-1, 1::2]",
    "a transposed destination": "b = torch.arange(36.).reshape(6, 6)\nb.t()[1:].copy_(b[:-1])",
    "a broadcast column": "b = torch.arange(64.).reshape(8, 8)\nb[:, 1:].copy_(b[:, :1])",
    "one element expanded": "b = torch.arange(40.)\nb[1:30:2].copy_(b[0:1].expand(15))",
    "a 3-d shift": "b = torch.arange(27.).reshape(3, 3, 3)\nb[:, 1:, :] = b[:, :-1, :]",
    "a transposed source and destination": "b = torch.arange(40.).reshape(4, 10).t()\nb[1:, :] = b[:-1, :]",
    "with autograd": "w = torch.arange(20.).requires_grad_()\nb = w * 1\nb[1::2] = b[0:20:2]\n"
                     "b.sum().backward()",
    "dense and partial: refused": "b = torch.arange(10.)\nb[1:] = b[:-1]",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_an_overlapping_copy_reads_what_it_already_wrote(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


EMPTIED = {
    "index_fill_ of an empty tensor": "r = torch.zeros(0).index_fill_(0, torch.tensor([0]), 7.0)",
    "index_fill_ of an empty slice at the end": "r = torch.zeros(5)[5:].index_fill_(0, torch.tensor([0]), 7.0)",
    "index_fill_ of an empty slice inside": "r = torch.zeros(5)[2:2].index_fill_(0, torch.tensor([0]), 7.0)",
    "index_fill_ along an empty dim": "r = torch.zeros(3, 0).index_fill_(1, torch.tensor([0]), 7.0)",
    "index_fill_ after set_()": "a = torch.zeros(3)\na.set_()\na.index_fill_(0, torch.tensor([0]), 1.0)",
    "index_fill_ out of range": "r = torch.zeros(3).index_fill_(0, torch.tensor([5]), 7.0)",
    "a tensor emptied by set_() put into itself": "a = torch.arange(1.).reshape(1).clone()\na.set_()\n"
                                                  "a[[0, -1]] = a",
    "an empty tensor put into itself": "a = torch.zeros(0)\na[[0]] = a",
    "an index into an empty tensor": "a = torch.zeros(0)\na[[0]] = 1.0",
    "index_put_ with too many indices": "x = torch.zeros(3)\n"
                                        "x.index_put_((torch.tensor([0]), torch.tensor([0])), torch.tensor(1.))",
    "index_put_ out of range": "x = torch.zeros(3)\nx.index_put_((torch.tensor([5]),), torch.tensor(1.))",
}


@pytest.mark.parametrize("code", EMPTIED.values(), ids=EMPTIED.keys())
def test_writes_into_empty_tensors_fail_where_torch_fails(code: str) -> None:
    """ATen checks overlap and restrides before it looks at an index (the fuzzer's set_() programs)."""
    expected, got = torch_and_engine(code)
    assert got == expected
