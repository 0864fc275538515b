"""The engine's short paths for common cases leave the same world behind as PyTorch.

Small ops take short paths when their operands are the common case (two tensors of one dtype and
shape, a floating-point tensor with a Python number, ints and slices as indices, `x.sum()` of a
float tensor...). Each snippet sits on the edge of one of them, where the short path must hand
over to the general one or behave exactly as it does; the oracle compares everything a snippet
leaves behind (values, dtypes, layouts, versions, views, graphs, errors) with real PyTorch.
"""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)
import engine.nn  # noqa: E402
import engine.nn.functional  # noqa: E402
from engine.ops import pointwise  # noqa: E402

SNIPPETS = {
    # binary ops on two tensors of one dtype and shape, and their neighbours
    "add of transposed operands keeps their layout": "a = torch.arange(6.).reshape(2, 3).t()\nb = a * 1\nc = a + a",
    "add of 0-dim tensors": "a = torch.tensor(2.)\nb = torch.tensor(3.)\nc = a + b\nd = a * b",
    "add of float16 and bool tensors": ("a = torch.tensor([1., 2.], dtype=torch.float16)\nb = a + a\n"
                                        "m = torch.tensor([True, False])\nn = m + m\nk = m * m"),
    "add of one shape broadcast and of another dtype": ("a = torch.ones(2, 3)\nb = torch.ones(3)\nc = a + b\n"
                                                         "d = a + torch.ones(2, 3, dtype=torch.float64)"),
    "a tensor with a 0-dim or expanded one-value tensor": (
        "a = torch.arange(6.).reshape(2, 3)\nc = torch.tensor(2.)\nb = a * c\nd = c + a\n"
        "e = torch.tensor(3.).expand(2, 3)\nf = e * a\ng = a + e\nh = a * torch.ones(1, 1)\n"
        "k = torch.ones(3, 1, 4) + torch.ones(1, 4, 4)[0, :1, :1]\nm = torch.tensor(True) * torch.ones(2, 2, dtype=torch.bool)\n"
        "n = a - c\no = e - a\np = a / c\nq = c / a\nr = torch.arange(4).reshape(2, 2) / torch.tensor(2)\n"
        "s = torch.tensor(True) - torch.ones(2, 2, dtype=torch.bool)\nt = c.expand(2, 3) * c.expand(2, 3)\n"
        "u = c * c.expand(3, 2, 4)\nv = c.expand(2, 1, 3) + c"),
    "a one-value tensor where the layout or dtype sends it the long way": (
        "a = torch.arange(6.).reshape(2, 3)\nc = torch.tensor(2.)\nb = a.t() * c\nd = torch.ones(2, 1, 3) + c\n"
        "e = a * torch.tensor(2, dtype=torch.float64)\nf = a + torch.tensor(2)\ng = torch.ones(0, 3) * c\n"
        "h = torch.ones(3, 2)[::2] * c"),
    "a one-value tensor with grad": (
        "x = torch.ones(2, 3, requires_grad=True)\nc = torch.tensor(2., requires_grad=True)\ny = x * c + c\n"
        "(y * c).sum().backward()\nz = c.expand(2, 3) * x\nz.sum().backward()\nw = (x / c - c).mean()\nw.backward()"),
    "ops on results of ops, their views and size-1 dims": (
        "a = torch.ones(2, 3) + 1\nb = a * a\nc = b - a\nd = b / a\ne = a[0] + b[1]\nf = a.t() + b.t()\n"
        "g = torch.ones(3, 1).t() + torch.ones(1, 3)\nh = (torch.ones(1, 3) * 1).t() * torch.ones(3, 1)\n"
        "k = (a * 1).t().reshape(3, 2) * 2\nm = a[1:, ::2] + a[:1, 1:]"),
    "add of mismatched shapes": "a = torch.ones(2, 3)\nb = torch.ones(3, 2)\nc = a + b",
    "add with alpha and out": "a = torch.ones(3)\nb = torch.ones(3)\no = torch.empty(3)\ntorch.add(a, b, alpha=2, out=o)",
    "mul of a parameter": "w = torch.nn.Parameter(torch.ones(2))\nx = torch.ones(2)\ny = w * x\ny.sum().backward()",
    "mul saves its operands": "a = torch.ones(2, requires_grad=True)\nb = a * 1\nc = b * b\nb.add_(1)\nc.sum().backward()",
    # a tensor with a Python number, and sub and div of two tensors of one dtype and shape
    "a number keeps the layout torch gives": ("x = torch.ones(4, 1).t()\ny = x + 1\nz = x * 2\n"
                                              "w = torch.ones(2, 3).t() - 1.5\nv = torch.ones(0, 3) / 2"),
    "a number with an int, a bool and a half tensor": ("i = torch.arange(3) + 1.5\nj = torch.arange(3) * 2\n"
                                                       "b = torch.tensor([True]) + 1\n"
                                                       "h = torch.ones(2, dtype=torch.float16) / 3"),
    "sub and div of tensors, bool sub refused": ("a = torch.arange(4.)\nb = a - a\nc = a / a\n"
                                                 "d = torch.arange(4) / torch.arange(4)\n"
                                                 "m = torch.tensor([True])\nn = m - m"),
    "comparisons with numbers and tensors": ("x = torch.tensor([[1., float('nan')], [3., -0.]])\na = x > 0\n"
                                            "b = x.t() == 1\nc = x <= x\nd = torch.arange(3) != 2.5\n"
                                            "e = torch.ones(4, 1).t() < 2"),
    "numbers with grad": ("a = torch.ones(2, 2, requires_grad=True)\nb = (2 * a - 1) / 3 + 1\n"
                          "b.sum().backward()\nc = 1 - a"),
    # unary ops
    "sigmoid at the edges": "x = torch.tensor([-1e30, -100., -88.8, 0., 100., float('inf'), float('nan')])\ny = x.sigmoid()",
    "sigmoid of float16 and float64": ("y = torch.tensor([-20., 0.5], dtype=torch.float16).sigmoid()\n"
                                       "z = torch.tensor([-800., 3.], dtype=torch.float64).sigmoid()"),
    "relu keeps nan and negative zero": "x = torch.tensor([-0., float('nan'), -2., 3.])\ny = x.relu()",
    "relu of an int tensor and exp of a bool tensor": ("y = torch.tensor([-1, 2]).relu()\n"
                                                       "z = torch.tensor([True, False]).exp()"),
    "relu of views, transposes and a 0-dim tensor": (
        "x = torch.arange(-3., 3.).reshape(2, 3)\na = x[:, 1].relu()\nb = x.t().relu()\n"
        "c = torch.tensor(-0.).relu()\nd = (x * 1)[0].relu()\ne = x.relu().relu()"),
    "relu saves its result": "a = torch.ones(2, requires_grad=True)\nb = a.relu()\nb.mul_(2)\nb.sum().backward()",
    # in-place arithmetic with a Python number
    "add_ of a float to an int tensor": "x = torch.ones(2, dtype=torch.int64)\nx.add_(1.5)",
    "add_ of an int to a float16 tensor": "x = torch.ones(2, dtype=torch.float16)\nx.add_(3)\nv = x._version",
    "add_ into an expanded tensor": "x = torch.ones(1).expand(3)\nx.add_(1)",
    "add_ of a leaf that requires grad": "x = torch.ones(2, requires_grad=True)\nx.add_(1)",
    "add_ and mul_ with numbers on views, with alpha": (
        "x = torch.ones(3, 4)\nv = x[1:, ::2]\nv.add_(2)\nx.add_(1, alpha=2)\nx.mul_(3)\n"
        "w = torch.ones(2, dtype=torch.int32)\nw.mul_(2.5)\nb = (x._version, v._version)"),
    "add_ broadcasting into self": "x = torch.ones(3)\nx.add_(torch.ones(2, 3))",
    # more unary ops
    "unary ops at nan, inf, -0. and out of their domain": (
        "x = torch.tensor([[-0., 0.5, float('inf')], [float('nan'), -2., 100.]])\na = x.exp()\nb = x.log()\n"
        "c = x.sqrt()\nd = x.rsqrt()\ne = -x\nf = x.abs()\ng = x.tanh()\nh = x.sin()\ni = x.cos()\nj = x.square()\n"
        "k = x.reciprocal()\nm = torch.exp(x * 10)\nn = torch.neg(x)\no = x.exp().log()"),
    "unary ops of float16, float64, int, bool, complex and 0-dim tensors": (
        "h = torch.tensor([[0.5, -1.], [2., 70.]], dtype=torch.float16)\na = h.exp()\nb = h.rsqrt()\nc = h.tanh()\n"
        "d = torch.arange(4.).double().reshape(2, 2).log()\ne = torch.arange(4).reshape(2, 2).exp()\n"
        "f = torch.tensor([[True, False]]).sqrt()\ng = torch.tensor([[1 + 2j, -3j]]).abs()\n"
        "i = torch.tensor([[1 + 2j, -3j]]).exp()\nk = torch.tensor(2.).exp()\nm = torch.tensor(-3.).abs()\n"
        "n = torch.arange(4).reshape(2, 2).neg()\no = torch.arange(4).reshape(2, 2).abs()\n"
        "p = torch.ones(2, 2, dtype=torch.bfloat16).sin()"),
    "unary ops of views, transposes, size-1 dims and empty tensors": (
        "x = torch.arange(1., 7.).reshape(2, 3)\na = x.t().exp()\nb = x[:, 1].sqrt()\nc = x[1:, ::2].neg()\n"
        "d = torch.ones(3, 1).t().exp()\ne = torch.ones(0, 3).log()\nf = x.exp()[0]\nx.add_(1)\n"
        "g = (x.exp(), x._version, f._version)"),
    "unary ops with grad": ("x = torch.ones(2, 3, requires_grad=True)\ny = x.exp() * x.sqrt() - x.tanh()\n"
                            "y.sum().backward()\nwith torch.no_grad():\n    z = x.exp()\nr = z.requires_grad"),
    # more numbers
    "numbers with int, bool and half tensors and past their range": (
        "a = torch.arange(4).reshape(2, 2) * 2.5\nb = torch.ones(2, 2, dtype=torch.float16) * 1e5\n"
        "c = torch.ones(2, 2, dtype=torch.float16) + 70000\nd = torch.ones(2, 2, dtype=torch.bool) + 1\n"
        "e = torch.ones(2, 2) * 1e40\nf = torch.ones(2, 2) / 0\ng = torch.ones(2, 2, dtype=torch.float16) - 65504\n"
        "h = 1 - torch.ones(2, 2, dtype=torch.float16)\ni = torch.ones(2, 2).double() / 3\n"
        "j = torch.ones(2, 2, dtype=torch.bfloat16) * 3\nk = torch.ones(2, 2, dtype=torch.bfloat16) + 0.1\n"
        "m = 2.5 - torch.arange(4).reshape(2, 2)\nn = torch.ones(2, 2) + True\no = torch.ones(2, 2) * (2 ** 60)\n"
        "p = torch.tensor([[1 + 1j]]) * 2"),
    "numbers with 0-dim, transposed, sliced and empty tensors": (
        "c = torch.tensor(2.)\na = c * 3\nb = 1 - c\nx = torch.arange(6.).reshape(2, 3)\nd = 1 - x.t()\n"
        "e = x[:, ::2] / 2\nf = torch.ones(0, 3) - 1\ng = 1 - torch.ones(3, 1).t()\nh = x ** 2\ni = x.t() ** 2\n"
        "j = 1 - torch.ones(1, 3)\nk = torch.ones(1, 3) * 2"),
    "powers with numbers": (
        "x = torch.tensor([[-2., -0.], [0.5, float('inf')]])\na = x ** 2\nb = x ** -0.5\nc = x ** 0.5\nd = x ** -1\n"
        "e = x ** 2.5\nf = torch.arange(4).reshape(2, 2) ** 2\ng = torch.arange(4).reshape(2, 2) ** 0.5\n"
        "h = x.half() ** 3\ni = x ** 0\nj = torch.arange(4).reshape(2, 2) ** -1"),
    "1 - a bool tensor is refused": "m = torch.ones(2, 2, dtype=torch.bool)\nn = 1 - m",
    "a 0-dim operand with size-1 dims, other dtypes, views and grad": (
        "c = torch.tensor(2.)\na = torch.ones(1, 3) * c\nb = torch.ones(3, 2) * c.double()\n"
        "d = torch.ones(2, 2, dtype=torch.float16) * torch.tensor(0.3, dtype=torch.float16)\n"
        "e = torch.ones(2, 2) * torch.arange(3.)[1]\nw = torch.tensor(3., requires_grad=True)\nf = torch.ones(2, 2) * w\n"
        "f.sum().backward()\ng = torch.ones(2, 2) / c\nh = torch.ones(2, 2) - c\nc.add_(1)\ni = torch.ones(2, 2) + c"),
    "numbers with grad, on views": (
        "x = torch.ones(2, 3, requires_grad=True)\ny = x[0] * 2\nz = 1 - x\nw = x ** 2\nv = (x / 3).t() + 1\n"
        "(y.sum() + z.sum() + w.sum() + v.sum()).backward()\n"
        "names = (y.grad_fn.name(), z.grad_fn.name(), w.grad_fn.name(), w.grad_fn._saved_exponent)"),
    # activations and clamp
    "clamp, leaky_relu and silu at the edges and of other dtypes": (
        "x = torch.tensor([[-0., 0.5, float('inf')], [float('nan'), -2., float('-inf')]])\na = x.clamp(min=0)\n"
        "b = x.clamp(-1, 0.25)\nc = x.clamp(max=-0.)\nd = torch.nn.functional.leaky_relu(x)\n"
        "e = torch.nn.functional.leaky_relu(x, 3.)\nf = torch.nn.functional.silu(x)\ng = torch.nn.functional.mish(x)\n"
        "h = x.half().clamp(min=0.1)\ni = torch.arange(6).reshape(2, 3).clamp(min=2)\n"
        "j = torch.arange(6).reshape(2, 3).clamp(min=2.5)\nk = x.clamp(min=1, max=0)\nm = x.t().clamp(min=0)\n"
        "n = torch.tensor(-1.).clamp(min=0)\no = x.clamp(min=torch.tensor(0.))\np = x.double().clamp(min=True)"),
    "clamp without bounds": "x = torch.ones(2, 2)\ny = x.clamp()",
    "leaky_relu of an int tensor": "x = torch.ones(2, 2, dtype=torch.int64)\ny = torch.nn.functional.leaky_relu(x)",
    "silu of an int tensor": "x = torch.ones(2, 2, dtype=torch.int64)\ny = torch.nn.functional.silu(x)",
    "activations with grad": (
        "x = torch.tensor([[-1., 0.5], [2., -3.]], requires_grad=True)\ny = x.clamp(min=0) + "
        "torch.nn.functional.leaky_relu(x) + torch.nn.functional.silu(x)\ny.sum().backward()\n"
        "with torch.no_grad():\n    z = torch.nn.functional.silu(x)\n    w = x.clamp(min=0)"),
    # broadcast operands and integer numbers
    "a row-major tensor with a broadcast operand of any layout": (
        "a = torch.arange(12.).reshape(3, 4)\nbias = torch.arange(4.)\nb = a + bias\nc = a * torch.ones(3, 1)\n"
        "d = a - torch.ones(1, 4)\ne = a / torch.arange(1., 13.).reshape(4, 3).t()\nf = a + torch.ones(8)[::2]\n"
        "g = a * torch.ones(3, 1).expand(3, 4)\nh = a + torch.ones(4, 1).t()\nx = torch.ones(2, 3, 4)\n"
        "i = x + torch.ones(3, 1)\nj = x * torch.ones(1, 3, 1)\nk = x - torch.ones(4, 3).t()\n"
        "m = torch.arange(12).reshape(3, 4) + torch.arange(4)\nn = a.half() * bias.half()\n"
        "o = a.bfloat16() / bias.bfloat16()\np = torch.ones(3, 4, dtype=torch.bool) + torch.ones(4, dtype=torch.bool)\n"
        "q = torch.ones(3, 4, dtype=torch.bool) * torch.zeros(4, dtype=torch.bool)\nbias.add_(1)\nr = a + bias"),
    "broadcast operands the short path leaves alone": (
        "a = torch.arange(12.).reshape(3, 4)\nbias = torch.arange(4.)\nb = bias + a\nc = torch.ones(3, 1) * a\n"
        "d = a.t() + torch.ones(3)\ne = torch.ones(1, 4) + torch.ones(3, 1)\nf = torch.ones(1, 4) * torch.ones(4)\n"
        "g = a + bias.double()\nh = a + torch.arange(4)\ni = a[:, ::2] + torch.ones(2)\n"
        "j = torch.ones(3, 4, dtype=torch.bool) - torch.ones(4, dtype=torch.bool)"),
    "a broadcast operand that does not fit": "a = torch.ones(3, 4)\nb = a + torch.ones(3)",
    "a broadcast operand with more dims": "a = torch.ones(3, 4)\nb = a * torch.ones(2, 3, 4)",
    "a broadcast operand with grad": (
        "w = torch.ones(3, 4, requires_grad=True)\nbias = torch.zeros(4, requires_grad=True)\ny = w * 2 + bias\n"
        "z = (w - bias) / torch.arange(1., 5.)\n(y.sum() + z.sum()).backward()\nwith torch.no_grad():\n"
        "    u = w + bias\nnames = (y.grad_fn.name(), z.grad_fn.name(), u.requires_grad)"),
    "integer tensors with numbers": (
        "i = torch.arange(12).reshape(3, 4)\na = i * 2\nb = i + 1\nc = 1 - i\nd = i - 5\ne = i * (2 ** 40)\n"
        "f = torch.ones(2, 2, dtype=torch.int8) * 100\ng = torch.ones(2, 2, dtype=torch.int8) + 300\n"
        "h = torch.ones(2, 2, dtype=torch.uint8) - 2\nk = torch.full((2, 2), 2 ** 62) * 4\nm = i / 2\nn = i * 2.5\n"
        "o = i ** 2\np = torch.ones(2, 2, dtype=torch.int32) * -3\nq = i.t() * 2\nr = torch.ones(2, 2, dtype=torch.bool) * 2\n"
        "s = torch.ones(2, 2, dtype=torch.int16) - (-40000)\nt = torch.tensor(3) * 2\nu = 200 - torch.ones(2, 2, dtype=torch.uint8)"),
    # clone
    "clone of row-major tensors, views, inference tensors and with grad": (
        "a = torch.arange(12.).reshape(3, 4)\nb = a.clone()\nb.add_(1)\nc = a[1:].clone()\nd = a.t().clone()\n"
        "e = torch.tensor(2.).clone()\nf = torch.arange(4).reshape(2, 2).clone()\n"
        "with torch.inference_mode():\n    i = torch.ones(2, 2) * 1\n    j = i.clone()\nk = i.clone()\n"
        "w = torch.ones(2, 2, requires_grad=True)\nm = w.clone()\nwith torch.no_grad():\n    n = w.clone()\n"
        "m.sum().backward()\nversions = (b._version, j._version, k._version, k.is_inference(), j.is_inference())\n"
        "o = a.clone(memory_format=torch.contiguous_format)\np = (a * 1).clone()\n"
        "u = torch.arange(2.).unfold(0, 1, 2)\ns = u.sum()\nq = u.clone()\nt = torch.ones(3, 1).t()\ns = t.sum()\n"
        "r = t.clone()"),
    # mean
    "mean over a dim, keepdim, half, empty and inf": (
        "x = torch.arange(12.).reshape(3, 4)\na = x.mean(0)\nb = x.mean(-1, keepdim=True)\n"
        "c = x.half().mean(1)\nd = torch.ones(0, 3).mean(0)\ne = torch.tensor([[float('inf'), 1.]]).mean(1)\n"
        "f = x.mean((0, 1))\ng = x.mean(0, dtype=torch.float64)\nh = x.t().mean(0)\ni = torch.ones(3, 4) * 1e38\n"
        "j = i.mean()\nk = i.mean(1)"),
    "mean of an int tensor is refused": "x = torch.arange(4)\nm = x.mean(0)",
    # view ops
    "view and reshape of row-major tensors share storage and version": (
        "a = torch.arange(12.).reshape(3, 4)\nb = a.view(-1)\nc = a.view(2, -1)\nd = a.reshape([6, 2])\n"
        "e = a.view(torch.Size([4, 3]))\nf = a.view(1, 12, 1)\ng = a.reshape((2, 1, 6))\nh = a.flatten()\n"
        "i = torch.tensor(1.).view(1, 1)\nj = torch.tensor(1.).view(-1)\nk = a[1].view(2, 2)\nb.mul_(2)\n"
        "versions = (a._version, c._version, h._version)\nbases = (b._base is a, h._base is a, k._base is a)"),
    "view and reshape of other layouts": (
        "a = torch.arange(12.).reshape(3, 4)\nb = a.t().reshape(12)\nc = a.t().flatten()\nd = a[:, ::2].reshape(6)\n"
        "e = torch.ones(0, 3).view(3, 0)\nf = torch.ones(0, 3).view(-1, 3)\ng = torch.ones(4, 1).t().view(2, 2)\n"
        "h = a.flatten(1)\ni = a.flatten(0, 0)\nj = torch.arange(4.).flatten()\nk = torch.tensor(2.).flatten()\n"
        "m = a.t().view(4, 3, 1)\nn = a.view(3, 4).view(12)"),
    "view errors": "a = torch.arange(12.).reshape(3, 4)\nb = a.view(5, -1)",
    "view with two -1": "a = torch.arange(12.)\nb = a.view(-1, -1)",
    "view with a negative size": "a = torch.arange(12.)\nb = a.view(-2, -6)",
    "view of a transposed tensor": "a = torch.arange(12.).reshape(3, 4).t()\nb = a.view(12)",
    "view of an empty tensor with -1": "a = torch.ones(0, 3)\nb = a.view(0, -1)",
    "permute, expand, squeeze and contiguous": (
        "a = torch.arange(12.).reshape(3, 4)\nb = a.permute(1, 0)\nc = a.permute(-1, 0)\nx = torch.ones(2, 3, 4)\n"
        "d = x.permute(2, 0, 1)\ne = x.permute([1, -1, 0])\nf = a.expand(2, 3, 4)\ng = a[None].expand(2, -1, -1)\n"
        "h = torch.ones(3, 1).expand(3, 4)\ni = torch.ones(1, 3, 1).squeeze()\nj = a.contiguous()\n"
        "k = a.t().contiguous()\nm = torch.ones(3, 1).t().contiguous()\nsame = (j is a, m._base is None)"),
    "permute with a repeated dim": "a = torch.ones(2, 3)\nb = a.permute(0, 0)",
    "permute with too few dims": "a = torch.ones(2, 3)\nb = a.permute(1)",
    "expand to fewer dims": "a = torch.ones(2, 3)\nb = a.expand(3)",
    "view ops with grad record their nodes": (
        "x = torch.arange(12.).reshape(3, 4).requires_grad_()\ny = x * 1\na = y.view(-1)\nb = y.reshape(2, 6)\n"
        "c = y.permute(1, 0)\nd = y.expand(2, 3, 4)\ne = y.flatten()\nf = y.unsqueeze(0).squeeze()\n"
        "(a.sum() + b.sum() + c.sum() + d.sum() + e.sum() + f.sum()).backward()\n"
        "names = (a.grad_fn.name(), b.grad_fn.name(), c.grad_fn.name(), c.grad_fn._saved_dims, e.grad_fn.name())"),
    # reductions
    "sum of float16 and bfloat16": ("x = torch.arange(10.).to(torch.float16)\ns = x.sum()\n"
                                    "t = torch.arange(10.).to(torch.bfloat16).sum()"),
    "sum of a 0-dim and of an empty tensor": "s = torch.tensor(3.).sum()\ne = torch.ones(0, 3).sum()",
    "sum of an int tensor and with a dtype": "s = torch.arange(4).sum()\nt = torch.ones(3).sum(dtype=torch.float64)",
    "sum of a transposed view, with grad": ("a = torch.arange(6.).reshape(2, 3).requires_grad_()\n"
                                            "s = a.t().sum()\ns.backward()"),
    "sum of two whole vectors, results and views, with grad": (
        "a = torch.arange(-8., 8.).reshape(4, 4).requires_grad_()\nb = a * 1.5\ns = b.sum()\nt = b.sum()\n"
        "sizes = s.grad_fn._saved_self_sym_sizes\nd = (b.double() * 1)[:2].sum()\nr = torch.ones(3, 16)[1].sum()\n"
        "z = (torch.zeros(4, 4) * -1).sum()\nn = (b * float('inf')).sum()\nm = (b * 1).mean()\n"
        "v = (torch.arange(16, dtype=torch.int32) * 1065353216).view(torch.float32).sum()\n(s + t + m).backward()"),
    "mean of small float tensors, with grad, of float16 and empty": (
        "a = torch.tensor([[-0.2, -0.9, 0.2], [1.7, -1.2, -2.6]], requires_grad=True)\nm = a.mean()\n"
        "m.backward()\nd = torch.arange(7.).double().mean()\nh = torch.ones(3, dtype=torch.float16).mean()\n"
        "e = torch.ones(0).mean()\nt = a.t().mean()"),
    "expand of a 0-dim tensor, with grad": (
        "c = torch.tensor(2., requires_grad=True) * 1\na = c.expand((2, 3))\nb = c.expand((1, 4, 1))\n"
        "e = c.expand((0, 2))\nf = c.expand(2, 2)\ng = c.expand(())\n(a.sum() + b.sum()).backward()"),
    "expand of a 0-dim tensor to a negative size": "c = torch.tensor(2.)\na = c.expand((-1, 2))",
    "expand of a 0-dim tensor to a negative size at the end": "c = torch.tensor(2.)\na = c.expand(3, -1)",
    "expand of a 0-dim tensor to an overflowing size": "c = torch.tensor(2.)\na = c.expand(2**62, 4)",
    # basic indexing
    "negative indices and steps": "x = torch.arange(12.).reshape(3, 4)\ny = x[-1, ::-1]",
    "too many indices": "x = torch.ones(2)\ny = x[0, 0]",
    "index out of range in the first dim": "x = torch.ones(2, 3)\ny = x[2, 1]",
    "index of a 0-dim tensor with an ellipsis": "x = torch.tensor(1.)\ny = x[...]",
    "a numpy integer index": "import numpy as np\nx = torch.arange(6.).reshape(2, 3)\ny = x[np.int64(1), 1:]",
    "slice bounds past either end, negative and empty": (
        "x = torch.arange(10.)\na = x[-20:3]\nb = x[7:-20]\nc = x[-3:]\nd = x[2:100:3]\ne = x[5:2]\n"
        "f = x[-1:-1]\ng = x[-11:-9:2]\nh = torch.ones(0)[1:3]"),
    "full slices in a tuple": "x = torch.ones(2, 3)\ny = x[:, :]\nz = x[0:2, 0:5]",
    "views of views share the base": ("x = torch.arange(24.).reshape(2, 3, 4)\nv = x[1]\nw = v[1:, ::2]\n"
                                      "u = w[0, 1]\nw.mul_(2)\nb = (w._base is x, u._base is x, w._version)"),
    "a view made under no_grad of a tensor that requires grad": (
        "a = torch.ones(3, 4, requires_grad=True).clone()\nwith torch.no_grad():\n    v = a[1:, ::2]\n"
        "r = v.requires_grad\nv.mul_(2)"),
    "indexing with grad records the chain": ("x = torch.arange(12.).reshape(3, 4).requires_grad_()\n"
                                             "y = x[1:, ::2]\nz = y * 1\nz.sum().backward()"),
    "ints and slices with grad record one node each": (
        "x = torch.arange(24.).reshape(2, 3, 4).requires_grad_()\ny = x * 1\nv = y[1, 1:, ::2]\nw = v[0, -1]\n"
        "u = y[:, 1, 1:3]\nt = y[0:1, :, 3]\nr = y[..., 1]\n(v.sum() + w + u.sum() + t.sum() + r.sum()).backward()\n"
        "chain = (v.grad_fn.next_functions[0][0].name(), v.grad_fn._saved_dim, v.grad_fn._saved_self_sym_sizes, "
        "u.grad_fn._saved_start, u.grad_fn.next_functions[0][0]._saved_index, t.grad_fn._saved_dim)"),
    "an index out of range with grad": "x = (torch.ones(2, 3, requires_grad=True) * 1)\ny = x[0:1, 5]",
    "indexing a view of a leaf with grad, then writing to it": (
        "x = torch.ones(3, 4, requires_grad=True)\ny = x * 1\nv = y[1:]\nw = v[0, ::2]\nw.mul_(2)\n"
        "y.sum().backward()\nb = (w._base is y, w._version, w.grad_fn.name())"),
}


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_short_paths_leave_what_torch_leaves(code):
    expected, got = torch_and_engine(code)
    assert got == expected


