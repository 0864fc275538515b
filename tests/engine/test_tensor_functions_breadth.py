"""Tensor and torch functions optimizers and models reach for, each snippet run in real PyTorch and in the
engine: the same values, dtypes, shapes, strides, versions, grad_fn names, gradients, return types and
errors (see tests/oracle.py). Derivatives are in test_derivative_table.py."""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")

A = "a = torch.tensor([[1., -2., 3.], [0.5, 4., -1.]], requires_grad=True)\n"

SNIPPETS = {
    # ------------------------------------------------------------------ in-place forms
    "in-place triangles and cumsum": (
        A + "t = a * 1; t.tril_(); u = a * 1; u.triu_(1); c = a * 1; c.cumsum_(1)\n"
        "(t + u + c).sum().backward(); vs = (t._version, u._version, c._version)\n"),
    "addmm_ in place": ("m = torch.zeros(2, 2); m.addmm_(torch.ones(2, 3), torch.ones(3, 2), beta=0.5, alpha=2.); "
                        "v = m._version; w = torch.ones(2, 2, requires_grad=True); "
                        "x = w * 1; x.addmm_(w, w); x.sum().backward()"),
    "addmm_ into a leaf": "w = torch.ones(2, 2, requires_grad=True); w.addmm_(w, w)",
    "addmm_ of the wrong shape": "torch.zeros(3, 3).addmm_(torch.ones(2, 3), torch.ones(3, 2))",
    "cumsum_ of integers": "i = torch.tensor([1, 2, 3]); i.cumsum_(0); v = i._version",
    "torch.clamp_min_ and clamp_max_": A + "x = a * 1; torch.clamp_min_(x, 0.); y = a * 1; torch.clamp_max_(y, 1.); "
                                           "(x + y).sum().backward()",
    # ------------------------------------------------------------------ composites
    "tile": A + "t = a.tile(2); u = torch.tile(a, (2, 1, 2)); v = a.tile(()); (t.sum() + u.sum()).backward()",
    "diff": (A + "d = torch.diff(a); e = a.diff(n=2, dim=0); f = torch.diff(a, prepend=torch.zeros(2, 1), "
             "append=torch.ones(2, 2)); g = torch.diff(a, n=0); h = torch.diff(torch.tensor([True, False, False]))\n"
             "i = torch.diff(torch.tensor([1, 4, 9, 16]), n=2); (d.sum() + f.sum()).backward()\n"),
    "diff of a scalar": "torch.diff(torch.tensor(1.))",
    "diff with a negative order": "torch.diff(torch.ones(3), n=-1)",
    "diff with a prepend of another rank": "torch.diff(torch.ones(2, 3), prepend=torch.ones(3))",
    "take_along_dim": (A + "i = a.argsort(1); s = torch.take_along_dim(a, i, 1); f = torch.take_along_dim(a, "
                       "torch.tensor([0, 5, 5])); b = torch.take_along_dim(a, torch.tensor([[2]]), 1); "
                       "(s * s).sum().backward()"),
    "take_along_dim of another rank": "torch.take_along_dim(torch.ones(2, 3), torch.tensor([0]), 1)",
    "take_along_dim with float indices": "torch.take_along_dim(torch.ones(2, 3), torch.tensor([[0.]]), 1)",
    "rot90": (A + "r = torch.rot90(a); s = a.rot90(2); t = torch.rot90(a, -1, (1, 0)); u = torch.rot90(a, 4)\n"
              "(r.sum() + (s * s).sum() + t[0].sum()).backward()\n"),
    "rot90 errors": "torch.rot90(torch.ones(3))",
    "rot90 same dims": "torch.rot90(torch.ones(2, 3), 1, [0, 0])",
    "nansum and nanmean": (
        "x = torch.tensor([[1., float('nan'), 3.], [float('nan'), float('nan'), 2.]], requires_grad=True)\n"
        "s = torch.nansum(x); r = x.nansum(1, keepdim=True); m = torch.nanmean(x, 0); n = x.nanmean()\n"
        "(s + r.sum() + n).backward(); i = torch.nansum(torch.tensor([1, 2])); d = x.nansum(dtype=torch.float64)\n"),
    "nanmean of integers": "torch.nanmean(torch.tensor([1, 2]))",
    "cummax and cummin": (
        "x = torch.tensor([[1., 3., 3., 2., 5.], [0., float('nan'), 1., -1., 2.]], requires_grad=True)\n"
        "m = torch.cummax(x, 1); n = x.cummin(dim=1); v, i = m; print(type(m).__name__, m.indices)\n"
        "(m.values.sum() + n[0][0].sum()).backward(); k = torch.cummax(torch.tensor([2, 1, 2, 3]), 0)\n"),
    "scatter_add out of place": (
        A + "b = torch.ones(2, 3, requires_grad=True); i = torch.tensor([[0, 1, 0], [2, 2, 2]])\n"
        "s = torch.scatter_add(a, 1, i, b); t = a.scatter_add(0, torch.tensor([[1, 0, 1]]), b[:1]); "
        "(s * s).sum().backward()\n"),
    # ------------------------------------------------------------------ pointwise and linear algebra
    "logaddexp": ("a = torch.tensor([1., -50., float('inf'), float('-inf'), 0.], requires_grad=True); "
                  "b = torch.tensor([2., 40., float('inf'), float('-inf'), float('nan')], requires_grad=True); "
                  "l = torch.logaddexp(a, b); m = a.logaddexp2(b); l[:2].sum().backward(); "
                  "d = torch.logaddexp(a.detach().double(), torch.zeros(1, dtype=torch.float64))"),
    "logaddexp of integers": "torch.logaddexp(torch.tensor([1, 2]), torch.tensor([1, 2]))",
    "logaddexp with a number": "torch.logaddexp(torch.tensor(1.), 2.)",
    "nan_to_num": ("f = torch.tensor([float('inf'), float('-inf'), 1., float('nan')], requires_grad=True)\n"
                   "a = torch.nan_to_num(f); b = f.nan_to_num(nan=1., posinf=2.); c = torch.nan_to_num(f.detach().half())\n"
                   "i = torch.nan_to_num(torch.tensor([1, 2])); (a * 0 + b).sum().backward()\n"
                   "g = f.detach().clone(); g.nan_to_num_(); v = g._version; o = torch.empty(4); "
                   "r = torch.nan_to_num(f.detach(), out=o); same = r is o\n"),
    "heaviside": ("x = torch.tensor([0., -1., 2.], requires_grad=True); h = torch.heaviside(x, torch.tensor(7.)); "
                  "k = x.detach().heaviside(torch.tensor([0.5]))"),
    "heaviside has no derivative": "x = torch.tensor([0., 1.], requires_grad=True); torch.heaviside(x, torch.tensor(7.)).sum().backward()",
    "heaviside of mixed dtypes": "torch.heaviside(torch.tensor([1, 2]), torch.tensor([0.5]))",
    "cross": ("torch.manual_seed(0); a = torch.randn(2, 3, requires_grad=True); b = torch.randn(2, 3)\n"
              "c = torch.cross(a, b, dim=1); d = torch.linalg.cross(a, b); e = a.cross(b, dim=1); f = torch.cross(a, b)\n"
              "(c.sum() + (d * d).sum()).backward()\n"),
    "cross of the wrong length": "torch.linalg.cross(torch.ones(3, 2), torch.ones(3, 2))",
    "det and inverse": ("m = torch.tensor([[4., 1.], [2., 3.]], requires_grad=True); d = torch.det(m); i = m.inverse(); "
                        "j = torch.inverse(m); e = m.det(); (d + i.sum()).backward()"),
    # ------------------------------------------------------------------ binning, inverse error function
    "bucketize and searchsorted": (
        "b = torch.tensor([1., 3., 5., 7.]); x = torch.tensor([[0., 3., 6.], [9., 1., float('nan')]])\n"
        "i = torch.bucketize(x, b); j = torch.bucketize(x, b, right=True); k = torch.bucketize(x, b, out_int32=True)\n"
        "s = torch.bucketize(3., b); t = torch.searchsorted(b, x); u = torch.searchsorted(b, x, side='right')\n"
        "v = torch.searchsorted(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[1.5], [3.]])); w = torch.searchsorted(b, 4.)\n"
        "o = torch.searchsorted(torch.tensor([5., 1., 3.]), x, sorter=torch.tensor([1, 2, 0]))\n"),
    "bucketize with 2-d boundaries": "torch.bucketize(torch.ones(2), torch.ones(2, 2))",
    "searchsorted with mismatched leading dims": "torch.searchsorted(torch.ones(2, 2), torch.tensor([1.5]))",
    "searchsorted with opposite sides": "torch.searchsorted(torch.ones(3), torch.ones(2), right=True, side='left')",
    "erfinv": ("x = torch.tensor([0.5, -0.9, 0., 0.999, 1., -1., 2.], requires_grad=True); y = torch.erfinv(x); "
               "y[:4].sum().backward(); d = x.detach().double().erfinv(); i = torch.erfinv(torch.tensor([0, 1])); "
               "z = torch.tensor([0.2, -0.3]); z.erfinv_(); v = z._version"),
    "lgamma, digamma, polygamma": (
        "x = torch.tensor([0.5, 1., 3.7, 10., 123.4, -2.5, -7.3], requires_grad=True)\n"
        "l = torch.lgamma(x); d = x.digamma(); p = torch.polygamma(1, x); q = x.polygamma(3)\n"
        "(l + d + p).sum().backward()\n"
        "e = torch.tensor([0., -1., float('inf'), float('-inf'), float('nan')])\n"
        "le = e.lgamma(); de = torch.digamma(e); pe = torch.polygamma(2, e); i = torch.lgamma(torch.tensor([1, 5]))\n"
        "z = torch.tensor([0.3, 4.]); z.lgamma_(); w = torch.tensor([0.3, 4.]); w.polygamma_(1); v = (z._version, w._version)\n"),
    "polygamma of a negative order": "torch.polygamma(-1, torch.ones(2))",
    "kron": ("a = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True); b = torch.tensor([[0., 1.], [1., 0.]]); "
             "k = torch.kron(a, b); v = torch.kron(torch.tensor([1, 2]), torch.tensor([[1, 0], [0, 1]])); "
             "m = a.kron(torch.ones(2)); (k * k).sum().backward()"),
}


@pytest.mark.parametrize("code", SNIPPETS.values(), ids=SNIPPETS.keys())
def test_same_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected
