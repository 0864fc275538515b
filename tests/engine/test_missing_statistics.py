"""aminmax, kthvalue, mode, unique_consecutive, histc, gcd / lcm, cov, corrcoef, logcumsumexp and
quantile / nanquantile against torch 2.13: values, dtypes, shapes, strides, versions, grad_fn names,
gradients, out=, method forms, errors; tie-breaking indices and the kernels' values bit for bit."""

import numpy as np
import pytest

from tests.engine.missing_checks import assert_bit_exact, error_of
from tests.engine.test_derivative_table import _close, run
from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402
import engine.nn.functional as EF  # noqa: E402

SNIPPETS = {
    "aminmax": (
        "x = torch.tensor([[1., 3., 3., 0.], [2., 2., 5., 5.]], requires_grad=True)\n"
        "r = torch.aminmax(x); s = torch.aminmax(x, dim=-1); k = x.aminmax(dim=1, keepdim=True)\n"
        "(r.min * 2 + r.max + s.max.sum() + (k.min * 3).sum()).backward(); text = repr(r)\n"
        "n = torch.aminmax(torch.tensor([1., float('nan'), 2.])); b = torch.aminmax(torch.tensor([True, False]))\n"
        "z = torch.aminmax(torch.tensor(3.), dim=0); e = torch.aminmax(torch.ones(0, 3), dim=1)\n"
        "kk = torch.aminmax(x.detach(), keepdim=True)\n"
        "o1 = torch.empty(2); o2 = torch.empty(2); ro = torch.aminmax(x.detach(), dim=1, out=(o1, o2)); ident = ro[0] is o1\n"),
    "kthvalue": (
        "t = torch.tensor([[3., 1., float('nan'), 2.], [2., 1., 2., 2.]], requires_grad=True)\n"
        "k1 = torch.kthvalue(t, 1); k2 = torch.kthvalue(t, 3, 1, keepdim=True); k4 = t.kthvalue(4); k0 = torch.kthvalue(t, 2, 0)\n"
        "(k1.values.sum() + k2[0].sum() * 2 + k0.values.sum()).backward(); text = repr(k1)\n"
        "ki = torch.kthvalue(torch.tensor([2, 1, 2, 2, 1]), 3); ks = torch.kthvalue(torch.tensor(3.), 1)\n"
        "ov = torch.empty(2); oi = torch.empty(0, dtype=torch.int64); ko = torch.kthvalue(t.detach(), 2, out=(ov, oi))\n"
        "same = ko[0] is ov; kt = type(ko).__name__\n"),
    "mode": (
        "m = torch.tensor([[1., 3., 3., 0.], [2., 2., 5., 5.]], requires_grad=True)\n"
        "m1 = torch.mode(m); m2 = m.mode(0); m3 = torch.mode(m, 1, True); (m1.values.sum() + m3[0].sum()).backward()\n"
        "mi = torch.mode(torch.tensor([1, 2, 2, 1, 3])); mn = torch.mode(torch.tensor([1., float('nan'), float('nan'), 1.]))\n"
        "mb = torch.mode(torch.tensor([True, False, False])); me = torch.mode(torch.ones(0, 2), 1); ms = torch.mode(torch.tensor(3.))\n"
        "big = torch.mode(torch.arange(40) % 3)\n"
        "ov = torch.empty(5); oi = torch.empty(0, dtype=torch.int64); mo = torch.mode(m.detach(), 0, True, out=(ov, oi))\n"
        "mt = type(mo).__name__\n"),
    "unique_consecutive": (
        "u = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True)\n"
        "u2 = torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 3]]), dim=0, return_inverse=True, return_counts=True)\n"
        "u3 = torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 3]]), dim=1, return_counts=True, return_inverse=True)\n"
        "u4 = torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 3]])); u5 = torch.unique_consecutive(torch.tensor([]), return_counts=True)\n"
        "u6 = torch.unique_consecutive(torch.tensor(5), return_inverse=True); u7 = torch.unique_consecutive(torch.tensor([1., float('nan'), float('nan')]))\n"
        "u8 = torch.unique_consecutive(torch.ones(2, 0), dim=1); u9 = torch.ones(3).unique_consecutive(return_counts=True)\n"
        "u10 = torch.unique_consecutive(torch.tensor([[[1, 1], [1, 1]], [[2, 3], [2, 3]]]), dim=1, return_inverse=True)\n"
        "g = torch.tensor([1., 1., 2.], requires_grad=True); ug = torch.unique_consecutive(g); ud = torch.unique_consecutive(g, dim=0)\n"
        "h = torch.ones(2, 2, requires_grad=True); uh = torch.unique_consecutive(h, dim=1)\n"),
    "gcd and lcm": (
        "g1 = torch.gcd(torch.tensor([4, 6, -8, 0, 0]), torch.tensor([6, 9, 12, 5, 0])); l1 = torch.lcm(torch.tensor([4, -6, 0]), torch.tensor([6, 9, 0]))\n"
        "g2 = torch.gcd(torch.tensor([4, 6]), torch.tensor([6, 9], dtype=torch.int32))\n"
        "g3 = torch.gcd(torch.tensor([4, 6], dtype=torch.int8), torch.tensor([6, 9], dtype=torch.uint8))\n"
        "a = torch.tensor([4, 6]); a.gcd_(torch.tensor([6, 9])); v = a._version; b = torch.tensor([4, 6], dtype=torch.int32); b.lcm_(torch.tensor([6, 9]))\n"
        "o = torch.empty(2); r = torch.gcd(torch.tensor([4, 6]), torch.tensor([6, 9]), out=o); same = r is o\n"
        "l2 = torch.lcm(torch.tensor([2**62, 3]), torch.tensor([3, 2**62])); g4 = torch.gcd(torch.tensor([-2**63]), torch.tensor([0]))\n"
        "m = torch.tensor([12, 18]).gcd(torch.tensor([[8], [27]])); n = torch.tensor([12, 18]).lcm(torch.tensor([8, 27]))\n"),
    "cov and corrcoef": (
        "x = torch.tensor([[1., 2., 4., 7.], [3., 1., 0., 2.], [0.5, -1., 2., 2.]], requires_grad=True)\n"
        "c = torch.cov(x); d = torch.cov(x, correction=0)\n"
        "e = x.cov(fweights=torch.tensor([1, 2, 1, 3]), aweights=torch.tensor([0.5, 1., 2., 1.]))\n"
        "f = torch.cov(x[0]); g = torch.corrcoef(x); h = x.corrcoef(); i = torch.cov(torch.tensor([[1, 2, 4], [3, 1, 0]]))\n"
        "j = torch.corrcoef(x[1]); k = torch.cov(x, correction=4); l = torch.cov(torch.ones(2, 0)); m = torch.cov(torch.tensor([1.]))\n"
        "(c.sum() + e.sum() + f + (g * g).sum() + j).backward()\n"
        "n = torch.cov(x.detach(), aweights=torch.tensor([0.5, 1., 2., 1.]), correction=2)\n"),
    "logcumsumexp": (
        "x = torch.tensor([[1., -2., 30., 0.5], [0., 0., -1., 4.]], requires_grad=True)\n"
        "a = torch.logcumsumexp(x, 1); b = x.logcumsumexp(0); (a * torch.tensor([1., -2., 3., 0.5])).sum().backward()\n"
        "c = torch.logcumsumexp(torch.tensor([1., float('inf'), float('-inf'), 2.]), 0)\n"
        "d = torch.logcumsumexp(torch.tensor([float('-inf'), float('-inf'), 3.]), 0); e = torch.logcumsumexp(torch.tensor(2.), 0)\n"
        "f = torch.logcumsumexp(torch.ones(0, 3), 1); h = torch.logcumsumexp(torch.ones(2, 3, dtype=torch.float16), 1)\n"
        "o = torch.empty(4); r = torch.logcumsumexp(x.detach()[0], 0, out=o); same = r is o\n"),
    "histc": (
        "a = torch.histc(torch.tensor([0., 1., 2., 3., 3.5, float('nan'), -1., 4.]), 4, 0, 3)\n"
        "b = torch.histc(torch.tensor([1., 2.], dtype=torch.float64), 4); c = torch.histc(torch.ones(0)); d = torch.histc(torch.tensor([1., 1.]))\n"
        "e = torch.histc(torch.tensor([1., 2.], requires_grad=True), 5); f = torch.tensor([1., 2.]).histc(3, 0, 3)\n"
        "o = torch.empty(2); r = torch.histc(torch.tensor([1., 2.]), 3, out=o); same = r is o\n"
        "h = torch.histc(torch.tensor([1., 2.], dtype=torch.float16), 4)\n"),
    "quantile and nanquantile": (
        "torch.manual_seed(0)\n"
        "x = torch.randn(3, 5, requires_grad=True)\n"
        "a = torch.quantile(x, 0.3); b = torch.quantile(x, torch.tensor([0.1, 0.5, 0.9]), dim=1); c = x.quantile(0.5, dim=0, keepdim=True)\n"
        "d = torch.quantile(x, torch.tensor([0.25, 0.75]), dim=0, keepdim=True); e = torch.quantile(x, 0.4, keepdim=True)\n"
        "f = [torch.quantile(x, 0.35, dim=1, interpolation=m) for m in ('linear', 'lower', 'higher', 'midpoint', 'nearest')]\n"
        "(a + b.sum() + c.sum() + d.sum() * 2 + e.sum() + sum(t.sum() for t in f)).backward()\n"
        "n = x.detach().clone(); n[0, 1] = float('nan'); n[2] = float('nan')\n"
        "g = torch.nanquantile(n, 0.4, dim=1); h = torch.quantile(n, 0.4, dim=1); i = n.nanquantile(torch.tensor([0., 1.]))\n"
        "j = torch.quantile(n, 0.2); s = torch.quantile(torch.tensor(3.), 0.5, dim=0, keepdim=True)\n"
        "o = torch.empty(5); r = torch.quantile(x.detach(), 0.5, dim=0, out=o); same = r is o\n"
        "o2 = torch.empty(()); r2 = torch.quantile(x, 0.5, out=o2)\n"),
}

