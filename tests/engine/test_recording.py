"""What an op records into the graph, read back the way users read it, against PyTorch.

Recording takes short paths for the common case (one output, one or two inputs, at most a few
saved tensors); each snippet reads what the graph keeps (next_functions, saved fields and their
versions, the order of sequence numbers, what saved-tensor hooks see) where a short path could
drift from what PyTorch's generated code records.
"""

import numpy as np
import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)
import engine.nn  # noqa: E402
import engine.nn.functional  # noqa: E402
from engine.autograd.node import AccumulateGrad, Node, SavedTensor  # noqa: E402
from engine.storage import Storage  # noqa: E402
from engine.tensor import Tensor, VersionCounter  # noqa: E402

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
    "a saved input read after it changed in place names its version": (
        "a = torch.ones(3, requires_grad=True) * 1\nb = torch.ones(3, requires_grad=True) * 1\ny = a * b\n"
        "kept = y.grad_fn._saved_other\nb.add_(1)\ny.grad_fn._saved_other"),
    "a saved input changed in place after its object was read fails backward": (
        "a = torch.ones(3, requires_grad=True) * 1\nb = torch.ones(3, requires_grad=True) * 1\ny = a * b\n"
        "raw = y.grad_fn._raw_saved_self\na.mul_(1)\ny.sum().backward()"),
    "a saved input that lost its history to detach_ fails backward": (
        "a = torch.ones(3, requires_grad=True) * 1\nb = torch.ones(3, requires_grad=True) * 1\ny = a * b\n"
        "a.detach_()\ny.sum().backward()"),
    "backward frees saved inputs": (
        "a = torch.ones(3, requires_grad=True) * 1\nb = torch.ones(3, requires_grad=True) * 1\ny = a * b\n"
        "y.sum().backward()\ng = (a.grad_fn.name(), b.grad_fn.name())\ny.grad_fn._saved_self"),
    "backward twice through saved inputs needs retain_graph": (
        "a = torch.ones(3, requires_grad=True)\nb = torch.full((3,), 2., requires_grad=True)\n"
        "s = (a * b).relu().sum()\ns.backward(retain_graph=True)\ns.backward()\ngrads = (a.grad, b.grad)\n"
        "s = (a * b).sum()\ns.backward()\ns.backward()"),
    "a freed saved input takes no hooks": (
        "a = torch.ones(3, requires_grad=True) * 1\ny = a * a\ny.sum().backward()\n"
        "raw = y.grad_fn._raw_saved_self\nraw.register_hooks(lambda t: t, lambda t: t)"),
    "hooks on one saved input, the other kept as saved": (
        "a = torch.ones(3, requires_grad=True) * 1\nb = torch.full((3,), 2., requires_grad=True) * 1\ny = a * b\n"
        "y.grad_fn._raw_saved_other.register_hooks(lambda t: t * 3, lambda t: t)\nb.add_(1)\n"
        "y.sum().backward(inputs=[a])\ng = a.grad"),
    "a saved result is freed by backward": (
        "a = torch.ones(3, requires_grad=True) * 1\nr = a.relu()\nr.sum().backward()\nr.grad_fn._saved_result"),
    "a saved result read by a recorded backward carries its node": (
        "a = torch.tensor([0.5, -1., 2.], requires_grad=True)\ns = a.sigmoid()\nr = (a * 1).relu()\n"
        "(g,) = torch.autograd.grad((s * r).sum(), a, create_graph=True)\ng.sum().backward()\nsecond = a.grad"),
    "a saved result read by several backwards, then changed in place": (
        "a = torch.tensor([0.5, -1., 2.], requires_grad=True)\ns = a.sigmoid()\ns.sum().backward(retain_graph=True)\n"
        "(g,) = torch.autograd.grad((s * s).sum(), a, create_graph=True, retain_graph=True)\ng.sum().backward()\n"
        "s.sum().backward(retain_graph=True)\ngrads = (g, a.grad)\ns.mul_(2)\ns.sum().backward()"),
    "an inference tensor cannot be saved": (
        "a = torch.ones(3, requires_grad=True) * 1\nwith torch.inference_mode():\n    c = torch.ones(3)\n"
        "y = a + c\nz = a * c"),
    "inference mode records nothing, even under enable_grad": (
        "x = torch.ones(2, requires_grad=True)\ny = x * 2\nwith torch.inference_mode():\n    with torch.enable_grad():\n"
        "        a = x * 1\n        b = y.sin()\n        c = x + x\n"
        "        inside = (a.grad_fn, b.grad_fn, c.grad_fn, a.requires_grad, a.is_inference(),\n"
        "                  torch.is_grad_enabled(), torch.is_inference_mode_enabled())\n"
        "        try:\n            x.numpy()\n        except RuntimeError as e:\n            refused = str(e)\n"
        "    with torch.inference_mode(False):\n        d = x * 1\n    after = (d.grad_fn.name(), torch.is_grad_enabled())\n"
        "with torch.enable_grad():\n    with torch.inference_mode():\n        e = x * 1\n"
        "        flags = (e.grad_fn, e.requires_grad, torch.is_grad_enabled())\n        with torch.no_grad():\n"
        "            pass\n        still = torch.is_grad_enabled()\nback = (torch.is_grad_enabled(), (x * 1).grad_fn.name())"),
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
    expected, got = torch_and_engine(code)
    assert got == expected


