"""cat and stack lay out their result in the memory format their inputs suggest, as ATen's
cat_compute_output_memory_format does: 4-d (5-d) inputs whose strides are like channels-last give a
channels-last result, however they came by those strides (a window of unfold, a transpose with
size-1 dims). stack cats its inputs along the dim and views the result, or, past the last dim,
cats them unsqueezed; an out= is laid out so only where it is resized."""

import pytest

from tests.oracle import torch_and_engine

pytest.importorskip("torch")

WINDOW = "b = (torch.arange(2.) - 1).reshape(1, 2).requires_grad_()\nf = b.unfold(1, 2, 1)\n"
CASES = {
    "stack past the last dim of an unfold window": WINDOW + "c = torch.stack([f, f * 2], -1)",
    "stack at dim 0 of the same": WINDOW + "c = torch.stack([f, f * 2], 0)",
    "cat of the windows unsqueezed": WINDOW + "c = torch.cat([f.unsqueeze(-1), f.unsqueeze(-1)], 0)",
    "stack inside a transposed 4-d tensor": "x = torch.arange(6.).reshape(2, 3, 1, 1).transpose(1, 2)\n"
                                            "c = torch.stack([x, x.clone()], 1)",
    "stack of permuted 4-d tensors": "x = torch.arange(8.).reshape(2, 2, 1, 2).permute(0, 3, 1, 2)\n"
                                     "c = torch.stack([x, x * 2], 1)",
    "cat of channels-last and contiguous: contiguous": "x = torch.ones(2, 3, 2, 2).permute(0, 2, 3, 1)\n"
                                                       "y = torch.ones(2, 2, 2, 3)\nc = torch.cat([x, y], 0)",
    "stack of 5-d inputs into a 6-d result": "x = torch.ones(2, 1, 1, 1, 3).transpose(4, 1)\n"
                                             "c = torch.stack([x, x * 2], 1)",
    "stack into an out= resized": WINDOW + "o = torch.zeros(1)\np = torch.zeros(1)\n"
                                  "torch.stack([f.detach(), f.detach()], -1, out=o)\n"
                                  "torch.stack([f.detach(), f.detach()], 1, out=p)",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_cat_and_stack_keep_the_memory_format_their_inputs_suggest(code):
    expected, got = torch_and_engine(code)
    assert got == expected
