"""tensordot, inner, vdot, cdist, block_diag and diag_embed against torch 2.13: values, dtypes,
shapes, strides, grad_fn names, gradients, out=, method forms, errors; cdist's kernel bit for bit."""

import pytest

from tests.engine.missing_checks import assert_bit_exact, error_of
from tests.engine.test_derivative_table import _close, run
from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402
import engine.nn.functional as EF  # noqa: E402

SNIPPETS = {
    "tensordot": (
        "torch.manual_seed(0)\n"
        "a = torch.randn(3, 4, 5, requires_grad=True); b = torch.randn(4, 3, 2, requires_grad=True)\n"
        "c = torch.tensordot(a, b, dims=([1, 0], [0, 1])); d = torch.tensordot(a, b.permute(1, 0, 2), dims=2)\n"
        "e = torch.tensordot(a, b, dims=0); f = torch.tensordot(a[:, :, :1], torch.randn(1, 6), dims=([2], [0]))\n"
        "g = torch.tensordot(a, b, dims=torch.tensor([[1, 0], [0, 1]])); h = torch.tensordot(a, a, torch.tensor(3))\n"
        "(c.sum() + d.pow(2).sum() + e.mean() + h).backward()\n"
        "i = torch.tensordot(torch.arange(6).view(2, 3), torch.arange(6).view(3, 2), 1)\n"),
    "tensordot's full contractions": (
        "torch.manual_seed(0)\na = torch.randn(3, 2, requires_grad=True); b = torch.randn(2, 3, requires_grad=True)\n"
        "d = torch.tensordot(a, a, 2); v = torch.tensordot(a[:, 0], a[:, 1], 1); one = torch.tensordot(a[:1], b[:, :1], 1)\n"
        "m = torch.tensordot(a.t(), b, 2); (d + v + one.sum() + m).backward()\n"),
    "tensordot out=": (
        "a = torch.ones(2, 3, requires_grad=True); o = torch.empty(2, 2); r = torch.tensordot(a, torch.ones(3, 2), 1, "
        "out=o); same = r is o; p = torch.empty(0); q = torch.tensordot(a.detach(), torch.ones(3, 2), 1, out=p)\n"),
    "inner": (
        "torch.manual_seed(0)\n"
        "a = torch.randn(3, 4, requires_grad=True); b = torch.randn(2, 5, 4, requires_grad=True)\n"
        "g = torch.inner(a, b); h = a.inner(torch.tensor(2.)); v = torch.randn(4, requires_grad=True)\n"
        "i = torch.inner(v, v); j = torch.inner(a, v); (g.sum() + h.sum() + i + j.sum()).backward()\n"
        "o = torch.empty(3); k = torch.inner(a.detach(), v.detach(), out=o); same = k is o\n"),
    "vdot": (
        "torch.manual_seed(0)\n"
        "v = torch.randn(5, requires_grad=True); w = torch.randn(5, requires_grad=True)\n"
        "j = torch.vdot(v, w); k = v.vdot(v); (j + k).backward()\n"
        "o = torch.empty(()); r = torch.vdot(v.detach(), w.detach(), out=o); same = r is o\n"
        "i = torch.vdot(torch.arange(3), torch.arange(3)); c = torch.vdot(torch.tensor([1 + 2j, 3 - 1j]), "
        "torch.tensor([2 - 1j, 1j])); e = torch.vdot(torch.ones(0), torch.ones(0))\n"),
    "complex products' gradients (the conjugate on the other factor)": (
        "grads = []\n"
        "for f in (lambda z: z @ z.t(), lambda z: z @ z.t().conj(), lambda z: torch.bmm(z[None], z.t()[None]), "
        "lambda z: torch.dot(z[0], z[1]).reshape(1), lambda z: torch.mv(z, z[0]), lambda z: torch.vdot(z[0], z[1]).reshape(1), "
        "lambda z: torch.cov(z), lambda z: torch.corrcoef(z), lambda z: torch.addmm(z[:, :2], z, z.t())):\n"
        "    y = torch.tensor([[1., 2., 4.], [3., 1., 5.]], requires_grad=True); z = torch.complex(y, y.flip(1))\n"
        "    torch.view_as_real(f(z)).sum().backward(); grads.append(y.grad)\n"
        "del y, z\n"),
    "cdist, each p": (
        "torch.manual_seed(0)\n"
        "a = torch.randn(4, 3, requires_grad=True); b = torch.randn(5, 3, requires_grad=True)\n"
        "ds = [torch.cdist(a, b, p=p) for p in (0., 1., 1.5, 2., 3., float('inf'), 0.5)]\n"
        "total = sum((d * torch.arange(20.).view(4, 5)).sum() for d in ds); total.backward()\n"
        "saved = (ds[3].grad_fn._saved_p, ds[3].grad_fn._saved_result.shape, ds[3].grad_fn._saved_x1 is None)\n"),
    "cdist through matmul": (
        "torch.manual_seed(0)\n"
        "b = torch.randn(5, 3, requires_grad=True); c = torch.randn(2, 30, 3, requires_grad=True)\n"
        "m1 = torch.cdist(c, b); m2 = torch.cdist(b, b, compute_mode='use_mm_for_euclid_dist'); m3 = torch.cdist(c[0], b)\n"
        "(m1.sum() + m2.sum() + m3.sum()).backward()\n"
        "n = torch.cdist(c, b, compute_mode='donot_use_mm_for_euclid_dist')\n"),
    "cdist batches and empties": (
        "torch.manual_seed(0)\n"
        "x = torch.randn(2, 1, 3, 2, requires_grad=True); y = torch.randn(4, 5, 2, requires_grad=True)\n"
        "bb = torch.cdist(x, y, p=1); bb.sum().backward()\n"
        "e1 = torch.cdist(torch.ones(0, 2), torch.ones(3, 2)); e2 = torch.cdist(torch.ones(3, 0), torch.ones(2, 0))\n"
        "e3 = torch.cdist(torch.ones(30, 0), torch.ones(3, 0)); dd = torch.cdist(x.detach().double(), y.detach().double(), p=2.5)\n"
        "nan = torch.cdist(torch.tensor([[0., float('nan')]]), torch.tensor([[1., 1.], [2., 3.]]), p=float('inf'))\n"),
    "block_diag": (
        "torch.manual_seed(0)\n"
        "a = torch.randn(2, 3, requires_grad=True); v = torch.randn(3, requires_grad=True); s = torch.tensor(2., requires_grad=True)\n"
        "d = torch.randn(2, 2, dtype=torch.float64, requires_grad=True)\n"
        "b = torch.block_diag(a, v, s, torch.ones(0, 2), torch.ones(0), torch.ones(2, 0)); b2 = torch.block_diag(a, d)\n"
        "(b * torch.arange(b.numel()).view(b.shape)).sum().backward(); (b2 * 3).sum().backward()\n"
        "e = torch.block_diag(); i = torch.block_diag(torch.tensor([1, 2]), torch.tensor([[True]]))\n"
        "t = torch.block_diag(torch.ones(2, 3).t())\n"),
    "diag_embed": (
        "torch.manual_seed(0)\n"
        "x = torch.randn(2, 3, requires_grad=True)\n"
        "e1 = torch.diag_embed(x); e2 = torch.diag_embed(x, 1); e3 = torch.diag_embed(x, -2, 0, 2)\n"
        "e4 = x.diag_embed(offset=1, dim1=-1, dim2=0); (e1.sum() + (e2 * e2).sum() + (e3 * 3).sum() + e4.pow(3).sum()).backward()\n"
        "saved = (e3.grad_fn._saved_offset, e3.grad_fn._saved_dim1, e4.grad_fn._saved_dim1, e4.grad_fn._saved_dim2)\n"
        "e5 = torch.diag_embed(torch.ones(3, dtype=torch.int64)); e6 = torch.diag_embed(torch.ones(0, 0))\n"),
}

