"""softmax and log_softmax write a row-major result whatever the input's layout (ATen's
host_softmax works on a contiguous copy), and an empty input gives an empty result."""

import pytest

from tests.oracle import torch_and_engine

pytest.importorskip("torch")

A = "a = (torch.arange(36.) - 18).reshape(4, 3, 3)\n"
CASES = {
    "of a gather's result": A + "f = a.gather(2, torch.zeros(4, 3, 2, dtype=torch.long))\nd = F.softmax(f, 1)",
    "of a transposed tensor": A + "d = F.log_softmax(a.transpose(0, 2), 1)\ne = torch.softmax(a.transpose(0, 2), 0)",
    "of a slice, with its gradient": "a = torch.ones(3, 4, requires_grad=True)\nd = F.softmax(a[:, 1:], 0)\n"
                                     "d.sum().backward()",
    "of nothing": "b = torch.ones(1, requires_grad=True)\ng = b.split([0, 1], -1)[0]\nf = F.log_softmax(g, -1)\n"
                  "h = torch.softmax(torch.ones(2, 0), 1)",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_softmax_is_laid_out_row_major(code):
    expected, got = torch_and_engine(code)
    assert got == expected
