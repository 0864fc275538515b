"""scatter_reduce and scatter_reduce_ against torch 2.13: every reduction with and without self,
integer and bool dtypes, out=, the in-place form's version and graph, gradients to first and second
order, errors, and the kernel's order of accumulation bit for bit (float16 through float32 included)."""

import pytest

from tests.engine.missing_checks import assert_bit_exact, error_of
from tests.engine.test_derivative_table import _close, run
from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402
import engine.nn.functional as EF  # noqa: E402

INDEX = "torch.tensor([[0, 1, 0, 1], [1, 1, 0, 0], [2, 0, 1, 1]])"

SNIPPETS = {
    "every reduction": (
        "x = torch.tensor([[1., 3., 0., 2.], [2., 2., 5., 5.], [0., 1., 1., 4.]], requires_grad=True)\n"
        f"i = {INDEX}\n"
        "s = torch.tensor([[3., 0., 1., 2.], [2., 5., 0., 1.], [1., 1., 4., 0.]], requires_grad=True)\n"
        "outs = {}\n"
        "for r in ('sum', 'prod', 'mean', 'amax', 'amin'):\n"
        "    for inc in (True, False):\n"
        "        outs[r, inc] = torch.scatter_reduce(x, 1, i, s, r, include_self=inc)\n"
        "total = sum((o * torch.arange(12.).view(3, 4)).sum() for o in outs.values()); total.backward()\n"
        "vals = [o.detach() for o in outs.values()]\n"
        "saved = (outs['mean', False].grad_fn._saved_reduce, outs['mean', False].grad_fn._saved_include_self)\n"),
    "in place": (
        "torch.manual_seed(0)\n"
        f"x = torch.randn(3, 4, requires_grad=True); s = torch.randn(3, 4, requires_grad=True); i = {INDEX}\n"
        "y = x.detach().clone(); y.scatter_reduce_(0, i[:2], s.detach()[:2], 'amax'); ver = y._version\n"
        "z = x * 1; z.scatter_reduce_(1, i, s, 'prod', include_self=False); z.sum().backward()\n"),
    "a transposed self": (
        "torch.manual_seed(1)\nx = torch.randn(4, 3, dtype=torch.float64).t().detach().requires_grad_(True)\n"
        "i = torch.tensor([[0, 1, 0, 2], [2, 2, 1, 0], [1, 0, 0, 2]])\n"
        "r = torch.scatter_reduce(x, 0, i, x.detach() * 2, 'amax', include_self=False); r.sum().backward()\n"
        "s = x.detach().scatter(0, i[:1], 0.)\n"),
    "dtypes, out=, 0-dim and NaN": (
        "m = torch.ones(2, 3, dtype=torch.int64).scatter_reduce(1, torch.tensor([[0, 0]]), torch.tensor([[3, 4, 5], [1, 1, 1]]), 'mean')\n"
        "m2 = torch.ones(2, 3, dtype=torch.int64).scatter_reduce(1, torch.tensor([[0, 0]]), torch.tensor([[3, 4, 5], [1, 1, 1]]), 'mean', include_self=False)\n"
        "b = torch.ones(2, 3, dtype=torch.bool).scatter_reduce(1, torch.tensor([[0, 0]]), torch.zeros(2, 3, dtype=torch.bool), 'prod')\n"
        "torch.manual_seed(0); x = torch.randn(3, 4); o = torch.empty(3, 4)\n"
        f"r = torch.scatter_reduce(x, 1, {INDEX}, torch.randn(3, 4), 'amin', out=o); same = r is o\n"
        "e = torch.tensor(1.).scatter_reduce(0, torch.tensor(0), torch.tensor(5.), 'sum')\n"
        "n = torch.tensor([1., float('nan'), 2.]).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([float('nan'), 1., 3.]), 'amax')\n"
        "i32 = torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0, 1]], dtype=torch.int32), torch.ones(2, 3), 'sum')\n"),
}

ERRORS = [
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0, 1]]), torch.ones(2, 3), 'bad')",
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0, 1]]), torch.ones(2, 3, dtype=torch.float64), 'sum')",
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0, 5]]), torch.ones(2, 3), 'sum')",
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([0, 1]), torch.ones(2, 3), 'sum')",
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0, 1, 1, 1]]), torch.ones(2, 3), 'sum')",
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0, 1], [0, 1], [1, 1]]), torch.ones(3, 3), 'sum')",
    "torch.ones(2, 3).scatter_reduce(3, torch.tensor([[0, 1]]), torch.ones(2, 3), 'sum')",
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0, -1]]), torch.ones(2, 3), 'sum')",
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0, 1]]), 2., 'sum')",
    "torch.ones(2, 3).scatter_reduce(1, torch.tensor([[0., 1]]), torch.ones(2, 3), 'sum')",
    "torch.ones(2, 3, dtype=torch.bool).scatter_reduce(1, torch.tensor([[0, 0]]), torch.ones(2, 3, dtype=torch.bool), 'mean')",
    "torch.scatter_reduce(torch.ones(2, 3, requires_grad=True), 1, torch.tensor([[0, 1]]), torch.ones(2, 3), 'amax', out=torch.empty(2, 3))",
    "torch.ones(2, 3, requires_grad=True).scatter_reduce_(1, torch.tensor([[0, 1]]), torch.ones(2, 3), 'prod')",
]

BIT_EXACT = {
    "float32 sum, mean, prod": (
        "results = [torch.randn(5, 7).scatter_reduce(1, torch.randint(0, 7, (5, 300)), torch.randn(5, 300), 'sum'), "
        "torch.randn(5, 7).scatter_reduce(1, torch.randint(0, 7, (5, 300)), torch.randn(5, 300), 'mean', include_self=False), "
        "torch.randn(5, 7).scatter_reduce(0, torch.randint(0, 5, (40, 7)), torch.rand(40, 7) + 0.5, 'prod')]"),
    "half types through float32": (
        "results = [torch.randn(5, 7).half().scatter_reduce(1, torch.randint(0, 7, (5, 300)), torch.randn(5, 300).half(), 'sum'), "
        "torch.randn(5, 7).bfloat16().scatter_reduce(1, torch.randint(0, 7, (5, 300)), torch.randn(5, 300).bfloat16(), 'mean')]"),
}

DERIVATIVE_SAMPLES = [(f"torch.scatter_reduce(a, 1, {INDEX}, b, '{r}', include_self={inc})", "r3x4 r3x4")
                      for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)]
DERIVATIVE_SAMPLES.append((f"a.clone().scatter_reduce_(1, {INDEX}, b, 'prod')", "r3x4 r3x4"))


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