def test_methods_check_devices_once_a_device_tensor_exists():
    """Tensor methods run without the device wrapper until a device storage exists; from then on
    they are placed on their arguments' device and refuse to mix devices, as torch does."""
    from engine import devices
    from engine.runtime import Runtime

    with Runtime().active():
        x = engine.ones(2)
        y = (x + x).relu()
        assert y.device.type == "cpu"
        d = engine.ones(2, device="cuda")
        z = (d + d).relu()
        assert z.device.type == "cuda" and devices.state.cuda_in_use
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            x + d


def test_a_tensors_numpy_view_wrapped_again_is_a_copy():
    """Adopted results cache a view of their array, so code that wraps a tensor's numpy view (as
    some kernels do) gets a copy in a storage of its own, never a second storage over the memory."""
    import numpy as np

    from engine.tensor import Tensor

    copied = Tensor._wrap(np.arange(4.0)[1:], engine.float64)  # a view: adopted as a copy
    for made in (engine.ones(2, 3) + 1, engine.ones(2, 3).sum(0), copied):
        again = Tensor._wrap(made._numpy_view(), made.dtype)
        assert again._storage is not made._storage
        assert not np.shares_memory(again._numpy_view(), made._numpy_view())


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_keeps_the_sign_of_zero_bit_for_bit(dtype):
    """relu is x < 0 ? 0 : x: -0. stays -0. and NaN stays NaN (the oracle compares values, where
    -0. == 0., so this compares the bytes), out of place, in place, 0-dim, and for longer tensors."""
    values = [-0.0, 0.0, -1e-45, float("-inf"), float("nan"), 2.0]

    def results(lib):
        x = lib.tensor(values, dtype=getattr(lib, dtype))
        y = x.clone()
        y.relu_()
        long = lib.tensor(values * 200, dtype=getattr(lib, dtype))
        return [t.numpy().tobytes() for t in (x.relu(), y, lib.tensor(-0.0, dtype=getattr(lib, dtype)).relu(),
                                               long.relu(), lib.relu(long[:1020]))]

    assert results(engine) == results(torch)