def test_the_graph_pane_reads_saves_kept_raw_as_saved_tensors():
    """What an op keeps raw until asked (its inputs, its result) reads as SavedTensors do: fields in
    pack order, versions at save time and now, outputs marked, and freed after backward."""
    from engine.inspect import saved_tensors

    a = engine.ones(3, requires_grad=True) * 1
    b = engine.full((3,), 2.0, requires_grad=True) * 1
    y = a * b
    r = (a * 1).relu()
    b.add_(1)
    assert [(s.field, s.saved_version, s.current_version, s.is_output, s.stale) for s in saved_tensors(y.grad_fn)] \
        == [("other", 0, 1, False, True), ("self", 0, 0, False, False)]
    assert [(s.field, s.is_output, s.shape, s.released) for s in saved_tensors(r.grad_fn)] == \
        [("result", True, (3,), False)]
    r.sum().backward()
    assert [(s.field, s.released, s.tensor) for s in saved_tensors(r.grad_fn)] == [("result", True, None)]


def test_a_freed_node_read_afterwards_shows_its_saves_released():
    a = engine.ones(3, requires_grad=True) * 1
    y = a * a
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = y.grad_fn._saved_self
    assert [s.released for _, s in y.grad_fn.saved_entries()] == [True, True]
    r = (engine.ones(3, requires_grad=True) * 1).relu()
    r.sum().backward()
    assert [(field, s.is_output, s.released, s.data) for field, s in r.grad_fn.saved_entries()] == \
        [("result", True, True, None)]


def _general_adopt_recorded(name, result, dtype, inputs, save=None, values=None, save_result=None, stride=None):
    """adopt_recorded as it was before its own node building: the result adopted, the node recorded
    by _attach_to_result."""
    from engine.ops import core

    return core._attach_general(name, Tensor._adopt(result, dtype, stride), inputs, save, save_result, values)


def _recorded(tensor):
    """Everything a result's node keeps as recording left it, comparable across two runs: its class,
    edges (by the class of the node they reach), output meta, values, raw saves (an input by its
    values and version, the result's layout by its fields), and the result's own bytes."""
    node = tensor._fn

    def plain(item):
        if isinstance(item, Tensor):
            return ("tensor", item._numpy_view().tobytes(), item._shape, item._stride, item._offset)
        if isinstance(item, Storage):
            return ("storage", item.nbytes, item.device, bytes(item.data))
        if isinstance(item, np.ndarray):
            return ("array", item.shape, item.strides, item.tobytes())
        if isinstance(item, VersionCounter):
            return ("version", item.value)
        if isinstance(item, tuple | list):
            return type(item)(plain(i) for i in item)
        if isinstance(item, Node):
            return ("node", type(item).__name__)
        if isinstance(item, SavedTensor):  # under hooks: what was packed, and when
            return ("saved", item.version, item.is_output, item.released, plain(item.packed))
        return item

    slots = [s for s in Node.__slots__ if s not in ("__weakref__", "sequence_nr")]
    return (type(node), {slot: plain(getattr(node, slot)) for slot in slots},
            tensor._numpy_view().tobytes(), tensor._shape, tensor._stride, tensor._offset)


ONE_STEP = {
    "a + b": lambda a, b, leaf, view: a + b, "a - b": lambda a, b, leaf, view: a - b,
    "a * b": lambda a, b, leaf, view: a * b, "a / b": lambda a, b, leaf, view: a / b,
    "a + 2": lambda a, b, leaf, view: a + 2, "a * 2.5": lambda a, b, leaf, view: a * 2.5,
    "b - 1": lambda a, b, leaf, view: b - 1, "a.relu()": lambda a, b, leaf, view: a.relu(),
    "a.sigmoid()": lambda a, b, leaf, view: a.sigmoid(), "a.sum()": lambda a, b, leaf, view: a.sum(),
    "a.mean()": lambda a, b, leaf, view: a.mean(), "leaf + a": lambda a, b, leaf, view: leaf + a,
    "leaf * a": lambda a, b, leaf, view: leaf * a, "a * leaf": lambda a, b, leaf, view: a * leaf,
    "leaf.relu()": lambda a, b, leaf, view: leaf.relu(), "view + a[0]": lambda a, b, leaf, view: view + a[0],
    "view.relu()": lambda a, b, leaf, view: view.relu(), "view.sum()": lambda a, b, leaf, view: view.sum(),
}


