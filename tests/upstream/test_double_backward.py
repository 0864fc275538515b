"""PyTorch's test/test_autograd.py, ported: double backward. `backward(create_graph=True)` and
`autograd.grad(..., create_graph=True)` record the backward pass's own graph, so gradients of
gradients work (Hessian-vector products, gradient penalties); the gradients' grad_fn names and
versions are torch's (CopyBackwards on `.grad`, MulBackward0 and the *BackwardBackward0 nodes
inside), and so is accumulation into `.grad` out of place under create_graph.

Each case runs in real torch 2.13 and in the engine and everything it leaves behind is compared in
full. The first backward(create_graph=True) of a process warns once, in torch and in the engine;
which case warns depends on the order cases run, so the warnings of cases that call it are not
compared (WARN_ONCE).
"""

import pytest

from tests.upstream.autograd_harness import WARN_ONCE, outcomes
from tests.upstream.harness import cases

pytest.importorskip("torch")

XFAIL: dict[str, str] = {}

CASES = cases(
    ("test_hessian_vector", """
    x = torch.randn(2, 2, requires_grad=True)
    y = torch.randn(2, 2, requires_grad=True)
    z = x**2 + y * x + y**2
    z.backward(torch.ones(2, 2), create_graph=True)
    with torch.no_grad():
        x_grad = 2 * x + y
        y_grad = x + 2 * y
    first = (x.grad.clone(), y.grad.clone(), x.grad.grad_fn.name(), graph_desc(x.grad.grad_fn))
    grad_sum = 2 * x.grad + y.grad
    grad_sum.backward(torch.ones(2, 2))
    """, WARN_ONCE),
    ("test_grad", """
    x = torch.randn(2, 2, requires_grad=True)
    y = torch.randn(2, 2, requires_grad=True)
    z = x**2 + y * x + y**2
    z.backward(torch.ones(2, 2), create_graph=True)
    x_grad = 2 * x + y
    y_grad = x + 2 * y
    grad_sum = 2 * x.grad + y.grad
    x_hv = torch.autograd.grad(outputs=[grad_sum], grad_outputs=[torch.ones(2, 2)], inputs=[x], create_graph=True)
    hv_desc = graph_desc(x_hv[0].grad_fn)
    """, WARN_ONCE),
    ("test_grad_nonleaf", """
    x_init = torch.randn(2, 2, requires_grad=True)
    x = x_init
    y = torch.randn(2, 2, requires_grad=True)
    grad_output = torch.ones(2, 2)

    def fn(x):
        return x**2 + y * x + y**2

    steps = []
    for _ in range(5):
        (grad_x,) = torch.autograd.grad(fn(x), x, grad_outputs=grad_output, create_graph=True)
        steps.append((grad_x, y.grad, x.grad if x.is_leaf else None))
        x = x + 0.05 * grad_x

    val_init = fn(x_init).sum()
    val_final = fn(x).sum()
    x.backward(grad_output)
    """),
    ("test_accumulate_grad: out of place under create_graph", """
    grad_output = torch.ones(5, 5)
    res = []
    for create_graph in (False, True):
        x = torch.randn(5, 5, requires_grad=True)
        y = x + 2
        y.backward(grad_output, retain_graph=True)
        x_grad = x.grad
        x_grad_clone = x.grad.clone()
        y.backward(grad_output, create_graph=create_graph)
        res.append((x_grad, x_grad_clone, x.grad, x.grad is x_grad))
    """, WARN_ONCE),
    ("test_accumulate_grad_tensor_reference: dense, with and without create_graph", """
    res = []
    for create_graph in (False, True):
        params = torch.tensor([1.5, 1.5]).requires_grad_()
        params.grad = torch.tensor([1.5, 1.5])
        grad_saved = params.grad
        params.backward(torch.tensor([1.5, 1.5]), create_graph=create_graph)
        res.append((id(grad_saved) == id(params.grad), params.grad))
    """, WARN_ONCE),
    ("test_backward_with_nonleaf_inputs: create_graph", """
    x = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    x_nonleaf = x * 1
    y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    z = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    out = x_nonleaf**2 + y * x_nonleaf + y**2
    out.backward(torch.ones(2, 2, dtype=torch.double), create_graph=True, inputs=[x, y, x_nonleaf])
    descs = [graph_desc(t.grad.grad_fn) for t in (x, y, x_nonleaf)]
    out.backward(torch.ones(2, 2, dtype=torch.double), create_graph=True, inputs=[z])
    """, WARN_ONCE),
    ("test_grad_materialize_grads: third order", """
    x = torch.tensor(0.5, requires_grad=True)
    a = torch.tensor(1.0, requires_grad=True)
    y = x * a
    dydx = torch.autograd.grad(y, x, create_graph=True)
    d2ydx2_none = torch.autograd.grad(dydx, x, create_graph=True, allow_unused=True)
    d2ydx2 = torch.autograd.grad(dydx, x, create_graph=True, allow_unused=True, materialize_grads=True)
    d3ydx3 = torch.autograd.grad(d2ydx2, x, materialize_grads=True)
    dyda = torch.autograd.grad(dydx, a)
    """),
    xfail=XFAIL,
)


@pytest.mark.parametrize(("code", "flag"), CASES)
def test_same_as_torch(code, flag):
    expected, got = outcomes(code, flag)
    assert got == expected