ERRORS = [
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=-1)",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=3)",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=([1], [1]))",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=([1], [0, 1]))",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2, dtype=torch.float64), dims=1)",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=1.5)",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=([1], [5]))",
    "torch.tensordot(torch.ones(2, 3, dtype=torch.bool), torch.ones(3, 2, dtype=torch.bool), dims=1)",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), 1, out=torch.empty(2, 2, dtype=torch.float64))",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=torch.tensor(-1))",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=(1, 0))",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 3), dims=([1, 1], [0, 0]))",
    "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2))",
    "torch.inner(torch.ones(2, 3), torch.ones(2, 2))",
    "torch.inner(torch.ones(2, 3), torch.ones(3, dtype=torch.float64))",
    "torch.inner(torch.ones(2, 3), 2.)",
    "torch.vdot(torch.ones(3, requires_grad=True), torch.ones(3), out=torch.empty(()))",
    "torch.vdot(torch.ones(3), torch.ones(3), out=torch.empty((), dtype=torch.float64))",
    "torch.vdot(torch.ones(3), torch.ones(2))",
    "torch.vdot(torch.ones(3, 1), torch.ones(3, 1))",
    "torch.vdot(torch.ones(3), torch.ones(3, dtype=torch.float64))",
    "torch.vdot(torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=torch.bool))",
    "torch.cdist(torch.ones(3), torch.ones(3))",
    "torch.cdist(torch.ones(3, 2), torch.ones(3))",
    "torch.cdist(torch.ones(3, 2), torch.ones(3, 3))",
    "torch.cdist(torch.ones(3, 2), torch.ones(3, 2), p=-1)",
    "torch.cdist(torch.ones(3, 2, dtype=torch.int64), torch.ones(3, 2, dtype=torch.int64))",
    "torch.cdist(torch.ones(3, 2), torch.ones(3, 2, dtype=torch.int64))",
    "torch.cdist(torch.ones(3, 2), torch.ones(3, 2, dtype=torch.float64))",
    "torch.cdist(torch.ones(30, 2), torch.ones(3, 2, dtype=torch.float64))",
    "torch.cdist(torch.ones(2, 3, 2), torch.ones(3, 5, 2))",
    "torch.cdist(torch.ones(3, 2, dtype=torch.float16), torch.ones(3, 2, dtype=torch.float16))",
    "torch.cdist(torch.ones(3, 2), torch.ones(3, 2), compute_mode='bad')",
    "torch.block_diag(torch.ones(2, 3), torch.ones(2, 2, 2))",
    "torch.diag_embed(torch.ones(2, 3), dim1=1, dim2=1)",
    "torch.diag_embed(torch.ones(2, 3), dim1=5)",
    "torch.diag_embed(torch.tensor(1.))",
]