@pytest.mark.parametrize("op", list(ONE_STEP.values()), ids=list(ONE_STEP))
def test_a_result_recorded_in_one_step_keeps_what_the_general_path_keeps(op, monkeypatch):
    """adopt_recorded builds the commonest nodes itself (inputs that are results of ops): the node,
    its edges, its raw saves and the result are the general path's, field for field, byte for byte;
    leaves, views and saves under saved-tensor hooks take the general path."""
    from engine.ops import pointwise, reduction

    def run():
        leaf = engine.tensor([[0.5, -1.0, 2.0, -0.0], [3.0, 4.0, -5.0, 6.0]], requires_grad=True)
        operands = (leaf * 1, leaf + 1, leaf, (leaf * 1)[1])
        with engine.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            under_hooks = op(*operands)
        return _recorded(op(*operands)), _recorded(under_hooks)

    in_one_step = run()
    for module in (pointwise, reduction):
        monkeypatch.setattr(module, "adopt_recorded", _general_adopt_recorded)
    assert run() == in_one_step


def test_every_way_of_recording_sets_every_field_of_its_node():
    """new_node, adopt_recorded and _attach_to_result each set a node's fields themselves (no
    constructor call): none of them leaves a field unset, whichever node class they make."""
    leaf = engine.ones(2, 3, requires_grad=True)
    a = leaf * 1  # adopt_recorded, one step
    made = {
        "adopt_recorded": a, "adopt_recorded, general": leaf + a, "a view (_attach_to_result)": a.t(),
        "wrap_result (_attach_to_result)": a.exp(), "in place (new_node)": (leaf * 1).mul_(2),
        "a view chain (new_node)": a[1:, ::2], "several outputs": a.split(1)[0],
    }
    fields = [s for s in Node.__slots__ if s != "__weakref__"]
    for how, tensor in made.items():
        node = tensor.grad_fn
        unset = [f for f in fields if not hasattr(node, f)]
        assert not unset, (how, type(node).__name__, unset)


def test_a_leaf_whose_accumulator_died_gets_a_new_one_as_gradient_edge_makes_it():
    """A training step's leaves outlive each graph, and so their AccumulateGrad (held weakly): the
    next op makes a new one in edge_of itself. It is the one _gradient_edge would make, field for
    field: the leaf, the next accumulator order, the leaf's weak reference, the same graph."""
    from engine.ops.core import edge_of

    def fresh_accumulator(make):
        leaf = engine.ones(2, 2, requires_grad=True)
        (leaf * 2).sum().backward()  # its graph, and the accumulator, are gone after the step
        assert leaf._accumulator is not None and leaf._accumulator() is None
        acc, nr = make(leaf)
        return leaf, acc, nr

    leaf, inline, nr = fresh_accumulator(edge_of)
    assert type(inline).__name__ == "AccumulateGrad" and nr == 0
    assert inline.variable is leaf and leaf._accumulator() is inline and edge_of(leaf) == (inline, 0)
    other_leaf, general, _ = fresh_accumulator(lambda t: t._gradient_edge())
    assert general.order > inline.order  # taken from the same counter, in turn
    by_constructor = AccumulateGrad(other_leaf)
    assert by_constructor.order > general.order
    fields = [s for s in Node.__slots__ if s != "__weakref__"]
    for made in (inline, general):
        assert [getattr(made, f) for f in fields] == [getattr(by_constructor, f) for f in fields]
        assert type(made) is AccumulateGrad and made.name() == by_constructor.name()
    y = leaf * other_leaf
    assert y.grad_fn.next_functions == ((inline, 0), (general, 0))
    y.sum().backward()
    assert leaf.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]] and other_leaf.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_a_view_s_metadata_is_what_its_constructor_would_make():
    """_mark_view sets a view's ViewInfo fields itself (no constructor call): every field is set, to
    what ViewInfo(base, creation_meta, attr_version, op_name, output_nr) would hold."""
    from engine.tensor import ViewInfo

    base = engine.ones(4, 4, requires_grad=True) * 1
    base.add_(1)
    with engine.no_grad():
        no_grad_view = base[1:]
    views = {"default": base.t(), "multi-output": base.split(2)[1], "no_grad": no_grad_view,
             "a view of a no_grad view": no_grad_view[0]}
    for how, view in views.items():
        info = view._view
        built = ViewInfo(info.base, info.creation_meta, info.attr_version, info.op_name, info.output_nr)
        assert [getattr(info, f) for f in ViewInfo.__slots__] == [getattr(built, f) for f in ViewInfo.__slots__], how
        assert info.base is base and info.attr_version == base._version, how
