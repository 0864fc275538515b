"""A short row's sum takes a few vector operations instead of the cascade's reshapes; it must add
in exactly the same order (bit for bit, signed zeros included) at every length and dtype."""

from __future__ import annotations

import numpy as np
import pytest

from engine.kernels import summation


def general(row: np.ndarray) -> np.ndarray:
    """The cascade itself, for one row (a batch of two rows never takes the short path)."""
    return summation.row_sums(np.stack([row, row]))[:1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_short_length_adds_in_the_cascade_s_order(dtype: type) -> None:
    generator = np.random.default_rng(7)
    limit = 64 * summation.lanes(np.dtype(dtype).itemsize)
    for n in range(1, limit + 2):
        row = (generator.standard_normal(n) * 10.0 ** generator.integers(-3, 8, n)).astype(dtype)
        assert summation.row_sums(row.reshape(1, -1)).tobytes() == general(row).tobytes(), n


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_negative_zeros_sum_as_the_cascade_sums_them(dtype: type) -> None:
    for n in (1, 3, 4, 7, 8, 9, 33):
        row = np.full(n, -0.0, dtype=dtype)
        assert summation.row_sums(row.reshape(1, -1)).tobytes() == general(row).tobytes(), n


def test_torch_agrees_on_a_small_float32_sum() -> None:
    torch = pytest.importorskip("torch")
    import engine

    values = [-0.2, -0.9, 0.2, 1.7, -1.2, -2.6]
    assert engine.tensor(values).sum().item() == torch.tensor(values).sum().item()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_whole_sums_of_small_tensors_are_torchs_bit_for_bit(dtype: str) -> None:
    """x.sum() of a small contiguous tensor takes the short path at every length up to where the
    cascade's chunks start (and past it): values spread over eleven decades, so any other order of
    the additions shows in the last bits; a zero sum of negative zeros is +0. as in torch."""
    torch = pytest.importorskip("torch")
    import engine

    generator = np.random.default_rng(15)
    limit = 64 * summation.lanes(np.dtype(dtype).itemsize)
    for n in [*range(1, 70), limit - 1, limit, limit + 1]:
        for shape in {(n,), (1, n), (n // 4, 4) if n % 4 == 0 else (n,)}:
            x = (generator.standard_normal(n) * 10.0 ** generator.integers(-3, 8, n)).astype(dtype).reshape(shape)
            ours = engine.from_numpy(x.copy()).sum().numpy().tobytes()
            assert ours == torch.from_numpy(x.copy()).sum().numpy().tobytes(), (dtype, shape)
    for special in (-0.0, float("inf"), float("nan"), 3e38 if dtype == "float32" else 1e308):
        x = np.full((4, 4), special, dtype)
        assert engine.from_numpy(x.copy()).sum().numpy().tobytes() == torch.from_numpy(x).sum().numpy().tobytes()