ERRORS = [
    "torch.aminmax(torch.ones(0))", "torch.aminmax(torch.ones(0, 3), dim=0)", "torch.aminmax(torch.tensor([1+1j]))",
    "torch.aminmax(torch.ones(2, 3), dim=5)",
    "torch.kthvalue(torch.ones(2, 3), 0)", "torch.kthvalue(torch.ones(2, 3), 4)", "torch.kthvalue(torch.ones(2, 3), 3, 0)",
    "torch.kthvalue(torch.tensor(3.), 2)", "torch.kthvalue(torch.ones(0), 1)", "torch.kthvalue(torch.tensor([True, False]), 1)",
    "torch.ones(2, 3).kthvalue(1, out=(torch.empty(2), torch.empty(2, dtype=torch.int64)))",
    "torch.kthvalue(torch.ones(2, 3, requires_grad=True), 2, out=(torch.empty(2), torch.empty(2, dtype=torch.int64)))",
    "torch.kthvalue(torch.ones(2, 3), 2, out=(torch.empty(2, dtype=torch.float64), torch.empty(2, dtype=torch.int64)))",
    "torch.kthvalue(torch.ones(2, 3), 2, out=(torch.empty(2), torch.empty(2, dtype=torch.int32)))",
    "torch.mode(torch.ones(2, 3), out=(torch.empty(2), torch.empty(2, dtype=torch.int32)))",
    "torch.mode(torch.ones(2, 3), out=(torch.empty(2, dtype=torch.float64), torch.empty(2)))",
    "torch.ones(2, 3).mode(out=(torch.empty(2), torch.empty(2, dtype=torch.int64)))",
    "torch.mode(torch.ones(0))", "torch.mode(torch.ones(2, 0), 1)", "torch.mode(torch.tensor([1+1j]))",
    "torch.unique_consecutive(torch.tensor(5), return_inverse=True, dim=0)",
    "torch.unique_consecutive(torch.ones(2, 3), dim=3)", "torch.unique_consecutive(torch.ones(2, 0), dim=0)",
    "torch.unique_consecutive(torch.tensor([1., 1.], requires_grad=True)).sum().backward()",
    "torch.unique_consecutive(torch.ones(2, 2, requires_grad=True), dim=1).sum().backward()",
    "torch.gcd(torch.tensor([4., 6.]), torch.tensor([6., 9.]))", "torch.gcd(torch.tensor([4, 6]), 3)",
    "torch.gcd(torch.tensor([True]), torch.tensor([True]))", "torch.tensor([4, 6]).gcd_(torch.tensor([6., 9]))",
    "torch.tensor([4., 6]).lcm_(torch.tensor([6., 9]))", "torch.tensor([4, 6], dtype=torch.int32).gcd_(torch.tensor([[6, 9]]))",
    "torch.cov(torch.ones(2, 2, 2))", "torch.cov(torch.tensor([True, False]))",
    "torch.cov(torch.tensor([1., 2.]), fweights=torch.tensor([1., 2.]))",
    "torch.cov(torch.tensor([1., 2.]), fweights=torch.tensor([1, 2, 3]))",
    "torch.cov(torch.tensor([1., 2.]), fweights=torch.tensor([-1, 2]))",
    "torch.cov(torch.tensor([1., 2.]), fweights=torch.tensor([[1, 2]]))",
    "torch.cov(torch.tensor([1., 2.]), aweights=torch.tensor([1, 2]))",
    "torch.cov(torch.tensor([1., 2.]), aweights=torch.tensor([-1., 2.]))",
    "torch.cov(torch.tensor([1., 2.]), aweights=torch.tensor([0., 0.]))",
    "torch.cov(torch.tensor([1., 2.]), aweights=torch.tensor([1., 2., 3.]))", "torch.corrcoef(torch.ones(2, 2, 2))",
    "torch.logcumsumexp(torch.tensor([1, 2]), 0)", "torch.logcumsumexp(torch.ones(2), 1)",
    "torch.logcumsumexp(torch.ones(2), 0, out=torch.empty(2, dtype=torch.float64))",
    "torch.logcumsumexp(torch.ones(2, requires_grad=True), 0, out=torch.empty(2))",
    "torch.histc(torch.tensor([1, 2]))", "torch.histc(torch.tensor([True]))", "torch.histc(torch.tensor([1j]))",
    "torch.unique_consecutive(torch.tensor([1j, 1j]))", "torch.histc(torch.tensor([1., 2.]), bins=0)",
    "torch.histc(torch.tensor([1., 2.]), min=3, max=1)", "torch.histc(torch.tensor([1., float('nan')]))",
    "torch.histc(torch.tensor([1., float('inf')]))", "torch.histc(torch.tensor([1., 2.]), min=float('nan'))",
    "torch.histc(torch.tensor([1., 2.]), 3, out=torch.empty(3, dtype=torch.float64))",
    "torch.quantile(torch.ones(0), 0.5)", "torch.quantile(torch.ones(3), 1.5)", "torch.nanquantile(torch.ones(3), -0.1)",
    "torch.quantile(torch.ones(3), torch.tensor([0.5, 1.5]))", "torch.quantile(torch.ones(3), torch.tensor([[0.5]]))",
    "torch.quantile(torch.ones(3, dtype=torch.int64), 0.5)",
    "torch.quantile(torch.ones(3), torch.tensor([0.5], dtype=torch.float64))",
    "torch.quantile(torch.ones(3), 0.5, interpolation='bad')", "torch.quantile(torch.ones(3), 0.5, dim=1)",
    "torch.quantile(torch.ones(2, 0), 0.5, dim=0)",
    "torch.quantile(torch.ones(2, 3), 0.5, out=torch.empty((), dtype=torch.float64))",
]