_EDGES = [-0.0, 0.0, 0.5, -2.0, 1e-30, -1e30, 88.5, 100.0, float("inf"), float("-inf"), float("nan"), 3.0]
_UNARY_CALLS = ["exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "abs", "neg", "sin", "cos", "tan",
                "tanh", "reciprocal", "square", "sign", "floor", "ceil", "round", "trunc", "erf", "asin", "atan",
                "sinh", "cosh", "exp2", "frac"]
_NUMBER_CALLS = {"x * 0.3": lambda x: x * 0.3, "x + 1": lambda x: x + 1, "x - 2.5": lambda x: x - 2.5,
                 "x / 3": lambda x: x / 3, "1 - x": lambda x: 1 - x, "x ** 2": lambda x: x ** 2,
                 "x ** 2.5": lambda x: x ** 2.5, "x * 1e5": lambda x: x * 1e5, "x * c": lambda x: x * engine.tensor(
                     0.3, dtype=x.dtype), "x / c": lambda x: x / engine.tensor(7.0, dtype=x.dtype),
                 "x + bias": lambda x: x + engine.tensor([0.1, -0.0, 3.0, float("inf")], dtype=x.dtype),
                 "x * bias": lambda x: x * engine.tensor([[0.3], [-2.0], [1e-3]], dtype=x.dtype),
                 "x / bias.t()": lambda x: x / engine.tensor([[0.3, -2.0, 7.0]] * 4, dtype=x.dtype).t(),
                 "clamp(min=0)": lambda x: x.clamp(min=0), "clamp(-1, 2.5)": lambda x: x.clamp(-1, 2.5),
                 "clamp(max=1)": lambda x: x.clamp(max=1), "clamp(min=1e10)": lambda x: x.clamp(min=1e10), "leaky_relu": engine.nn.functional.leaky_relu,
                 "leaky_relu(0.2)": lambda x: engine.nn.functional.leaky_relu(x, 0.2),
                 "silu": engine.nn.functional.silu, "mish": engine.nn.functional.mish,
                 "softplus": engine.nn.functional.softplus, "elu": engine.nn.functional.elu}


