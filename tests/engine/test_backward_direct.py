"""The derivative table's `direct` forms (sum, add, mul and sigmoid written out for a plain backward)
leave exactly what the formulas leave, and what PyTorch leaves.

Each snippet runs twice in the engine, once as it is and once with every `direct` taken away (so the
nodes run their formulas through the Context), and the two runs must agree bit for bit: gradient
values, dtypes, shapes, strides and versions, which tensors share memory, the errors, and every
allocation and free the allocator heard, in order. The snippets sit on the edges of the direct
forms: the cases they take (row-major and broadcast gradients, alpha, complex operands, a field the
op did not keep) and the ones they hand back to the formulas (create_graph, a saved tensor read or
hooked before backward, a number operand, a saved tensor changed in place, a freed graph). The same
snippets are compared with real PyTorch as well.
"""

from __future__ import annotations

import pytest

import engine
import engine.nn
import engine.nn.functional
from engine import allocator as allocation
from engine.autograd.node import node_type
from engine.runtime import Runtime
from tests.oracle import run_snippet, torch_and_engine

DIRECT_NODES = ("SumBackward0", "AddBackward0", "MulBackward0", "SigmoidBackward0")

SNIPPETS = {
    "the four-op graph, backward twice": (
        "torch.manual_seed(0)\na = torch.randn(4, 4, requires_grad=True)\nb = torch.randn(4, 4, requires_grad=True)\n"
        "((a * b).sigmoid() + a).sum().backward()\nfirst = a.grad.clone()\n((a * b).sigmoid() + a).sum().backward()"),
    "a first .grad stolen or copied": (
        "torch.manual_seed(1)\na = torch.randn(3, 5, requires_grad=True)\nb = torch.randn(3, 5, requires_grad=True)\n"
        "(a * b).sum().backward()\nga, gb = a.grad, b.grad"),
    "float64, float16 and bfloat16": (
        "torch.manual_seed(2)\nfor dt in (torch.float64, torch.float16, torch.bfloat16):\n"
        "    a = torch.randn(2, 3, dtype=dt, requires_grad=True)\n"
        "    b = torch.randn(2, 3, dtype=dt, requires_grad=True)\n"
        "    ((a * b).sigmoid() + a).sum().backward()\n    print(a.grad, b.grad)"),
    "size-1 dims and a 0-dim tensor": (
        "torch.manual_seed(3)\na = torch.randn(1, 4, 1, requires_grad=True)\nb = torch.randn(1, 4, 1, requires_grad=True)\n"
        "((a * b).sigmoid() + a).sum().backward()\nc = torch.tensor(0.5, requires_grad=True)\n"
        "(c * c).sigmoid().backward()"),
    "transposed and sliced operands": (
        "torch.manual_seed(4)\nw = torch.randn(4, 3, requires_grad=True)\nx = torch.randn(3, 4)\n"
        "((w.t() * x).sigmoid() + w.t()).sum().backward()\nv = torch.randn(6, 6, requires_grad=True)\n"
        "(v[::2, 1:4] * v[1::2, :3]).sigmoid().sum().backward()"),
    "broadcast operands summed back to their shape": (
        "torch.manual_seed(5)\na = torch.randn(3, 4, requires_grad=True)\nbias = torch.randn(4, requires_grad=True)\n"
        "((a * bias).sigmoid() + bias).sum().backward()"),
    "one operand without grad keeps the other's field only": (
        "torch.manual_seed(6)\na = torch.randn(2, 3, requires_grad=True)\nc = torch.randn(2, 3)\n"
        "(a * c + c).sum().backward()\n(c * a).sigmoid().sum().backward()"),
    "a Parameter operand": (
        "torch.manual_seed(13)\nw = torch.nn.Parameter(torch.randn(2, 3))\nx = torch.randn(2, 3)\n"
        "((w * x).sigmoid() * w + w).sum().backward()"),
    "a tensor times itself and added to itself": (
        "a = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)\n(a * a + a + a).sum().backward()"),
    "add and sub with alpha, mul by a number": (
        "torch.manual_seed(7)\na = torch.randn(2, 2, requires_grad=True)\nb = torch.randn(2, 2, requires_grad=True)\n"
        "(torch.add(a, b, alpha=3) * 2).sum().backward()\n(torch.sub(a, b, alpha=0.5) + 1).sum().backward()"),
    "complex operands are conjugated": (
        "a = torch.tensor([1 + 2j, -0.5j], requires_grad=True)\nb = torch.tensor([3 - 1j, 2 + 0j], requires_grad=True)\n"
        "(a * b).real.sum().backward()\n(a * b).imag.sum().backward()"),
    "an intermediate's gradient through every direct node": (
        "torch.manual_seed(8)\nx = torch.randn(3, 3, requires_grad=True)\nh = x * 2\nh.retain_grad()\n"
        "s = (h * x).sigmoid()\ns.retain_grad()\n(s + h).sum().backward()"),
    "create_graph leaves the direct forms aside": (
        "torch.manual_seed(9)\na = torch.randn(3, requires_grad=True)\nb = torch.randn(3, requires_grad=True)\n"
        "(ga, gb) = torch.autograd.grad(((a * b).sigmoid() + a).sum(), (a, b), create_graph=True)\n"
        "(ga * gb).sum().backward()"),
    "autograd.grad of one input only": (
        "torch.manual_seed(10)\na = torch.randn(3, requires_grad=True)\nb = torch.randn(3, requires_grad=True)\n"
        "(gb,) = torch.autograd.grad(((a * b).sigmoid() + a).sum(), b)"),
    "saved tensors read before backward": (
        "torch.manual_seed(11)\na = torch.randn(2, 2, requires_grad=True)\nb = torch.randn(2, 2, requires_grad=True)\n"
        "m = a * b\ns = m.sigmoid()\nseen = (m.grad_fn._saved_self is a, s.grad_fn._saved_result.shape)\n"
        "s.sum().backward()"),
    "saved-tensor hooks on a node": (
        "a = torch.ones(2, requires_grad=True)\nb = torch.full((2,), 3., requires_grad=True)\nm = a * b\n"
        "m.grad_fn._raw_saved_other.register_hooks(lambda t: t * 2, lambda t: t)\ns = m.sigmoid()\n"
        "s.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t + 1)\ns.sum().backward()"),
    "a retained graph run three times": (
        "torch.manual_seed(12)\na = torch.randn(4, requires_grad=True)\nb = torch.randn(4, requires_grad=True)\n"
        "y = ((a * b).sigmoid() + a).sum()\ny.backward(retain_graph=True)\ny.backward(retain_graph=True)\ny.backward()"),
    "a second backward through the freed graph": (
        "a = torch.ones(3, requires_grad=True)\ny = ((a * a).sigmoid() + a).sum()\ny.backward()\ny.backward()"),
    "a saved input modified in place": (
        "a = torch.ones(3, requires_grad=True)\nb = torch.ones(3) * 2\ny = (a * b).sum()\nb.add_(1)\ny.backward()"),
    "a saved result modified in place": (
        "a = torch.ones(3, requires_grad=True)\ns = (a * 2).sigmoid()\ns.mul_(2)\ns.sum().backward()"),
    "a saved input that lost its history": (
        "a = torch.ones(3, requires_grad=True)\nh = a * 2\ny = (h * h).sum()\nh.detach_()\ny.backward()"),
    "a hook on the sum's node and on a leaf": (
        "a = torch.ones(2, 2, requires_grad=True)\nb = torch.ones(2, 2, requires_grad=True)\n"
        "y = ((a * b).sigmoid() + a).sum()\ny.grad_fn.register_hook(lambda gi, go: print('sum ran'))\n"
        "a.register_hook(lambda g: g * 10)\ny.backward()"),
    "backward with create_graph inside inference mode records nothing": (
        "seen = []\nx = torch.ones(2, requires_grad=True)\ny = ((x * x).sigmoid() + x).sum()\n"
        "y.register_hook(lambda g: seen.append((torch.is_grad_enabled(), torch.is_inference_mode_enabled())))\n"
        "with torch.inference_mode():\n    y.backward(create_graph=True)\n"
        "after = (torch.is_grad_enabled(), x.grad.requires_grad, x.grad.grad_fn is None)"),
    "in-place sigmoid and mul": (
        "a = torch.ones(2, 3, requires_grad=True)\nh = a * 3\nh.sigmoid_()\nh.mul_(a)\nh.sum().backward()"),
}


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_direct_forms_leave_what_the_formulas_leave(code, monkeypatch):
    with_direct = _engine_run(code)
    for name in DIRECT_NODES:
        monkeypatch.setattr(node_type(name).formula, "direct", None)
    assert _engine_run(code) == with_direct


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_direct_forms_leave_what_torch_leaves(code):
    pytest.importorskip("torch")
    expected, got = torch_and_engine(code)
    assert got == expected


