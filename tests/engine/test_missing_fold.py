"""F.unfold / F.fold and nn.Unfold / nn.Fold against torch 2.13: shapes, strides, values (fold's
overlapping sums bit for bit), batched and unbatched inputs, Im2ColBackward0 / Col2ImBackward0 and
their saved fields, gradients to second order, module reprs and errors."""

import pytest

from tests.engine.missing_checks import assert_bit_exact, error_of
from tests.engine.test_derivative_table import _close, run
from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402
import engine.nn.functional as EF  # noqa: E402

SNIPPETS = {
    "unfold": (
        "torch.manual_seed(0)\nx = torch.randn(2, 3, 5, 6, requires_grad=True)\n"
        "u = F.unfold(x, 2); v = F.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(2, 3))\n"
        "w = F.unfold(x[0], 3, padding=2, stride=2); (u * u).sum().backward(); (v.sum() + w.pow(3).sum()).backward()\n"
        "e = F.unfold(torch.ones(0, 2, 3, 3), 2); b = F.unfold(torch.ones(1, 2, 3, 3, dtype=torch.bool), 2)\n"
        "saved = (u.grad_fn._saved_kernel_size, u.grad_fn._saved_self_sym_argsize_minus_1, v.grad_fn._saved_padding)\n"),
    "fold": (
        "torch.manual_seed(0)\nc = torch.randn(2, 12, 20, requires_grad=True)\n"
        "f = F.fold(c, (5, 6), 2); g = F.fold(c[0], (5, 6), 2)\n"
        "h = F.fold(torch.randn(1, 18, 6, requires_grad=True), (5, 6), (2, 3), dilation=(2, 1), padding=1, stride=(2, 3))\n"
        "(f * f).sum().backward(); h.sum().backward(); saved = f.grad_fn._saved_stride\n"),
    "layers": (
        "torch.manual_seed(0)\nm = torch.nn.Unfold(2, padding=1); n = torch.nn.Fold((3, 4), 2, padding=1)\n"
        "text = repr(m) + repr(n) + repr(torch.nn.Fold((4, 5), 2, stride=(1, 2)))\n"
        "x = torch.randn(1, 2, 3, 4, requires_grad=True); y = n(m(x)); y.sum().backward()\n"),
}

ERRORS = [
    "F.unfold(torch.ones(4, 4), 2)", "F.unfold(torch.ones(1, 2, 3, 4, 4), 2)", "F.unfold(torch.ones(1, 2, 3, 3), 4)",
    "F.unfold(torch.ones(1, 2, 3, 3), 0)", "F.unfold(torch.ones(1, 2, 3, 3), 2, stride=0)",
    "F.unfold(torch.ones(1, 2, 3, 3), 2, dilation=0)", "F.unfold(torch.ones(1, 2, 3, 3), 2, padding=-1)",
    "F.unfold(torch.ones(1, 0, 3, 3), 2)", "F.unfold(torch.ones(1, 2, 3, 3, dtype=torch.int64), 2)",
    "F.fold(torch.ones(1, 7, 9), (4, 4), 2)", "F.fold(torch.ones(1, 8, 8), (4, 4), 2)",
    "F.fold(torch.ones(1, 8, 9), (4, 4), 2, stride=0)", "F.fold(torch.ones(1, 1, 8, 9), (4, 4), 2)",
    "F.fold(torch.ones(1, 8, 9, dtype=torch.int64), (4, 4), 2)", "F.fold(torch.ones(1, 8, 4), (4, 4), 2, stride=2, padding=1)",
    "F.fold(torch.ones(1, 8, 9), (1, 1), 2, stride=2)",
]

BIT_EXACT = {
    "fold's overlapping sums": "results = [F.fold(torch.randn(2, 27, 64), (8, 8), 3, padding=1), "
                               "F.fold(torch.randn(2, 27, 16), (8, 8), 3, dilation=2, padding=2, stride=2), "
                               "F.fold(torch.randn(2, 27, 64, dtype=torch.float64), (8, 8), 3, padding=1)]",
    "unfold": "results = [F.unfold(torch.randn(2, 3, 8, 8), 3, padding=1)]",
}

DERIVATIVE_SAMPLES = [
    ("F.unfold(a, 2)", "r1x2x4x5"), ("F.unfold(a, (2, 3), dilation=(2, 1), padding=1, stride=(2, 3))", "r2x2x5x6"),
    ("F.fold(a, (5, 6), 2)", "r2x8x20"), ("F.fold(a, (5, 6), (2, 3), dilation=(2, 1), padding=1, stride=(2, 3))", "r8x6"),
]


@pytest.mark.parametrize("code", SNIPPETS.values(), ids=SNIPPETS.keys())
def test_same_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


@pytest.mark.parametrize("code", ERRORS)
def test_same_error_as_torch(code: str) -> None:
    assert error_of(engine, code) == error_of(torch, code)


@pytest.mark.parametrize("code", BIT_EXACT.values(), ids=BIT_EXACT.keys())
def test_bit_for_bit(code: str) -> None:
    assert_bit_exact(torch, code)


@pytest.mark.parametrize(("expr", "kinds"), DERIVATIVE_SAMPLES, ids=[e for e, _ in DERIVATIVE_SAMPLES])
def test_first_and_second_derivatives(expr: str, kinds: str) -> None:
    expected, _ = run(torch, torch.nn.functional, expr, kinds, 0)
    got, _ = run(engine, EF, expr, kinds, 0)
    if not _close(expected, got):
        assert got == expected