def _same_bytes_with_and_without_grad(dtype, compute):
    """compute(x) on a small row-major tensor without grad (the short paths) against the same call on
    a tensor requiring grad (the general paths, which record a node), byte for byte, without a
    warning either way (torch never warns about nan or inf)."""
    import warnings

    x = engine.tensor(_EDGES, dtype=dtype).reshape(3, 4)
    x._numpy_view()  # cached, as every op's result has it: what the short paths read
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        short = compute(x)
        general = compute(x.detach().requires_grad_())
    assert short.dtype == general.dtype and short.stride() == general.stride()
    assert short.detach().numpy().tobytes() == general.detach().numpy().tobytes()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("op", _UNARY_CALLS)
def test_unary_short_path_computes_what_the_general_one_does(op, dtype):
    _same_bytes_with_and_without_grad(getattr(engine, dtype), lambda x: getattr(x, op)())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("call", list(_NUMBER_CALLS))
def test_number_short_path_computes_what_the_general_one_does(call, dtype):
    if (call, dtype) == ("clamp(min=1e10)", "float16"):  # a bound past float16 is an error either way, as in torch
        x = engine.ones(3, dtype=engine.float16)
        for t in (x, x.detach().requires_grad_()):
            with pytest.raises(RuntimeError, match="c10::Half without overflow"):
                t.clamp(min=1e10)
        return
    _same_bytes_with_and_without_grad(getattr(engine, dtype), _NUMBER_CALLS[call])