def test_the_direct_forms_are_the_ones_compared():
    assert all(node_type(name).formula.direct is not None for name in DIRECT_NODES)


def _engine_run(code: str) -> dict:
    """Everything a snippet leaves in the engine, exactly: each tensor's (and its .grad's) bytes and
    layout, which tensors share memory, the error, what it printed, and the allocator's events."""
    with Runtime().active():
        events: list[tuple[str, int, int]] = []
        allocation.allocator.listeners.append(lambda *event: events.append(event))
        outcome = run_snippet(code, engine, engine.nn, engine.nn.functional)
        tensors = {name: value for name, value in outcome.namespace.items() if isinstance(value, engine.Tensor)}
        described = {name: _exactly(t) for name, t in tensors.items()}
        sharing = sorted(sorted(a for a in tensors if tensors[a]._storage is tensors[b]._storage) for b in tensors)
        first_id = min((storage_id for _, storage_id, _ in events), default=0)
        heard = [(event, storage_id - first_id, nbytes) for event, storage_id, nbytes in events]
        peak = allocation.allocator.peak_bytes
    return {"tensors": described, "sharing": sharing, "error": outcome.error, "stdout": outcome.stdout,
            "events": heard, "peak": peak}


def _exactly(t: engine.Tensor | None) -> tuple | None:
    if t is None:
        return None
    values = t.detach().resolve_conj().numpy().tobytes() if t.dtype is not engine.bfloat16 else \
        t.detach().float().numpy().tobytes()
    version = "inference" if t.is_inference() else t._version  # an inference tensor keeps no version
    return (values, str(t.dtype), tuple(t.shape), t.stride(), t.storage_offset(), version,
            type(t.grad_fn).__name__, _exactly(t.grad) if t.is_leaf and t.requires_grad else None)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["sigmoid", "tanh"])