BIT_EXACT = {
    "logcumsumexp": "results = [torch.logcumsumexp(torch.randn(7, 33) * 10, 1), "
                    "torch.logcumsumexp(torch.randn(7, 33, dtype=torch.float64) * 10, 0), "
                    "torch.logcumsumexp(torch.randn(70, 3).half(), 0)]",
    "histc": "results = [torch.histc(torch.randn(1000), 37), torch.histc(torch.randn(1000) * 3, 7, -2, 2), "
             "torch.histc(torch.randint(0, 10, (1000,)).double() / 3, 30), torch.histc(torch.rand(1000).half(), 13)]",
    "cov and corrcoef": "x = torch.randn(5, 40); results = [torch.cov(x), torch.corrcoef(x), "
                        "torch.cov(x.double(), correction=0)]",
    "quantile float32": "results = [torch.quantile(torch.randn(7, 33), torch.rand(5), dim=1)]",
}

DERIVATIVE_SAMPLES = [
    ("torch.aminmax(a).min", "r3x4"), ("torch.aminmax(a, dim=1).max", "r3x4"),
    ("torch.stack(torch.aminmax(a, dim=0, keepdim=True))", "r3x4"), ("torch.kthvalue(a, 2, 0).values", "r3x4"),
    ("torch.kthvalue(a, 2, 1, True)[0]", "r3x4"), ("torch.mode(a.round(), 1).values", "r3x4"),
    ("torch.logcumsumexp(a, 1)", "r3x4"), ("torch.logcumsumexp(a, 0)", "r5"), ("torch.cov(a)", "r3x4"),
    ("torch.cov(a, fweights=torch.tensor([1, 2, 1, 3]), aweights=b.abs())", "r3x4 r4"),
    ("torch.cov(a, aweights=b.abs(), correction=0)", "r3x4 r4"), ("torch.corrcoef(a)", "r3x4"),
    ("torch.quantile(a, 0.3)", "r3x5"),
    ("torch.quantile(a, torch.tensor([0.25, 0.75], dtype=torch.float64), dim=0, keepdim=True)", "r3x5"),
    ("torch.nanquantile(a, 0.4, dim=1, interpolation='midpoint')", "r3x5"),
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


@pytest.mark.parametrize("seed", range(40))
def test_tied_values_report_torchs_index(seed: int) -> None:
    """kthvalue's quickselect and mode's std::sort leave equal values in an order of their own: the
    engine runs the same algorithms, so the index reported for a tie is torch's."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60 if seed < 30 else 800))
    values = rng.integers(0, int(rng.integers(1, 6)), size=(3, n)).astype(np.float32)
    if seed % 3 == 0:
        values[rng.random(values.shape) < 0.1] = np.nan
    k = int(rng.integers(1, n + 1))
    for op, args in (("kthvalue", (k, 1)), ("mode", (1,))):
        expected = getattr(torch, op)(torch.tensor(values), *args)
        got = getattr(engine, op)(engine.tensor(values), *args)
        assert got.indices.tolist() == expected.indices.tolist()
        np.testing.assert_array_equal(np.array(got.values.tolist()), np.array(expected.values.tolist()))