@pytest.mark.parametrize("op", ["log", "sqrt", "rsqrt", "reciprocal", "abs", "neg", "square"])
def test_float32_unary_ops_equal_torch_bit_for_bit_on_small_tensors(op):
    """The short path keeps the kernels' agreement with torch's float32 results where they agree
    exactly (exp, tanh, sin and cos, computed in float64 and rounded, agree nearly always)."""
    import numpy as np

    values = np.random.default_rng(0).standard_normal(64).astype(np.float32).reshape(8, 8) * 3
    ours = getattr(engine.from_numpy(values.copy()), op)().numpy()
    theirs = getattr(torch.from_numpy(values.copy()), op)().numpy()
    assert np.array_equal(ours, theirs, equal_nan=True)


def test_view_strides_of_row_major_tensors_are_computestrides():
    """view/reshape of a row-major tensor take the new shape's row-major strides: what computeStride
    (geometry.view_strides) gives for every shape of up to 12 elements."""
    import itertools
    import math

    from engine import geometry

    shapes = [s for n in range(1, 4) for s in itertools.product(range(1, 5), repeat=n)] + [(), (12,), (3, 1, 4)]
    for old in shapes:
        for new in shapes:
            if math.prod(new) == math.prod(old) and old:  # a 0-dim tensor's strides: see view_strides
                assert geometry.view_strides(old, geometry.row_major_strides(old), new) == \
                    geometry.row_major_strides(new), (old, new)