def test_reduced_float_activation_gradients_bit_for_bit(op, dtype):
    """ATen's sigmoid_backward computes bfloat16 in float32 (float16 op by op in float16), its
    tanh_backward both in float32, rounding once: the engine's gradients carry the same bits."""
    torch = pytest.importorskip("torch")
    grads = []
    for m in (torch, engine):
        m.manual_seed(0)
        x = m.randn(6, 7, dtype=getattr(m, dtype), requires_grad=True)
        upstream = m.randn(6, 7, dtype=getattr(m, dtype))
        getattr(x, op)().backward(upstream)
        getattr(x, op)().sum().backward()  # sum's expanded gradient, read as one number
        grads.append(x.grad.float().numpy().tobytes())
    assert grads[1] == grads[0]


def test_gradients_are_freed_when_torchs_engine_frees_them():
    """validate_outputs frees each gradient it sums back to a broadcast operand's shape before it
    looks at the next one, and a node's incoming gradient lives until validate_outputs is done
    (torch's call_function holds its inputs until then): the order shows in the allocator's events.
    Mul's gradients are made `other`'s first (storage 3, for b), then `self`'s (4, for a)."""
    with Runtime().active():
        events: list[tuple[str, int, int]] = []
        allocation.allocator.listeners.append(lambda *event: events.append(event))
        a, b = engine.ones(3, 1, requires_grad=True), engine.ones(1, 4, requires_grad=True)
        result = (a * b).sigmoid()  # kept, so that its storage outlives the graph's hold on it
        total = result.sum()
        start = len(events)
        first = allocation.allocator._next_id
        total.backward()
        heard = [(event, storage_id - first, nbytes) for event, storage_id, nbytes in events[start:]]
    assert heard == [("alloc", 0, 4),  # the root gradient
                     ("alloc", 1, 48), ("alloc", 2, 48), ("alloc", 3, 48),  # sigmoid's, then mul's two
                     ("alloc", 4, 12), ("free", 3, 48),  # a's summed to (3, 1), the (3, 4) one freed
                     ("alloc", 5, 16), ("free", 2, 48),  # b's summed to (1, 4)
                     ("free", 1, 48),  # mul's incoming gradient, once validate_outputs is done
                     ("free", 0, 4)]
