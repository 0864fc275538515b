"""PyTorch's test/test_view_ops.py (TestViewOps, TestOldViewOps), ported: which ops return views and
which copy, what a write through a view does to its base, the view ops' errors, and view(dtype).

Each case is the upstream test's code, with its assertions turned into state that the comparison
with real torch sees (see harness.py); loops over dtypes are cut to the dtypes the engine has.
"""

import pytest

from tests.upstream.harness import cases, compare

pytest.importorskip("torch")

XFAIL: dict[str, str] = {}

CASES = cases(
    # ------------------------------------------------------------------ TestViewOps: views or not
    ("test_conj_self", "t = torch.ones(5, 5)\ns = t.conj()\nsame = s is t"),
    ("test_view_dtype_new: same element size",
     "a = torch.arange(-8, 8, dtype=torch.int32).reshape(4, 4)\nf = a.view(torch.float32)\n"
     "back = f.view(torch.int32)\nsame_ptr = a.data_ptr() == f.data_ptr()"),
    ("test_view_dtype_new: smaller element",
     "a = torch.arange(12, dtype=torch.int64).reshape(3, 4)\nb = a.view(torch.int32)\nc = a.view(torch.int16)\n"
     "d = a.view(torch.uint8)\ne = a.permute(1, 0).contiguous().permute(1, 0).view(torch.int32)"),
    ("test_view_dtype_new: larger element",
     "a = torch.arange(16, dtype=torch.int16).reshape(2, 8)\nb = a.view(torch.int32)\nc = a.view(torch.int64)\n"
     "d = a[:, ::2].contiguous().view(torch.float32)"),
    ("test_view_dtype_new: expanded and sliced",
     "a = torch.arange(5.).reshape(1, 5, 1).expand(5, 5, 4)\nb = a.view(torch.int32)\n"
     "c = torch.arange(20.).reshape(2, 5, 2)[1::2, 1:, :]\nd = c.view(torch.int32)\ne = c.view(torch.int16)"),
    ("test_view_dtype_new: empty and 0-dim",
     "a = torch.zeros(0, 5, 64)\nb = a.view(torch.int16)\ns = torch.tensor(3.5)\nt = s.view(torch.int32)\n"
     "r = _err(lambda: s.view(torch.int16))\nr2 = _err(lambda: s.view(torch.float64))"),
    ("test_view_dtype_new: stride(-1) must be 1",
     "a = torch.arange(16.).reshape(4, 4).t()\nr = _err(lambda: a.view(torch.int16))\nok = a.view(torch.int32)"),
    ("test_view_dtype_new: drops requires_grad",
     "t = torch.ones(5, 5, 4, requires_grad=True)\nv = t.view(torch.float64)\nw = t.view(torch.int32)\n"
     "u = t.view(torch.float16)"),
    ("test_view_dtype_upsize_errors",
     "a = torch.arange(12, dtype=torch.int16).reshape(2, 2, 3)\nr1 = _err(lambda: a.view(torch.int32))\n"
     "b = torch.arange(16, dtype=torch.int16).reshape(2, 2, 4)\nr2 = _err(lambda: b[:, :, 1:].view(torch.int64))\n"
     "r3 = _err(lambda: b[:, :, 1:3].view(torch.int32))\n"
     "c = torch.arange(8, dtype=torch.int16).reshape(2, 2, 2).as_strided((2, 2, 2), (2, 1, 1))\n"
     "r4 = _err(lambda: c.view(torch.int32))\n"
     "d = torch.zeros(2, 2, dtype=torch.bool)\nr5 = _err(lambda: d.view(torch.int16))"),
    ("test_view_as_complex",
     "t = torch.arange(12.).reshape(3, 2, 2)\nc = torch.view_as_complex(t)\nsame_base = c._base is t\n"
     "r1 = _err(lambda: torch.view_as_complex(t.transpose(0, 2)))\n"
     "r2 = _err(lambda: torch.view_as_complex(t.transpose(1, 2)))\n"
     "x = torch.arange(9.).reshape(3, 3)\nr3 = _err(lambda: torch.view_as_complex(torch.as_strided(x, (2, 2), (1, 1))))\n"
     "e = torch.tensor([])\nr4 = _err(lambda: torch.view_as_complex(e))\n"
     "r5 = _err(lambda: torch.view_as_complex(torch.tensor(2.0)))\ny = e.reshape(0, 2)\nz = torch.view_as_complex(y)"),
    ("test_view_as_complex: transposed input",
     "t = torch.arange(12.).reshape(3, 2, 2)\nc = torch.view_as_complex(t.transpose(0, 1))"),
    ("test_view_as_real",
     "t = torch.complex(torch.arange(12.).reshape(3, 4), -torch.arange(12.).reshape(3, 4))\n"
     "r = torch.view_as_real(t)\nrt = torch.view_as_real(t.t())\nsame_base = r._base is t\n"
     "e = torch.tensor([], dtype=torch.complex64)\nre = torch.view_as_real(e)\n"
     "s = torch.tensor(2 + 3j)\nrs = torch.view_as_real(s)"),
    ("test_view_as_real: complex128",
     "t = torch.tensor([[1 + 2j, 3 - 4j], [5j, -6.5 + 0j]], dtype=torch.complex128)\nr = torch.view_as_real(t)\n"
     "r[0, 0, 1] = 10\nimag = t.imag"),
    ("test_view_tensor_split",
     "a = torch.arange(40 * 30).reshape(40, 30)\nd0 = a.tensor_split(7, 0)\nd1 = a.tensor_split(7, 1)\n"
     "views = [v._is_view() and v._base is a for v in d0 + d1]"),
    ("test_view_tensor_hsplit",
     "t = torch.arange(64).reshape(4, 4, 4)\nparts = torch.hsplit(t, 2)\nt[2, 2, 2] = 7\nv = parts[1][2, 0, 2]"),
    ("test_view_tensor_vsplit",
     "t = torch.arange(64).reshape(4, 4, 4)\nparts = torch.vsplit(t, 2)\nt[2, 2, 2] = 7\nv = parts[1][0, 2, 2]"),
    ("test_view_tensor_dsplit",
     "t = torch.arange(64).reshape(4, 4, 4)\nparts = torch.dsplit(t, 2)\nt[2, 2, 2] = 7\nv = parts[1][2, 2, 0]"),
    ("test_imag_noncomplex", "t = torch.ones((5, 5))\nr = _err(lambda: torch.imag(t))\nr2 = _err(lambda: t.imag)"),
    ("test_real_imag_view",
     "t = torch.complex(torch.arange(9.).reshape(3, 3), torch.arange(9., 18.).reshape(3, 3))\n"
     "re = t.real\nim = t.imag\nu = t.T\nure = u.real\nuim = u.imag\n"
     "a = torch.complex(torch.arange(10.), -torch.arange(10.))\ntail = a[5:].real\ntail2 = a.real[5:]\n"
     "itail = a[5:].imag"),
    ("test_real_imag_view: real of a real tensor is itself", "t = torch.ones(3)\nr = t.real\nsame = r is t"),
    ("test_conj_imag_view",
     "t = torch.complex(torch.arange(20.).reshape(4, 5), torch.ones(4, 5))\nv = t.conj()\nis_conj = v.is_conj()\n"
     "vi = v.imag\nneg = vi.is_neg()\nsame_base = v._base is t\nresolved = v.resolve_conj()"),
    ("test_conj_view_with_shared_memory",
     "a = torch.complex(torch.arange(20.).reshape(4, 5), torch.arange(20., 40.).reshape(4, 5))\n"
     "b = a.conj()\nc = a.conj()\nr1 = torch.add(a, b)\nr2 = a.add_(b)\nr3 = torch.add(b, c)\n"
     "r4 = torch.add(b, c, out=a)\nr5 = torch.add(b, c)\nr6 = b.add_(c)"),
    ("test_set_real_imag",
     "x = torch.complex(torch.arange(10.), torch.zeros(10))\nx.real = torch.arange(10., 20.)\n"
     "x.imag = torch.arange(10, dtype=torch.int64)\nre = x.real\nim = x.imag"),
    ("test_diagonal_view",
     "t = torch.ones((5, 5))\nv = torch.diagonal(t)\nv[0] = 0\nt2 = torch.ones((3, 3, 3))\n"
     "v2 = torch.diagonal(t2, offset=1, dim1=1, dim2=2)\nv2[0, 0] = 0"),
    ("test_select_view", "t = torch.ones((5, 5))\nv = t.select(0, 2)\nv[0] = 0"),
    ("test_unbind_view",
     "t = torch.zeros((5, 5))\ntup = torch.unbind(t)\nfor idx, v in enumerate(tup):\n    v[0] = idx + 1\n"
     "bases = [v._base is t for v in tup]"),
    ("test_unbind",
     "stacked = torch.randn(3, 10, 10, requires_grad=True)\nx, y, z = stacked.unbind()\n"
     "grad = torch.randn(3, 10, 10)\ntorch.autograd.backward([x, y, z], grad.unbind())\nsame = torch.equal(stacked.grad, grad)\n"
     "gs = []\nfor i in range(3):\n    stacked2 = torch.randn(3, 10, 10, requires_grad=True)\n    outs = stacked2.unbind()\n"
     "    gi = grad.unbind()[i]\n    g, = torch.autograd.grad(outs[i], stacked2, gi)\n    gs.append(g)"),
    ("test_expand_view", "t = torch.ones((5, 1))\nv = t.expand(5, 5)\nv[2, 2] = 0"),
    ("test_expand_as_view", "t = torch.ones((5, 1))\ne = torch.empty((5, 5))\nv = t.expand_as(e)\nv[2, 2] = 0\ndel e"),
    ("test_narrow_view", "t = torch.ones((5, 5))\nv = torch.narrow(t, 1, 2, 2)\nv[0, 0] = 0"),
    ("test_permute_view", "t = torch.ones((5, 5))\nv = t.permute(1, 0)\nv[0, 1] = 0"),
    ("test_transpose_view",
     "res = []\nfor fn in (torch.swapdims, torch.swapaxes, torch.transpose):\n    t = torch.ones((5, 5))\n"
     "    v = fn(t, 0, 1)\n    v[0, 1] = 0\n    res.append((t, v, v._base is t))"),
    ("test_transpose_inplace_view",
     "t = torch.ones(5, 5)\nv = t.view_as(t)\nv = v.swapdims_(0, 1)\nv[0, 1] = 0\n"
     "t2 = torch.ones(5, 5)\nv2 = t2.view_as(t2)\nv2 = v2.swapaxes_(0, 1)\nv2[0, 1] = 0\n"
     "t3 = torch.ones(5, 5)\nv3 = t3.view_as(t3)\nv3 = v3.transpose_(0, 1)\nv3[0, 1] = 0"),
    ("test_t_view", "t = torch.ones((5, 5))\nv = t.t()\nv[0, 1] = 0"),
    ("test_t_inplace_view", "t = torch.ones(5, 5)\nv = t.view_as(t)\nv = v.t_()\nv[0, 1] = 0"),
    ("test_T_view",
     "res = []\nfor op in ('T', 'H', 'mT', 'mH'):\n    t = torch.ones((5, 5))\n    v = getattr(t, op)\n"
     "    v[0, 1] = 0\n    res.append((t, v, v._base is t))"),
    ("test_unfold_view", "t = torch.ones(10)\nv = t.unfold(0, 3, 2)\nv[1, 0] = 0"),
    ("test_squeeze_view", "t = torch.ones(5, 1, 5)\nv = torch.squeeze(t)\nv[0, 1] = 0\nbase = v._base is t"),
    ("test_squeeze_inplace_view", "t = torch.ones(5, 5)\nv = t.view_as(t)\nv = v.squeeze_()\nv[0, 1] = 0"),
    ("test_unsqueeze_view", "t = torch.ones(5, 5)\nv = torch.unsqueeze(t, 1)\nv[0, 0, 1] = 0"),
    ("test_unsqueeze_inplace_view", "t = torch.ones(5, 5)\nv = t.view_as(t)\nv = v.unsqueeze_(1)\nv[0, 0, 1] = 0"),
    ("test_as_strided_view", "t = torch.ones(5, 5)\nv = torch.as_strided(t, (25,), (1,))\nv[6] = 0"),
    ("test_as_strided_inplace_view", "t = torch.ones(5, 5)\nv = t.view_as(t)\nv = v.as_strided_((25,), (1,))\nv[6] = 0"),
    ("test_as_strided_gradients",
     "res = []\nspecs = [(torch.arange(0., 25).view(5, 5), [3, 3], [6, 2], 2), (torch.randn(12), [1, 2, 1, 5], [0, 5, 100, 1], 2),\n"
     "         (torch.randn(5), [3, 3, 3], [0, 1, 0], 2), (torch.randn(5), [3, 3, 3], [0, 0, 0], 4),\n"
     "         (torch.randn(35), [6, 6], [5, 1], 2), (torch.randn(15), [3, 2], [3, 6], 2), (torch.randn(3, 4), [4, 3], [1, 4], None)]\n"
     "for x0, size, stride, offset in specs:\n    x = x0.to(torch.double).detach().requires_grad_()\n"
     "    y = x.as_strided(size, stride, offset)\n    w = torch.arange(1., y.numel() + 1, dtype=torch.double).view(y.shape)\n"
     "    (y * w).sum().backward()\n    res.append((y.detach(), x.grad))"),
    ("test_as_strided_gradients: outside the input",
     "x = torch.randn(6, 2)\na = x[3:].as_strided([3, 2], [2, 1], 0)\nsame = torch.equal(a, x[:3])\n"
     "xx = x[3:].clone().double().requires_grad_()\ny = xx.as_strided([3, 2], [2, 1], 0)\ny.sum().backward()"),
    ("test_as_strided_gradients: select on expanded input",
     "x = torch.randn(2, 3, dtype=torch.double, requires_grad=True)\ny = x.expand(10, 2, 3).as_strided([2, 3], [3, 1], 0)\n"
     "(y * torch.arange(6.).view(2, 3)).sum().backward()"),
    ("test_view_view", "t = torch.ones(5, 5)\nv = t.view(25)\nv[6] = 0"),
    ("test_view_as_view", "t = torch.ones(5, 5)\ne = torch.empty((25,))\nv = t.view_as(e)\nv[6] = 0\ndel e"),
    ("test_contiguous_self", "t = torch.ones(5, 5)\ns = t.contiguous()\nsame = s is t"),
    ("test_contiguous_nonview", "t = torch.ones(5, 5)\nnv = t.t().contiguous()\nnv[0, 0] = 0"),
    ("test_reshape_view", "t = torch.ones(5, 5)\nv = torch.reshape(t, (25,))\nv[6] = 0"),
    ("test_reshape_as_view", "t = torch.ones(5, 5)\ne = torch.empty((25,))\nv = t.reshape_as(e)\nv[6] = 0\ndel e"),
    ("test_reshape_nonview", "t = torch.ones(5, 5)\nnv = torch.reshape(t.t(), (25,))\nnv[6] = 0"),
    ("test_flatten_view",
     "t = torch.ones(1, 2, 3, 4)\nv = t.flatten()\nv[0] = 0\nz = torch.tensor(1)\nzv = z.flatten()\nzv[0] = 0\n"
     "t2 = torch.ones(1, 2, 3, 4).transpose(2, 3)\nv2 = t2.flatten(0, 1)\nv2[0, 0, 0] = 0\n"
     "t3 = torch.ones(720).as_strided((2, 3, 2, 3, 5, 4), (6, 2, 15, 5, 1, 0))\nv3a = t3.flatten(0, 1)\n"
     "v3b = v3a.flatten(1, 3)\nv3c = v3b.flatten(2, 2)\nv3c[0, 0, 0] = 0\nsame_base = v3c._base is t3._base"),
    ("test_flatten_nonview",
     "t = torch.ones(2, 3, 2, 3).transpose(2, 3)\nnv = t.flatten(1, 3)\nnv[0, 0] = 0\n"
     "t2 = torch.ones(2, 2).T\nnv2 = t2.flatten()\nnv2[0] = 0\nt3 = torch.ones(2, 2)\nnv3 = t3.flatten(1, 1)\nsame = nv3 is t3"),
    ("test_basic_indexing_slice_view", "t = torch.ones(5, 5)\nv = t[:2, :3]\nv[0, 0] = 0"),
    ("test_basic_indexing_ellipses_view", "t = torch.ones(5, 5)\nv = t[..., :2]\nv[0, 0] = 0"),
    ("test_basic_indexing_newaxis_view", "t = torch.ones(5, 5)\nv = t[None, :2, 3]\nv[0, 0] = 0"),
    ("test_advanced_indexing_nonview",
     "t = torch.ones(3, 3)\nrows = torch.tensor([[0, 0], [2, 2]])\ncols = torch.tensor([[0, 1], [2, 2]])\n"
     "nv = t[rows, cols]\nnv[1, 1] = 0"),
    ("test_advanced_indexing_assignment",
     "t = torch.ones(3, 3)\nrows = torch.tensor([[0, 0], [2, 2]])\ncols = torch.tensor([[0, 1], [2, 2]])\nt[rows, cols] = 0"),
    ("test_chunk_view",
     "t = torch.zeros(3, 3)\nl = torch.chunk(t, 3)\nfor idx, v in enumerate(l):\n    v[0, 0] = idx + 1"),
    ("test_split_view",
     "t = torch.zeros(3, 3)\nl = torch.split(t, [1, 1, 1])\nfor idx, v in enumerate(l):\n    v[0, 0] = idx + 1"),
    ("test_movedim_view",
     "res = []\nfor fn in (torch.movedim, torch.moveaxis):\n    for src, dst in (((0, 1), (1, 0)), (0, 1)):\n"
     "        t = torch.zeros(3, 3)\n        out = fn(t, src, dst)\n        out[0, 2] = 5.\n        out[1, 0] = 7.\n"
     "        res.append((t, out, out._base is t))"),
    ("test_view_copy",
     "a = torch.randn(4, requires_grad=True)\na_ref = a.clone().detach().requires_grad_()\na_view = a_ref.view(2, 2)\n"
     "a_view_copy = torch.view_copy(a, (2, 2))\na_view_copy.sum().backward()\na_view.sum().backward()"),
    ("test_view_copy_out",
     "a = torch.randn(2, 2)\nout = torch.empty(2)\nr = torch.diagonal_copy(a, out=out)\nexpected = torch.diagonal_copy(a)\n"
     "b = torch.randn(4)\nout1 = torch.empty(2)\nout2 = torch.empty(2)\nr2 = torch.split_copy(b, 2, out=(out1, out2))\n"
     "e1, e2 = torch.split_copy(b, 2)"),
    ("test_view_copy: _copy variants copy",
     "a = torch.arange(6.).reshape(2, 3)\nb = torch.transpose_copy(a, 0, 1)\nc = torch.t_copy(a)\n"
     "d = torch.permute_copy(a, (1, 0))\ne = torch.unsqueeze_copy(a, 0)\nf = torch.squeeze_copy(e)\n"
     "g = torch.select_copy(a, 1, 2)\nh = torch.slice_copy(a, 1, 0, 2)\ni = torch.expand_copy(a[:1], (3, 3))\n"
     "j = torch.as_strided_copy(a, (2, 2), (1, 2))\nk = torch.unbind_copy(a)\nl = torch.alias_copy(a)\n"
     "m = torch.unfold_copy(a, 1, 2, 1)\nn = torch.detach_copy(a)"),
    # ------------------------------------------------------------------ TestOldViewOps
    ("test_ravel",
     "z = torch.tensor(123)\nflat0 = z.ravel()\nnc = torch.ones(10)[::2]\nflat2 = nc.ravel()\n"
     "src = torch.randn(5, 5, 5, 5)\nflat = src.ravel()\nbase_ok = flat._base is src\n"
     "e1 = torch.randn(0, 2, 3).ravel()\ne2 = torch.randn(3, 0, 2).ravel()\nsq = torch.randn(5, 5)\n"
     "ncf = sq.t().ravel()\nnot_base = ncf._base is not sq"),
    ("test_empty_reshape",
     "x = torch.randn(0, 6)\ny = x.reshape(1, 0, 6, 1, 1)\nsame = x.data_ptr() == y.data_ptr()\nr = _err(lambda: x.reshape(0, -1))"),
    ("test_expand",
     "tensor = torch.rand(1, 8, 1)\ntensor2 = torch.rand(5)\ntemplate = torch.rand(4, 8, 5)\ntarget = template.size()\n"
     "a = tensor.expand_as(template)\nb = tensor.expand(4, 8, 5)\nc = tensor.expand(target)\nd = tensor2.expand_as(template)\n"
     "e = tensor2.expand(1, 5).expand(2, 2, 5)\nf = tensor2.repeat(2, 2, 1)\nnoncontig = torch.randn(5, 2, 1, 3)[:, 0]\n"
     "g = noncontig.expand(2, 5, 4, 3)\nexpanded = tensor2.expand(1, 1, 5)\nunsqueezed = tensor2.unsqueeze(0).unsqueeze(1)\n"
     "h = tensor.expand(4, -1, 5)\nr = _err(lambda: tensor2.expand(-1, -1))\ni = torch.zeros(0).expand((0,))"),
    ("test_view_empty", "x = torch.randn(0, 6)\ny = x.view(1, 0, 6, 1, 1)"),
    ("test_reshape",
     "x = torch.randn(3, 3)\na = x.reshape(-1)\nb = x.reshape(1, 9, 1)\nc = torch.reshape(x, (9,))\n"
     "r1 = _err(lambda: x.reshape(-1, -1))\ny = torch.randn(4, 4, 4)[:, 0, :]\nd = y.reshape(-1)\ne = y.reshape(2, 2, 4)\n"
     "s = torch.randn(())\nf = s.reshape(())\ng = s.reshape(-1)\nr2 = _err(lambda: s.reshape(2))\n"
     "empty = torch.tensor([])\nh = empty.reshape(-1)\ni = empty.reshape([0])\nj = empty.reshape([0, 1])\n"
     "k = empty.reshape([1, -1])\nr3 = _err(lambda: empty.reshape(1))\nl = x.reshape_as(torch.rand(9))\n"
     "m = x.reshape_as(torch.rand(1, 9, 1))\nr4 = _err(lambda: x.reshape_as(torch.rand(10)))"),
    ("test_flatten",
     "z = torch.tensor(123)\nflat0 = z.flatten()\nsrc = torch.randn(5, 5, 5, 5)\na = src.flatten(0, -1)\n"
     "b = src.flatten(0, 2)\nc = src.flatten(0, 1)\nd = src.flatten(1, 2)\ne = src.flatten(2, 3)\nf = src.flatten(-2, -1)\n"
     "g = src.flatten(2, 2)\nr1 = _err(lambda: src.flatten(5, 10))\nr2 = _err(lambda: src.flatten(2, 0))"),
    ("test_narrow",
     "x = torch.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8]])\na = x.narrow(0, 0, 1)\nb = x.narrow(0, 0, 2)\n"
     "c = x.narrow(0, 1, 1)\nd = x.narrow(0, -1, 1)\ne = x.narrow(0, -2, 2)\nf = x.narrow(0, -3, 3)\n"
     "g = x.narrow(-1, -1, 1)\nh = x.narrow(-2, -1, 1)"),
    ("test_narrow_tensor",
     "x = torch.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8]])\na = x.narrow(0, torch.tensor(0), 1)\n"
     "r1 = _err(lambda: x.narrow(0, torch.tensor(0.), 1))\nr2 = _err(lambda: x.narrow(0, torch.tensor([0]), 1))\n"
     "r3 = _err(lambda: x.narrow(0, torch.tensor([0, 1]), 1))"),
    ("test_t",
     "x = torch.randn(())\na = x.t()\ny = torch.arange(4)\nb = y.t()\nz = torch.rand((2, 2))\nc = z.t()\n"
     "d = z.transpose(0, 1)\nw = torch.rand((2, 2, 2))\nr = _err(lambda: w.t())"),
    ("test_split",
     "tensor = torch.rand(7, 4)\nsplits = tensor.split(3, 0)\ntensor2 = torch.randn(20, 10)\n"
     "splits2 = tensor2.split([5, 5, 10], 0)\nsplits3 = tensor2.split([2, 2, 6], 1)"),
    ("test_chunk",
     "tensor = torch.rand(4, 7)\nsplits = tensor.chunk(3, 1)\nr1 = _err(lambda: tensor.chunk(0))\n"
     "r2 = _err(lambda: tensor.chunk(-2))"),
    ("test_unsqueeze",
     "x = torch.randn(2, 3, 4)\ny = x.unsqueeze(1)\ny2 = x.clone().unsqueeze_(2)\nx2 = x[:, 1]\n"
     "y3 = x2.unsqueeze(1)\ny4 = x2.clone().unsqueeze_(2)"),
    ("test_big_transpose", "t = torch.rand(45, 78)\nt1 = t.t().contiguous()\nt2 = torch.from_numpy(t.numpy().transpose())"),
    ("test_T",
     "a = torch.randn(2, 3, 4)\nt1 = a.T\nt2 = a.permute(2, 1, 0)\nb = torch.randn(10)\nbt = b.T\n"
     "scalar = torch.tensor(5)\nst = scalar.T"),
    ("test_T: 2-D does not warn", "a = torch.randn(2, 3)\nt = a.T"),
    ("test_transposes",
     "res = []\nfor dt in (torch.float32, torch.int64, torch.bool, torch.complex64):\n"
     "    for op in ('T', 'H', 'mT', 'mH', 'adjoint'):\n"
     "        shapes = ((), (2, 3), (2, 3, 4)) if op[0] == 'm' or op == 'adjoint' else ((), (2, 3))\n"
     "        for shape in shapes:\n            a = torch.arange(24).reshape(-1)[:torch.Size(shape).numel()].reshape(shape).to(dt)\n"
     "            t1 = getattr(a, op)\n            if op == 'adjoint':\n                t1 = t1()\n"
     "            res.append((op, t1))"),
    ("test_transposes_errors",
     "res = []\nfor dt in (torch.float32, torch.int64, torch.bool):\n    for op in ('H', 'mT', 'mH', 'adjoint'):\n"
     "        shapes = ((2,), (2, 3, 4)) if op == 'H' else ((2,),)\n        for shape in shapes:\n"
     "            a = torch.zeros(shape, dtype=dt)\n            res.append(_err(lambda: getattr(a, op)() if op == 'adjoint' else getattr(a, op)))"),
    ("test_python_types",
     "a1 = torch.randn((1, 2), dtype=torch.float64)\na2 = torch.randn((1, 2), dtype=float)\n"
     "b1 = torch.arange(10, 20, dtype=torch.int64)\nb2 = torch.arange(10, 20, dtype=int)\n"
     "c1 = torch.tensor([True, False], dtype=torch.bool)\nc2 = torch.tensor([True, False], dtype=bool)"),
    ("test_resize_as_preserves_strides",
     "x = torch.zeros(2, 3).t()\nold = x.stride()\nx.resize_as_(x)\nnew = x.stride()"),
    ("test_transpose_invalid",
     "x = torch.randn(5, 6, 7, 8)\nres = []\nfor fn in (torch.swapdims, torch.swapaxes, torch.transpose):\n"
     "    res.append(_err(lambda: fn(x, 5, 0)))\n    res.append(_err(lambda: fn(x, 0, 5)))"),
    ("test_transpose_vs_numpy",
     "x = torch.randn(2, 3, 5)\nres = []\nfor fn in (torch.swapdims, torch.swapaxes, torch.transpose):\n"
     "    for a, b in ((0, 1), (1, 2), (-1, 0), (0, -3), (2, 2)):\n        res.append(fn(x, a, b))\n"
     "kw = (torch.swapdims(x, dim0=0, dim1=2), torch.swapaxes(x, axis0=0, axis1=2), torch.transpose(x, dim0=0, dim1=2))"),
    ("test_atleast",
     "s = torch.tensor(0.5)\nv = torch.arange(3.)\nm = torch.arange(6.).reshape(2, 3)\n"
     "res = [f(t) for f in (torch.atleast_1d, torch.atleast_2d, torch.atleast_3d) for t in (s, v, m)]\n"
     "seq = torch.atleast_2d(s, v)\nseq2 = torch.atleast_3d((s, m))"),
    ("test_broadcast_tensors",
     "x0 = torch.randn(2, 1, 3)\nx1 = torch.randn(3)\nx2 = torch.randn(3, 1)\ny0, y1, y2 = torch.broadcast_tensors(x0, x1, x2)"),
    ("test_broadcast_shapes",
     "examples = [(), (1,), (2,), (1, 1), (3, 1), (3, 2), (4, 1, 1), (4, 3, 2)]\nres = []\nfor s0 in examples:\n"
     "    for s1 in examples:\n        res.append(_err(lambda: torch.broadcast_shapes(s0, s1)))\n"
     "ints = [torch.broadcast_shapes(*i) for i in ([1, 4], [4, 1], [1, 1, 3])]\n"
     "neg = [_err(lambda: torch.broadcast_shapes(*i)) for i in ([1, 1, -12], [-1, 1], [-11])]\n"
     "bad = [_err(lambda: torch.broadcast_shapes(*i)) for i in ((3, 5), (2, 4, 1))]\n"
     "mixed = [torch.broadcast_shapes(*s) for s in ((1, (5,)), (3, (1,)), (1, (3, 4)))]"),
    ("test_broadcast_to",
     "sizes = ((), (1,), (2,), (1, 1), (3, 1), (3, 2), (4, 1, 1), (4, 3, 2))\nres = []\n"
     "for i, s0 in enumerate(sizes):\n    for s1 in sizes[i + 1:]:\n        t = torch.arange(float(torch.Size(s0).numel())).reshape(s0)\n"
     "        res.append(_err(lambda: torch.broadcast_to(t, s1)))"),
    ("test_view",
     "tensor = torch.rand(15)\ntemplate = torch.rand(3, 5)\nempty = torch.empty(0)\ntarget = template.size()\n"
     "a = tensor.view_as(template)\nb = tensor.view(3, 5)\nc = tensor.view(torch.Size([3, 5]))\nd = tensor.view(-1, 5)\n"
     "e = tensor.view(3, -1)\ntensor_view = tensor.view(5, 3)\ntensor_view.fill_(0.25)\nf = empty.view_as(empty)\n"
     "g = empty.view(0)\nh = empty.view(0, 3, 0, 1)\ni = empty.view(0, 3, 0, 1).view(0)\nj = empty.view(-1)\n"
     "k = empty.view(10, 3, -1)\nr1 = _err(lambda: empty.view(-1, 0))\nr2 = _err(lambda: empty.view(3, 0, -1, 0))\n"
     "r3 = _err(lambda: tensor.view(15, 0))\nr4 = _err(lambda: tensor.view(7, -1))\nr5 = _err(lambda: tensor.view(15, -1, -1))"),
    ("test_view: partly contiguous dims",
     "tensor = torch.rand(4, 2, 5, 1, 6, 2, 9, 3).transpose(-1, 2).transpose(-2, 3)\ncontig = tensor.clone()\n"
     "a = tensor.view(8, 1, 3, 3, 3, 4, 1, 3, 5)\nb = tensor.view(2, 4, 3, 1, 9, 2, 2, 3, 5, 1)\n"
     "c = tensor.view(1, 1, 2, 1, 4, 3, 1, 1, 9, 1, 2, 1, 2, 3, 1, 5, 1, 1)\nr1 = _err(lambda: tensor.view(-1))\n"
     "r2 = _err(lambda: tensor.view(24, 9, 6, 2, 1, 5))\nr3 = _err(lambda: tensor.view(8, 3, 9, 6, 10))\n"
     "r4 = _err(lambda: tensor.view(8, 3, 54, 2, 1, 5))\ndel tensor, contig"),
    ("test_view: stride 0 dims",
     "tensor = torch.zeros(1, 1).expand(3, 4)\nc = tensor.clone()\na = tensor.view(-1)\nb = tensor.view(1, -1, 1)\n"
     "d = tensor.view(-1, 1)\ne = tensor.view(6, 2, 1)\nf = tensor.view(1, 6, 2, 1)"),
    ("test_reshape_view_semantics",
     "tensor = torch.arange(60.).reshape(15, 4)\nv = tensor.reshape(20, 3)\nc = tensor.transpose(0, 1).reshape(20, 3)"),
    ("test_contiguous",
     "x = torch.randn(1, 16, 5, 5)\nc1 = x.is_contiguous()\nstride = list(x.stride())\nstride[0] = 20\n"
     "y = x.set_(x.untyped_storage(), 0, x.size(), stride)\nc2 = x.is_contiguous()"),
    ("test_tensor_split_sections",
     "res = []\nfor size in ((0,), (10,), (10, 0), (0, 10), (4, 10), (12, 3)):\n"
     "    a = torch.arange(torch.Size(size).numel()).reshape(size)\n    for dim in range(-a.dim(), a.dim()):\n"
     "        for sections in range(1, 2 * a.size(dim)):\n            r1 = torch.tensor_split(a, sections, dim)\n"
     "            r2 = torch.tensor_split(a, torch.tensor(sections, dtype=torch.int64), dim)\n"
     "            res.append((r1, r2))"),
    ("test_tensor_split_indices",
     "res = []\nindices_args = [(), (0,), (3,), (10,), (-1,), (-10,), (2, -1), (3, 4, 10), (0, -1, 0, 10), (1, 5, 2, 8)]\n"
     "for size in ((0,), (10,), (10, 0), (0, 10), (4, 10), (12, 3)):\n    a = torch.arange(torch.Size(size).numel()).reshape(size)\n"
     "    for dim in range(-a.dim(), a.dim()):\n        for indices in indices_args:\n"
     "            r1 = torch.tensor_split(a, indices, dim)\n"
     "            r2 = torch.tensor_split(a, torch.tensor(indices, dtype=torch.int64), dim)\n            res.append((r1, r2))"),
    ("test_tensor_split_errors",
     "res = []\nfor size, arg, dim in (((10,), 10, 1), ((), 10, 0), ((10,), (10,), 1), ((), (10,), 0), ((10,), 0, 0), ((10,), -1, 0)):\n"
     "    a = torch.randn(size)\n    res.append(_err(lambda: torch.tensor_split(a, arg, dim)))\n"
     "    res.append(_err(lambda: torch.tensor_split(a, torch.tensor(arg), dim)))\n"
     "r1 = _err(lambda: torch.tensor_split(torch.randn(10), torch.tensor(1.1), 0))\n"
     "r2 = _err(lambda: torch.tensor_split(torch.rand(10), torch.tensor(((1,),)), 0))"),
    ("test_resize_all_dtypes_and_devices",
     "res = []\nfor dt in (torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.int16, torch.int8,\n"
     "           torch.uint8, torch.bool, torch.complex64, torch.complex128):\n"
     "    x = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=dt)\n    x.resize_((2, 2))\n    res.append(x)"),
    ("test_resize_as_all_dtypes_and_devices",
     "res = []\nfor dt in (torch.float32, torch.float64, torch.float16, torch.int64, torch.int8, torch.uint8, torch.bool, torch.complex128):\n"
     "    x = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=dt)\n    y = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=dt)\n"
     "    x.resize_as_(y)\n    res.append(x)"),
    ("test_resize_overflow",
     "x = torch.empty((), dtype=torch.float64)\nr1 = _err(lambda: x.resize_([2, 4, 2**29, 2**29]))\n"
     "r2 = _err(lambda: x.resize_([8, 8, 2**29, 2**29]))\ndel x", "random"),
    ("test_view_all_dtypes_and_devices",
     "res = []\nfor dt in (torch.float32, torch.float64, torch.float16, torch.int64, torch.int16, torch.uint8, torch.bool, torch.complex64):\n"
     "    x = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=dt)\n    res.append(x.view(6))"),
    ("test_conj_neg_view_numpy_error",
     "r1 = _err(lambda: torch.tensor([1 + 2j]).conj().numpy())\nr2 = _err(lambda: torch.tensor([1 + 2j]).conj().imag.numpy())\n"
     "r3 = _err(lambda: torch.tensor([1 + 2j]).conj().view(torch.float64))\n"
     "r4 = _err(lambda: torch.tensor([1 + 2j]).conj().imag.view(torch.int32))"),
    # ------------------------------------------------------------------ test_autograd: view ops keep _base
    ("test_view_func_replay: view ops are views of their input",
     "res = []\nops = [(torch.as_strided, (2, 2), ((4,), (1,))), (torch.chunk, (2, 4), (2, -1)), (torch.diagonal, (4, 4), ()),\n"
     "       (torch.narrow, (2, 2), (0, 1, 1)), (torch.permute, (2, 3, 4), ((1, 0, 2),)), (torch.select, (2, 2), (0, 0)),\n"
     "       (torch.split, (2, 2), (1,)), (torch.split_with_sizes, (2, 4), ([1, 3], -1)), (torch.squeeze, (2, 1, 4), ()),\n"
     "       (torch.squeeze, (2, 1, 4), (1,)), (torch.squeeze, (2, 1, 1, 4), ([1, 2],)), (torch.t, (2, 4), ()),\n"
     "       (torch.transpose, (2, 4), (0, 1)), (torch.unbind, (1, 5), ()), (torch.unsqueeze, (2, 4), (-2,)),\n"
     "       (torch.view_as_complex, (2, 2), ())]\n"
     "for fn, shape, args in ops:\n    inp = torch.rand(shape)\n    outs = fn(inp, *args)\n"
     "    outs = [outs] if isinstance(outs, torch.Tensor) else list(outs)\n"
     "    res.append([(o._is_view(), o._base is inp, o.shape, o.stride(), o.storage_offset()) for o in outs])\n"
     "x = torch.randn(2, 4)\nchain = x.unsqueeze(-1).transpose(-1, -2).squeeze(1)\n"
     "y = torch.randn(2, 3, 4)\nchain2 = y.chunk(2, -1)[0].transpose(0, 1).unsqueeze(-1)\nchain3 = y.split_with_sizes([1, 3], -1)[0].chunk(2, 0)"),
    xfail=XFAIL,
)


@pytest.mark.parametrize(("code", "flag"), CASES)
def test_same_as_torch(code, flag):
    compare(code, flag)
