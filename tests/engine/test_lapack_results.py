"""LAPACK results as torch returns them. linalg.svd's singular vectors carry torch's signs: torch's CPU build runs MKL's gesdd, which takes
its QR-first path for tall matrices from m >= 1.5n on (reference LAPACK from m >= 11n/6 on); the
engine takes the same path, so U and Vh agree with torch in sign, not only up to sign. (Wide matrices
with n >= 11m/6 and float32 still differ: MKL's own kernels there; see engine.linalg._gesdd.) And
every factorisation's matrices are column-major with torch's strides, dims of size 1 included."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import engine  # noqa: E402

SHAPES = [(4, 3), (6, 4), (7, 5), (8, 5), (5, 4), (8, 6), (8, 7), (10, 3), (3, 3), (3, 4), (4, 6), (2, 2, 6, 4)]


@pytest.mark.parametrize("full_matrices", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_svd_of_float64_matrices_as_torch(shape, full_matrices) -> None:
    for seed in range(5):
        torch.manual_seed(seed)
        a = torch.randn(shape, dtype=torch.float64)
        expected = torch.linalg.svd(a, full_matrices=full_matrices)
        got = engine.linalg.svd(engine.tensor(a.tolist(), dtype=engine.float64), full_matrices=full_matrices)
        for t, e in zip(expected, got):
            assert tuple(e.shape) == tuple(t.shape) and tuple(e.stride()) == tuple(t.stride())
            assert torch.allclose(torch.tensor(e.tolist(), dtype=torch.float64), t, atol=1e-10)


LAYOUT_SHAPES = [(1, 3), (3, 1), (1, 1), (2, 1, 3), (2, 3, 1), (1, 2, 2), (2, 3, 3), (4, 3)]


def _layouts(T, shape: tuple[int, ...]) -> dict[str, list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    T.manual_seed(0)
    a = T.randn(shape, dtype=T.float64)
    results = {"svd": T.linalg.svd(a, full_matrices=False), "svd full": T.linalg.svd(a),
               "qr": T.linalg.qr(a), "qr complete": T.linalg.qr(a, mode="complete")}
    if shape[-1] == shape[-2]:
        spd = a @ a.mT + T.eye(shape[-1], dtype=T.float64)
        results |= {"eigh": T.linalg.eigh(spd), "inv": (T.linalg.inv(spd),), "cholesky": (T.linalg.cholesky(spd),),
                    "solve": (T.linalg.solve(spd, spd),)}
    return {name: [(tuple(t.shape), tuple(t.stride())) for t in out] for name, out in results.items()}


@pytest.mark.parametrize("shape", LAYOUT_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_factorisations_are_laid_out_as_torch(shape) -> None:
    assert _layouts(engine, shape) == _layouts(torch, shape)
