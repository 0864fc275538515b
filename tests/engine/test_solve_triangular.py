"""torch.linalg.solve_triangular against torch 2.13: values, the layout of the result, and errors."""

from __future__ import annotations

import pytest

import engine

CALLS = [
    "L.solve_triangular(U, B, upper=True)", "L.solve_triangular(T, B, upper=False)",
    "L.solve_triangular(U, B.mT, upper=True, left=False)", "L.solve_triangular(M, B, upper=True, unitriangular=True)",
    "L.solve_triangular(M, B, upper=False)", "L.solve_triangular(U, B[:2], upper=True)",
    "L.solve_triangular(U, B, upper=True, left=False)",
]


def _solve(T, call: str):
    T.manual_seed(0)
    m = T.randn(3, 3, dtype=T.float64)
    names = {"L": T.linalg, "M": m, "U": m.triu() + 3 * T.eye(3, dtype=T.float64),
             "T": m.tril() + 3 * T.eye(3, dtype=T.float64), "B": T.randn(3, 2, dtype=T.float64)}
    try:
        x = eval(call, names)  # noqa: S307 - our calls
    except RuntimeError as error:
        return str(error)
    return [round(v, 9) for v in x.flatten().tolist()], tuple(x.shape), x.stride()


@pytest.mark.parametrize("call", CALLS)
def test_solve_triangular_as_torch(torch, call):
    assert _solve(engine, call) == _solve(torch, call)