def test_clone_keeps_the_strides_of_size_1_dims():
    """clone keeps a dense layout's strides exactly, size-1 dims' too (the oracle's summary does not
    tell those apart), also once the tensor's numpy view is cached (C-contiguous to numpy)."""
    def strides(lib):
        u = lib.arange(2.0).unfold(0, 1, 2)
        u.sum()  # reads, and so caches, its numpy view
        t = lib.ones(3, 1).t()
        t.sum()
        return [u.clone().stride(), t.clone().stride(), (t * 1).stride(), t.exp().stride()]

    assert strides(engine) == strides(torch)


@pytest.mark.parametrize("op", sorted(pointwise._VIA_DOUBLE))
def test_float32_ops_via_double_take_the_same_bits_short_or_general(op):
    """A float32 op computed by its float64 loop: the short path widens with astype, the general one
    by the ufunc's dtype= argument; every bit pattern (nan payloads, infinities, subnormals) gives
    the same result either way."""
    import warnings

    import numpy as np

    bits = np.random.default_rng(len(op)).integers(0, 2**32, size=4096, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32).reshape(64, 64)
    short = engine.from_numpy(values.copy())
    short._numpy_view()
    general = engine.from_numpy(values.copy()).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, reference = getattr(short, op)(), getattr(general, op)()
    assert ours.grad_fn is None and reference.grad_fn is not None
    assert ours.numpy().tobytes() == reference.detach().numpy().tobytes()


