"""In-place ops on strided views (a column, a row of an unbind, a stepped slice) read and write the
view's own elements, as torch does: numpy 2.4's negative loop once read such a view as if it were
contiguous, so `neg_` and `sigmoid_` wrote the wrong values without a word."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import engine  # noqa: E402

OPS = ["neg_", "abs_", "sigmoid_", "exp_", "tanh_", "sqrt_", "square_", "reciprocal_", "floor_", "sign_", "relu_",
       "sin_", "log1p_", "trunc_"]
VIEWS = ["a.unbind(-1)[3]", "a.select(-1, 1)", "a[..., ::2]", "a.transpose(0, 2)[1]", "a[1:, 1:3, 2]"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("view", VIEWS)
def test_inplace_unary_ops_on_strided_views_as_torch(view: str, dtype: str) -> None:
    for op in OPS:
        results = []
        for lib in (torch, engine):
            a = (lib.arange(64) % 9 + 1).reshape(4, 4, 4).to(getattr(lib, dtype))
            v = eval(view, {"a": a})  # noqa: S307 - the test's own expressions
            try:
                getattr(v, op)()
            except RuntimeError as e:  # integer dtypes refuse the float ops, in both
                results.append(type(e).__name__)
                continue
            results.append(a.double().flatten().tolist())
        expected, got = results
        assert got == pytest.approx(expected, rel=1e-6) if isinstance(got, list) else got == expected, (op, view)
