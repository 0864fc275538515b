"""`x[index] = v` with an index tensor, where v is a view of x that torch's overlap check cannot
judge (a layout neither dense nor non-overlapping): ATen's index_put_ kernel writes one element at
a time in TensorIterator's order, each read from v just before, so later elements read what
earlier ones wrote. A value of one element through a mask is masked_fill_, read once."""

import pytest

from tests.oracle import torch_and_engine

pytest.importorskip("torch")

D = "d = torch.linspace(-1.5, 2.0, 12, dtype=torch.float64).reshape(3, 4)\n"
CASES = {
    "rows from a strided view of the rows written first": D + "b = d.as_strided((2, 1), (2, 1), 1)\nd[[0, -1]] = b",
    "a column from a view reaching into it": D + "b = d.as_strided((3, 1), (1, 0), 0)\nd[:, [0]] = b",
    "repeated rows, the last write wins": D + "b = d.as_strided((3, 4), (0, 1), 2)\nd[[2, 0, 2]] = b",
    "rows and a column index together": D + "b = d.as_strided((2,), (3,), 1)\nd[[1, 0], 0] = b",
    "a value of one element through a mask is read once":
        D + "v = d.as_strided((1,), (1,), 5)\nd[d > 0] = v",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_index_put_reads_each_value_element_after_the_earlier_writes(code):
    expected, got = torch_and_engine(code)
    assert got == expected
