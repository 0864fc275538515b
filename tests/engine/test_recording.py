"""What an op records into the graph, read back the way users read it, against PyTorch.

Recording takes short paths for the common case (one output, one or two inputs, at most a few
saved tensors); each snippet reads what the graph keeps (next_functions, saved fields and their
versions, the order of sequence numbers, what saved-tensor hooks see) where a short path could
drift from what PyTorch's generated code records.
"""

import pytest

from tests.oracle import reconcile, run_snippet, summarize

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)
import engine.nn  # noqa: E402
import engine.nn.functional  # noqa: E402

SNIPPETS = {
    "mul saves what the other input's formula reads": (
        "a = torch.ones(2, requires_grad=True) * 1\nb = torch.full((2,), 3., requires_grad=True) * 1\n"
        "c = torch.ones(2)\ny = a * b\nz = a * c\nw = c * a\nv = a * 2\n"
        "saved = (y.grad_fn._saved_self, y.grad_fn._saved_other, z.grad_fn._saved_self, z.grad_fn._saved_other,\n"
        "         w.grad_fn._saved_self, w.grad_fn._saved_other, v.grad_fn._saved_self, v.grad_fn._saved_other)"),
    "an input without an edge has its reader's field left out": (
        "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n    v = x[0]\n"
        "z = torch.full((), 2., requires_grad=True)\no = z * v\n"
        "edges = [None if f is None else f.name() for f, _ in o.grad_fn.next_functions]\n"
        "saved = (o.grad_fn._saved_self, o.grad_fn._saved_other)\no.backward()"),
    "relu and sigmoid save their result as an alias of it": (
        "a = torch.tensor([-1., 2.], requires_grad=True) * 1\nr = a.relu()\ns = a.sigmoid()\n"
        "same = (r.grad_fn._saved_result.data_ptr() == r.data_ptr(), s.grad_fn._saved_result.data_ptr() == s.data_ptr())\n"
        "kept = (r.grad_fn._saved_result, s.grad_fn._saved_result)\nr.mul_(2)\nafter = r.grad_fn.name()\n"
        "(s.sum() * 1).backward()"),
    "a saved result changed in place fails backward with its version": (
        "a = torch.ones(3, requires_grad=True) * 1\ns = a.sigmoid()\ns.add_(1)\ns.sum().backward()"),
    "a saved input changed in place fails backward with its version": (
        "a = torch.ones(3, requires_grad=True) * 1\nb = torch.ones(3, requires_grad=True) * 1\ny = a * b\n"
        "b.add_(1)\ny.sum().backward()"),
    "the nodes of one expression are numbered in the order they were made": (
        "a = torch.ones(2, 2, requires_grad=True) * 1\nb = a + a\nc = b[1:, ::2]\nd = b.sum()\ne = a.t()\n"
        "f = a.clone()\nf.mul_(b)\n"
        "order = [n.grad_fn._sequence_nr() - a.grad_fn._sequence_nr() for n in (b, d, e)]\n"
        "chain = c.grad_fn._sequence_nr() - c.grad_fn.next_functions[0][0]._sequence_nr()\n"
        "inplace = f.grad_fn._sequence_nr() - f.grad_fn._saved_self.grad_fn._sequence_nr()\n"
        "names = (c.grad_fn.name(), c.grad_fn.next_functions[0][0].name(), f.grad_fn.name(), "
        "f.grad_fn._saved_self.grad_fn.name())"),
    "a stale view's history is regenerated after the node reading it is numbered": (
        "a = torch.ones(2, 2, requires_grad=True) * 1\nv = a[0]\nw = a[1:]\na.add_(1)\ny = v * 2\nz = w[:, 1:]\n"
        "gaps = (y.grad_fn._sequence_nr() - y.grad_fn.next_functions[0][0]._sequence_nr(),\n"
        "        z.grad_fn._sequence_nr() - z.grad_fn.next_functions[0][0]._sequence_nr())\n"
        "names = (y.grad_fn.next_functions[0][0].name(), z.grad_fn.next_functions[0][0].name())\n"
        "(y.sum() + z.sum()).backward()"),
    "saved-tensor hooks see what each op saves": (
        "a = torch.ones(2, requires_grad=True) * 1\nb = torch.ones(2, requires_grad=True) * 1\nseen = []\n"
        "def pack(t):\n    seen.append(tuple(t.shape))\n    return t\n"
        "with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):\n"
        "    y = a * b\n    r = a.relu()\n    s = (a + b).sum()\n    v = a[1:]\n    w = a.clone()\n    w.mul_(b)\n"
        "(y.sum() + r.sum() + s + v.sum() + w.sum()).backward()\ngrads = (a.grad, b.grad)"),
    "one saved tensor's own hooks": (
        "a = torch.ones(2, requires_grad=True) * 1\ny = a * a\nraw = y.grad_fn._raw_saved_self\n"
        "raw.register_hooks(lambda t: t * 2, lambda t: t)\ny.sum().backward()\ng = a.grad"),
    "a SavedTensor is made by recording only": (
        "a = torch.ones(2, requires_grad=True)\ny = a * a\nS = type(y.grad_fn._raw_saved_self)\nname = S.__name__\n"
        "S()"),
    "a SavedTensor is made by recording only, whatever it is given": (
        "a = torch.ones(2, requires_grad=True)\nr = a.relu()\nS = type(r.grad_fn._raw_saved_result)\n"
        "name = S.__name__\nS(a, False)"),
    "add_ on a view rebases its base with CopySlices": (
        "a = torch.ones(2, 3, requires_grad=True) * 1\nv = a[0]\nv.add_(1)\nv.sigmoid_()\n"
        "names = (a.grad_fn.name(), v.grad_fn.name(), a.grad_fn.next_functions[0][0].name())\n"
        "a.sum().backward()"),
    "a sum keeps the sizes it reduced": (
        "a = torch.ones(2, 3, requires_grad=True) * 1\ns = a.sum()\nsizes = s.grad_fn._saved_self_sym_sizes\n"
        "i = a[1, 2]\nsel = (i.grad_fn._saved_index, i.grad_fn._saved_dim, i.grad_fn._saved_self_sym_sizes, "
        "i.grad_fn.next_functions[0][0]._saved_self_sym_sizes)"),
}


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_recording_leaves_what_torch_leaves(code):
    expected = summarize(run_snippet(code, torch, torch.nn, torch.nn.functional))
    got = summarize(run_snippet(code, engine, engine.nn, engine.nn.functional))
    assert reconcile(expected, got) == expected
