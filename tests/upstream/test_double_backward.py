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
    ("TestNestedCheckpoint: nested autograd.grad up to third order, the graphs freed (without checkpoint)", """
    import weakref
    def grad(fn):
        def wrapper(x):
            with torch.enable_grad():
                out = fn(x)
                (grad_input,) = torch.autograd.grad(out, inputs=(x,), create_graph=True)
            return grad_input
        return wrapper

    def f(x):
        return x.sin().exp().sin()

    def g(x):
        a = x.sin().exp().sin()
        b = x.sin().exp().sin()
        (ga,) = torch.autograd.grad(a, x)
        (gb,) = torch.autograd.grad(b, x)
        return x.sin()

    x = torch.randn((), requires_grad=True)
    res = []
    for fn in (f, g):
        for h in (fn, grad(fn), grad(grad(fn)), grad(grad(grad(fn)))):
            out = h(x)
            res.append((out, graph_desc(out.grad_fn)))

    def iter_graph(roots):
        seen, q = set(), [r for r in roots if r is not None]
        seen.update(q)
        while q:
            node = q.pop(0)
            for fn, _idx in node.next_functions:
                if fn in seen or fn is None:
                    continue
                seen.add(fn)
                q.append(fn)
            yield node

    class Handle:
        def __init__(self, node_name):
            self.node_name = node_name

    def scope(fn):
        a = torch.randn((), requires_grad=True)
        out = fn(a)
        refs = []
        for node in iter_graph([out.grad_fn]):
            handle = Handle(node.name())
            refs.append(weakref.ref(handle))
            node.metadata["blah"] = handle
        return refs

    alive = []
    for fn in (grad(f), grad(grad(f)), grad(g)):
        refs = scope(fn)
        alive.append([ref().node_name for ref in refs if ref() is not None])
    """),
    ("test_nested_checkpoint_two_children: second order through sums (without checkpoint)", """
    def grad(fn):
        def wrapper(x):
            with torch.enable_grad():
                out = fn(x)
                (grad_input,) = torch.autograd.grad(out, inputs=(x,), create_graph=True)
            return grad_input
        return wrapper

    def summed(fn):
        def wrapped(x):
            return fn(x).sum()
        return wrapped

    def f(x):
        return x.sin().exp().sin()

    def g(x):
        return x.cos().sin().exp()

    def h(x):
        return g(f(x))

    a = torch.randn(3, 3, requires_grad=True)
    expected = grad(summed(grad(summed(h))))(a)
    """),
    xfail=XFAIL,
)


@pytest.mark.parametrize(("code", "flag"), CASES)
def test_same_as_torch(code, flag):
    expected, got = outcomes(code, flag)
    assert got == expected
