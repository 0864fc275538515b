"""float32 softmax gives torch's values bit for bit (SLEEF's exp, ATen's reduce order and its
multiply by the reciprocal), so printed probabilities and their sums show the same last digits
(`tensor([1.0000, 1.0000])` where a sum is one ulp off 1, not `tensor([1., 1.])`)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)

SHAPES = [((300, 3), 1), ((64, 10), -1), ((40, 1000), -1), ((8, 16), 1), ((8, 17), 1), ((2, 4, 8, 33), -1),
          ((7,), 0), ((3, 1), 1), ((2, 3, 8, 8), 1), ((4, 5), 0), ((6, 1), 0), ((3, 4, 40), 0), ((50, 2), 0)]


@pytest.mark.parametrize(("shape", "dim"), SHAPES, ids=[f"{s}-{d}" for s, d in SHAPES])
def test_softmax_float32_is_torchs_bit_for_bit(shape, dim) -> None:
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(len(shape) * 100 + shape[0])) * 4
    expected = torch.softmax(x, dim).numpy()
    got = engine.softmax(engine.tensor(x.numpy()), dim).numpy()
    assert np.array_equal(expected.view(np.uint32), got.view(np.uint32))


def test_softmax_float32_keeps_torchs_nan_inf_and_empty_results() -> None:
    x = [[float("-inf"), float("-inf")], [float("nan"), 1.0], [float("inf"), 1.0], [1e30, -1e30], [-200.0, 0.0]]
    expected = torch.softmax(torch.tensor(x), 1).numpy()
    got = engine.softmax(engine.tensor(x), 1).numpy()
    assert np.array_equal(expected, got, equal_nan=True)
    assert engine.softmax(engine.zeros(0, 3), 1).shape == (0, 3)
    assert engine.softmax(engine.tensor(2.0), 0).item() == 1.0


def test_printed_sums_of_probabilities_match() -> None:
    x = torch.randn(6, 5, generator=torch.Generator().manual_seed(3)) * 3
    expected = str(torch.softmax(x, dim=1).sum(dim=1))
    got = str(engine.softmax(engine.tensor(x.numpy()), dim=1).sum(dim=1))
    assert got == expected