@pytest.mark.parametrize("bias_shape", [(4,), (1, 4), (3, 1), (1, 1), (2, 3, 4), (2, 1, 4), (5,)])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_a_broadcast_operand_takes_the_short_path_to_what_the_general_one_makes(op, bias_shape):
    """`x + bias` of a small row-major x (the short path, _broadcast_op) against the same call on an x
    requiring grad (the general path): the same bytes, shape and strides, or the same error; the
    bias fresh, as a strided view, or already read (its cached numpy view)."""
    import numpy as np

    x = engine.arange(12.).reshape(3, 4) * 0.75 - 2
    wide = engine.from_numpy(np.linspace(-3, 3, 2 * int(np.prod(bias_shape))).astype(np.float32))
    for bias in (wide[: int(np.prod(bias_shape))].reshape(bias_shape), wide[::2].reshape(bias_shape)):
        outcomes = []
        for left in (x, x.detach().requires_grad_()):
            try:
                result = getattr(engine, op)(left, bias)
                outcomes.append((tuple(result.shape), result.stride(), result.detach().numpy().tobytes()))
            except RuntimeError as error:
                outcomes.append(str(error))
        assert outcomes[0] == outcomes[1]
        if isinstance(outcomes[0], tuple):  # once read, the bias's cached view serves the short path
            bias._numpy_view()
            assert getattr(engine, op)(x, bias).numpy().tobytes() == outcomes[0][2]
