"""The top-level linear algebra kept from before torch.linalg (svd, qr, cholesky, slogdet, pinverse,
lu) and the torch.linalg forms their deprecations point to (lu_factor, lu_factor_ex, lu, lu_unpack,
pinv) against torch 2.13: values, strides, return types, grad_fn names, first and second derivatives,
errors, and the deprecation warnings torch gives once per process."""

import warnings

import pytest

from tests.engine.missing_checks import error_of
from tests.engine.test_derivative_table import _close, run
from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402
import engine.nn.functional as EF  # noqa: E402
from engine import warn_once  # noqa: E402

QUIET = "import warnings\nwarnings.simplefilter('ignore')\n"  # the deprecations warn once per process: see below

SNIPPETS = {
    "svd": (
        "torch.manual_seed(0)\na = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
        "u, s, v = torch.svd(a); r = torch.svd(a, some=False); n = a.svd(compute_uv=False)\n"
        "(u.abs().sum() + s.sum() + v.abs().sum()).backward(); t = type(r).__name__; text = repr(n)\n"),
    "qr": (QUIET + "torch.manual_seed(0)\na = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
           "q, r = torch.qr(a); qc = a.qr(some=False); (q.abs().sum() + r.abs().sum()).backward(); t = type(qc).__name__\n"),
    "cholesky, slogdet": (
        QUIET + "torch.manual_seed(0)\na = torch.randn(3, 3, dtype=torch.float64)\n"
        "m = a @ a.t() + torch.eye(3, dtype=torch.float64); m.requires_grad_()\n"
        "l = torch.cholesky(m); up = m.cholesky(upper=True); (l.sum() + up.sum()).backward()\n"
        "sd = torch.slogdet(m); sd2 = m.slogdet(); sign, logabs = sd; text = repr(sd2)\n"
        "o = torch.empty(0, dtype=torch.float64); lo = torch.cholesky(m.detach(), out=o); same = lo is o\n"),
    "pinverse": (
        "torch.manual_seed(0)\na = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
        "p = torch.pinverse(a); p2 = a.t().pinverse(); p3 = torch.pinverse(a, rcond=0.5); (p.sum() + p2.sum() + p3.sum()).backward()\n"
        "b = torch.pinverse(torch.randn(2, 3, 2)); e = torch.pinverse(torch.ones(0, 2))\n"),
    "linalg.lu_factor and linalg.pinv, which the deprecations point to": (
        "a = torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]], requires_grad=True)\n"
        "r = torch.linalg.lu_factor(a); t = type(r).__name__; text = repr(r); (r.LU * torch.arange(9.).view(3, 3)).sum().backward()\n"
        "e = torch.linalg.lu_factor_ex(torch.tensor([[1., 2.], [2., 4.]])); te = type(e).__name__\n"
        "torch.manual_seed(0)\nb = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
        "p1 = torch.linalg.pinv(b); p2 = torch.linalg.pinv(b, atol=0.5); p3 = torch.linalg.pinv(b, rtol=torch.tensor(0.3, dtype=torch.float64))\n"
        "h = b.detach()[:3] @ b.detach()[:3].t(); h.requires_grad_(); p4 = torch.linalg.pinv(h, hermitian=True)\n"
        "(p1.sum() + p2.sum() + p3.sum() + p4.sum()).backward(); p5 = torch.linalg.pinv(torch.ones(2, 3, dtype=torch.float64))\n"),
    "linalg.lu and lu_unpack": (
        "a = torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]], requires_grad=True)\n"
        "LU, piv = torch.linalg.lu_factor(a); r = torch.lu_unpack(LU, piv); t = type(r).__name__; (r.L * 2 + r.U * 3).sum().backward()\n"
        "r2 = torch.lu_unpack(LU, piv, unpack_data=False); r3 = torch.lu_unpack(LU.detach(), piv, unpack_pivots=False)\n"
        "b = torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]], requires_grad=True)\n"
        "P, L, U = torch.linalg.lu(b); tl = type(torch.linalg.lu(b.detach())).__name__; (L.sin().sum() + U.cos().sum()).backward()\n"
        "torch.manual_seed(0)\nw = torch.randn(2, 4, dtype=torch.float64, requires_grad=True); pw, lw, uw = torch.linalg.lu(w)\n"
        "(lw.sum() + (uw * uw).sum()).backward()\n"),
    "lu": (
        QUIET + "a = torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]], requires_grad=True)\n"
        "lu, p = torch.lu(a); (lu * torch.arange(9.).view(3, 3)).sum().backward()\n"
        "r = torch.lu(a.detach(), get_infos=True); text = repr(r); t = type(r).__name__\n"
        "s = torch.lu(torch.tensor([[1., 2.], [2., 4.]]), get_infos=True)\n"
        "torch.manual_seed(0)\nw = torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True); lw, pw = torch.lu(w)\n"
        "(lw * lw).sum().backward(); h = torch.randn(5, 3, dtype=torch.float64, requires_grad=True); lh, ph = h.lu()\n"
        "lh.sin().sum().backward(); saved = (lu.grad_fn._saved_pivot, lu.grad_fn._saved_pivots.dtype)\n"),
}

