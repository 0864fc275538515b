"""Advanced indexing's result layout and bounds, against torch: the index kernel's TensorIterator
sees the source restrided and each index reshaped with size-1 dims around it (so size-1 and empty
dims order its output as torch's), and checks an index only as it reads it (indices that
broadcast to nothing are never checked)."""

import pytest

from tests.oracle import torch_and_engine

pytest.importorskip("torch")

CASES = {
    "an empty list on a (0, 2, 1) slice (fuzzer seed 18547)":
        "a = torch.linspace(-1.5, 2.0, 2, dtype=torch.float64).reshape(1, 2, 1)\nc = a[0:-1]\nd = c[[]]",
    "an empty list on (3, 2, 1)": "b = torch.zeros(3, 2, 1)\nd = b[[]]\ne = b[torch.tensor([], dtype=torch.long)]",
    "an empty list in the middle dim": "b = torch.zeros(3, 2, 1)\nd = b[:, []]",
    "empty lists on dims without size-1 ones": "b = torch.zeros(2, 3, 4)\nd = b[[]]\ne = b[:, []]\nf = b[:, :, []]",
    "a permuted source with an index and an empty list":
        "b = torch.zeros(1, 3, 0, 2).permute(2, 1, 3, 0)\nd = b[[], 0]",
    "an out-of-range index broadcast with an empty one is never read": "x = torch.zeros(2, 3)\nd = x[[5], []]",
    "nor into an empty leading shape": "x = torch.zeros(2, 3)\nd = x[[[5]], []]\ne = x[[5], [[]]]",
    "nor written": "x = torch.zeros(2, 3)\nx[[5], []] = 1",
    "an out-of-range index alone is an error": "x = torch.zeros(2, 3)\nd = x[[5]]",
}


@pytest.mark.parametrize("code", list(CASES.values()), ids=list(CASES))
def test_advanced_indexing_lays_out_and_checks_as_torch(code):
    expected, got = torch_and_engine(code)
    assert got == expected
