"""Backward's direct path for the common node, its numpy sum of two gradients and saved outputs kept
as their layout until read leave what PyTorch leaves.

A node without hooks (a derivative-table node, or a leaf's AccumulateGrad) runs without the general
evaluation's checks, and two gradients of one shape and dtype meeting at a node are summed straight
in numpy. Each snippet sits on the edge of one of those shortcuts: where it must hand over to the
general path (hooks, retain_grad, create_graph, other layouts) or behave exactly as it does (the
`.grad` layout and version, errors of a second backward or of a modified saved tensor); the oracle
compares everything a snippet leaves with real PyTorch.
"""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)
import engine.nn  # noqa: E402
import engine.nn.functional  # noqa: E402

SNIPPETS = {
    # two gradients summed at one node
    "sum's expanded gradient meets a row-major one at a leaf": (
        "a = torch.ones(4, 4, requires_grad=True)\nb = torch.full((4, 4), 2., requires_grad=True)\n"
        "((a * b).sigmoid() + a).sum().backward()\nfirst = a.grad.clone()\n"
        "((a * b).sigmoid() + a).sum().backward()\nv = a.grad._version"),
    "gradients summed at an intermediate node": (
        "a = torch.arange(6.).reshape(2, 3).requires_grad_()\nh = a * 2\ny = (h.sigmoid() + h).sum()\n"
        "y.backward()"),
    "gradients of other layouts summed": (
        "a = torch.arange(6.).reshape(2, 3).requires_grad_()\nc = torch.ones(3, 2)\n"
        "((a.t() * c).t() + a * 2).sum().backward()"),
    "float16 and float64 gradients summed": (
        "a = torch.tensor([1., -2., 3.], dtype=torch.float16, requires_grad=True)\n(a * a + a).sum().backward()\n"
        "b = torch.tensor([[1., 2.]], dtype=torch.float64, requires_grad=True)\n(b.exp() + b).sum().backward()"),
    "0-dim gradients summed": "a = torch.tensor(3., requires_grad=True)\n(a * a + a).backward()",
    "one tensor added to itself": "a = torch.ones(2, 2, requires_grad=True)\n(a + a).sum().backward()",
    # nodes the direct path hands over
    "an intermediate retaining its grad": (
        "a = torch.ones(2, 3, requires_grad=True)\nh = a * 2\nh.retain_grad()\n(h + h.sigmoid()).sum().backward()\n"
        "g = h.grad"),
    "a hook on a leaf and on an intermediate": (
        "a = torch.ones(3, requires_grad=True)\na.register_hook(lambda g: g * 2)\nh = a.sigmoid()\n"
        "h.register_hook(lambda g: g + 1)\n(h + a).sum().backward()"),
    "a node hook sees the gradients in order": (
        "seen = []\na = torch.ones(2, requires_grad=True)\ny = (a * 3).sum()\n"
        "y.grad_fn.register_prehook(lambda g: seen.append('pre'))\n"
        "y.grad_fn.register_hook(lambda gi, go: seen.append('post'))\ny.backward()"),
    "create_graph records the summed gradient": (
        "a = torch.ones(2, 2, requires_grad=True)\n(g,) = torch.autograd.grad((a * a + a).sum(), a, create_graph=True)\n"
        "g.sum().backward()"),
    "autograd.grad of an intermediate and a leaf": (
        "x = torch.ones(2, 3, requires_grad=True)\nw = torch.full((2, 3), 3., requires_grad=True)\nh = x * w\n"
        "y = (h.sigmoid() * h + x).sum()\ngh, gx = torch.autograd.grad(y, [h, x], retain_graph=True)\n"
        "(gw,) = torch.autograd.grad(y, w)"),
    "backward(inputs=...) runs only what it needs": (
        "a = torch.ones(2, requires_grad=True)\nb = torch.ones(2, requires_grad=True)\n"
        "((a * b).sigmoid() + a).sum().backward(inputs=[b])"),
    # a saved output, kept as its layout until read
    "a saved result read before backward": (
        "x = torch.arange(6.).reshape(2, 3).requires_grad_()\ny = x.sigmoid()\nr = y.grad_fn._saved_result\n"
        "same = (r is y, r.data_ptr() == y.data_ptr(), r._version, r.requires_grad)\ny.sum().backward()"),
    "a saved result whose tensor is transposed in place afterwards": (
        "x = torch.arange(6.).reshape(2, 3).requires_grad_()\ny = x.relu()\ny.t_()\nr = y.grad_fn\n"
        "y.sum().backward()"),
    "a saved result packed by saved-tensor hooks": (
        "packed = []\nx = torch.ones(2, 3, requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):\n"
        "    y = x.exp()\ny.sum().backward()"),
    # the errors the direct path keeps
    "a second backward through a freed graph": (
        "a = torch.ones(2, requires_grad=True)\ny = (a * a).sigmoid().sum()\ny.backward()\ny.backward()"),
    "a retained graph backward twice": (
        "a = torch.ones(2, requires_grad=True)\ny = (a * a).sigmoid().sum()\ny.backward(retain_graph=True)\n"
        "y.backward()"),
    "a saved result modified in place": (
        "a = torch.ones(2, requires_grad=True)\nh = a.sigmoid()\nh.mul_(2)\nh.sum().backward()"),
}


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_backward_paths_leave_what_torch_leaves(code):
    expected, got = torch_and_engine(code)
    assert got == expected


def test_a_summed_gradient_is_allocated_through_the_allocator():
    """The memory pane counts what backward allocates: the numpy sum of two gradients is a storage of
    the allocator, live while the gradient is, freed with it."""
    from engine import allocator as allocation
    from engine.autograd.engine import _summed
    from engine.runtime import Runtime

    with Runtime().active(), engine.no_grad():
        old = engine.ones(()).expand(64, 64)
        grad = engine.ones(64, 64)
        before = allocation.allocator.live_bytes
        total = _summed(old, grad)
        assert allocation.allocator.live_bytes == before + 64 * 64 * 4
        assert total._stride == (64, 1) and bool((total == 2).all())
        del total
        assert allocation.allocator.live_bytes == before
