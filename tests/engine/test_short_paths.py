"""The engine's short paths for common cases leave the same world behind as PyTorch.

Small ops take short paths when their operands are the common case (two tensors of one dtype and
shape, a floating-point tensor with a Python number, ints and slices as indices, `x.sum()` of a
float tensor...). Each snippet sits on the edge of one of them, where the short path must hand
over to the general one or behave exactly as it does; the oracle compares everything a snippet
leaves behind (values, dtypes, layouts, versions, views, graphs, errors) with real PyTorch.
"""

import pytest

from tests.oracle import reconcile, run_snippet, summarize

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)
import engine.nn  # noqa: E402
import engine.nn.functional  # noqa: E402

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
    # reductions
    "sum of float16 and bfloat16": ("x = torch.arange(10.).to(torch.float16)\ns = x.sum()\n"
                                    "t = torch.arange(10.).to(torch.bfloat16).sum()"),
    "sum of a 0-dim and of an empty tensor": "s = torch.tensor(3.).sum()\ne = torch.ones(0, 3).sum()",
    "sum of an int tensor and with a dtype": "s = torch.arange(4).sum()\nt = torch.ones(3).sum(dtype=torch.float64)",
    "sum of a transposed view, with grad": ("a = torch.arange(6.).reshape(2, 3).requires_grad_()\n"
                                            "s = a.t().sum()\ns.backward()"),
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
    expected = summarize(run_snippet(code, torch, torch.nn, torch.nn.functional))
    got = summarize(run_snippet(code, engine, engine.nn, engine.nn.functional))
    assert reconcile(expected, got) == expected


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