# the forward kernels torch runs in a fixed order, reproduced to the last bit (results, and the
# gradients of the leaves); cdist's general-p gradient uses a vectorised pow numpy cannot reproduce
BIT_EXACT = {
    "cdist p=2 float32": "results = [torch.cdist(torch.randn(7, 33), torch.randn(9, 33)), "
                         "torch.cdist(torch.randn(2, 17, 6), torch.randn(9, 6))]",
    "cdist p=2 float64": "results = [torch.cdist(torch.randn(17, 7, dtype=torch.float64), "
                         "torch.randn(9, 7, dtype=torch.float64))]",
    "cdist other p": "x = torch.randn(7, 13); y = torch.randn(9, 13)\n"
                     "results = [torch.cdist(x, y, p=p) for p in (0., 1., 0.7, 3., float('inf'))]\n"
                     "results.append(torch.cdist(x.double(), y.double(), p=3.5))",
    "cdist gradients p = 1, 2, inf": (
        "a = torch.randn(7, 33, requires_grad=True); b = torch.randn(9, 33, requires_grad=True); leaves = [a, b]\n"
        "results = [torch.cdist(a, b, p=p) for p in (1., 2., float('inf'))]\n"
        "sum((r * torch.randn(7, 9)).sum() for r in results).backward()\n"),
    "diag_embed and block_diag": "x = torch.randn(3, 4); results = [torch.diag_embed(x, 1), torch.block_diag(x, x[0])]",
}

DERIVATIVE_SAMPLES = [
    ("torch.tensordot(a, b, dims=([1, 0], [0, 1]))", "r3x4x2 r4x3x5"), ("torch.inner(a, b)", "r3x4 r2x4"),
    ("torch.vdot(a, b)", "r4 r4"), ("torch.block_diag(a, b, c)", "r2x3 r4 r0"), ("torch.diag_embed(a, 1, 0, 2)", "r2x3"),
    ("torch.cdist(a, b)", "r3x2 r4x2"), ("torch.cdist(a, b, p=1.5)", "r3x2 r4x2"),
    ("torch.cdist(a, b, compute_mode='use_mm_for_euclid_dist')", "r3x2 r4x2"), ("torch.cdist(a, b)", "r2x30x2 r4x2"),
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
