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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_whole_vectors_sum_as_the_cascade_sums_them(dtype: type) -> None:
    """two_vector_sum (a 4x4 float32's storage read flat) adds as short_row_sum and the cascade do,
    signed zeros, infinities, NaN and overflow included, and leaves a 0-d total of the row's dtype."""
    generator = np.random.default_rng(23)
    n = 2 * summation.lanes(np.dtype(dtype).itemsize)
    big = np.finfo(dtype).max
    rows = [(generator.standard_normal(n) * 10.0 ** generator.integers(-3, 8, n)).astype(dtype) for _ in range(200)]
    rows += [np.full(n, -0.0, dtype), np.full(n, big, dtype), np.array([np.inf, -np.inf] * (n // 2), dtype),
             np.array([np.nan] + [1.0] * (n - 1), dtype), np.array([-0.0, 0.0] * (n // 2), dtype)]
    with np.errstate(all="ignore"):
        for row in rows:
            total = summation.two_vector_sum(row)
            assert total.shape == () and total.dtype == row.dtype
            assert total.tobytes() == summation.short_row_sum(row.reshape(2, -1)).tobytes() == general(row).tobytes()


@pytest.mark.parametrize("shape", [(4, 4), (2, 8), (16,), (2, 2, 4)])
def test_the_sums_of_two_vector_tensors_are_torchs_bit_for_bit(shape: tuple[int, ...]) -> None:
    """x.sum() of a tensor of exactly two vectors, holding its whole storage or not (a view with an
    offset, a row of a larger tensor, a view of an int32 storage as float32), with and without grad:
    torch's bits, grad_fn and saved sizes.
    Each is summed twice: a view's first sum makes the numpy view the second one starts from."""
    torch = pytest.importorskip("torch")
    import engine

    generator = np.random.default_rng(31)
    values = (generator.standard_normal((3, 16)) * 10.0 ** generator.integers(-3, 8, (3, 16))).astype(np.float32)
    for lib in (torch, engine):
        whole = lib.from_numpy(values[0].copy()).reshape(shape) * 1
        row = lib.from_numpy(values.copy())[1].reshape(shape)
        leaf = lib.from_numpy(values[2].copy()).reshape(shape).requires_grad_()
        result = leaf * 1
        bits = (lib.arange(16, dtype=lib.int32) * 1065353216).reshape(shape).view(lib.float32)  # another dtype's storage
        sums = [t.sum() for t in (whole, row, result, leaf, bits) for _ in range(2)]
        found = [(s.detach().numpy().tobytes(), s.grad_fn.name() if s.grad_fn else None,
                  tuple(s.grad_fn._saved_self_sym_sizes) if s.grad_fn else None) for s in sums]
        if lib is torch:
            expected = found
    assert found == expected