ERRORS = [
    "torch.cholesky(torch.tensor([[1., 2.], [2., 1.]]))", "torch.cholesky(torch.ones(3))", "torch.cholesky(torch.ones(2, 3))",
    "torch.cholesky(torch.ones(2, 2, dtype=torch.int64))", "torch.svd(torch.ones(3))",
    "torch.svd(torch.ones(3, 2, dtype=torch.int64))", "torch.qr(torch.ones(3))", "torch.qr(torch.ones(3, 2, dtype=torch.int64))",
    "torch.slogdet(torch.ones(3))", "torch.slogdet(torch.ones(2, 3))", "torch.pinverse(torch.ones(3))",
    "torch.pinverse(torch.ones(3, 2, dtype=torch.int64))", "torch.lu(torch.ones(3))",
    "torch.lu(torch.ones(3, 3, dtype=torch.int64))", "torch.lu(torch.eye(3), pivot=False)",
    "torch.cholesky(torch.eye(2).requires_grad_(), out=torch.empty(2, 2))", "torch.svd(torch.ones(2, 3).half())",
    "torch.qr(torch.ones(2, 3).bfloat16())", "torch.linalg.lu_factor(torch.tensor([[1., 2.], [2., 4.]]))",
    "torch.linalg.lu_factor(torch.tensor([[[1., 2.], [2., 4.]]]))", "torch.linalg.lu_factor(torch.ones(3))",
    "torch.linalg.lu_factor_ex(torch.tensor([[1., 2.], [2., 4.]]), check_errors=True)",
    "torch.linalg.pinv(torch.ones(3))", "torch.linalg.pinv(torch.ones(2, 2, dtype=torch.int64))", "torch.cholesky(torch.eye(2).bfloat16())", "torch.slogdet(torch.eye(2).half())", "torch.eye(2).cholesky(out=torch.empty(2, 2))",
]

# lu's gradient unpacks P, L and U with other ops than torch's lu_unpack: values compared, not graphs
LU_SAMPLES = [("torch.lu(a)[0]", "r4x4"), ("torch.lu(a)[0]", "r3x5"), ("torch.lu(a)[0]", "r2x5x3"),
              ("torch.linalg.lu(a)[1]", "r4x4"), ("torch.linalg.lu(a)[2]", "r3x5"),
              ("torch.stack([torch.linalg.lu(a)[1].sum(), torch.linalg.lu(a)[2].sum()])", "r5x3"),
              ("torch.lu_unpack(*torch.linalg.lu_factor(a))[1]", "r4x4"), ("torch.lu_unpack(*torch.linalg.lu_factor(a))[2]", "r3x5"),
              ("torch.lu_unpack(*torch.linalg.lu_factor(a))[1]", "r5x3")]

DERIVATIVE_SAMPLES = [
    ("torch.svd(a)[1]", "r4x3"), ("torch.svd(a)[2].abs()", "r4x3"), ("torch.qr(a)[1].abs()", "r4x3"),
    ("torch.cholesky(spd(a))", "r3x3"), ("torch.cholesky(spd(a), upper=True)", "r3x3"),
    ("torch.slogdet(spd(a))[1]", "r3x3"), ("torch.pinverse(a)", "r4x3"), ("torch.pinverse(a)", "r3x4"),
]


@pytest.mark.parametrize("code", SNIPPETS.values(), ids=SNIPPETS.keys())
def test_same_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


@pytest.mark.parametrize("code", ERRORS)
def test_same_error_as_torch(code: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert error_of(engine, code) == error_of(torch, code)


@pytest.mark.parametrize(("expr", "kinds"), DERIVATIVE_SAMPLES, ids=[e for e, _ in DERIVATIVE_SAMPLES])
def test_first_and_second_derivatives(expr: str, kinds: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, _ = run(torch, torch.nn.functional, expr, kinds, 0)
        got, _ = run(engine, EF, expr, kinds, 0)
    if not _close(expected, got):
        assert got == expected


@pytest.mark.parametrize(("expr", "kinds"), LU_SAMPLES, ids=[f"{e} {k}" for e, k in LU_SAMPLES])
def test_lu_first_and_second_derivatives(expr: str, kinds: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, _ = run(torch, torch.nn.functional, expr, kinds, 0, graphs=False)
        got, _ = run(engine, EF, expr, kinds, 0, graphs=False)
    if not _close(expected, got):
        assert got == expected


@pytest.mark.parametrize("call", ["torch.qr(torch.eye(2))", "torch.eye(2).cholesky()", "torch.lu(torch.eye(2))"])
def test_deprecated_forms_warn_once(monkeypatch, call: str) -> None:
    def first_lines(module) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eval(call, {"torch": module})  # noqa: S307 - our own test expression
            eval(call, {"torch": module})  # noqa: S307
        return [str(w.message).split("\n")[0] for w in caught]

    monkeypatch.setattr(warn_once, "_given", set())
    engine_lines = first_lines(engine)
    torch_lines = first_lines(torch)  # empty when an earlier test in this process already had the warning
    assert len(engine_lines) == 1
    assert torch_lines in ([], engine_lines)
