"""cumsum and cumprod keep their running total in ATen's acc_type: double for float32 (so a long
float32 cumsum is the float64 one rounded, not numpy's float32 running sum), and start from 0 (a
-0. total is +0.) or 1."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_a_long_cumulative_op_has_torch_s_bits(op, dtype):
    values = np.random.default_rng(0).random((3, 700)).astype(dtype) + (0.5 if op == "cumprod" else 0.0)
    results = [getattr(m, op)(m.from_numpy(values.copy()), 1).numpy().tobytes() for m in (torch, engine)]
    assert results[1] == results[0]


def test_a_cumsum_of_negative_zeros_is_positive_zero():
    results = [m.tensor([[-0.0, -0.0], [-0.0, 1.0]]).cumsum(1).numpy().tobytes() for m in (torch, engine)]
    assert results[1] == results[0]
