"""Paddle's autograd rules over the engine's graph.

The engine records the graph (nodes with backward closures, SavedTensors with the version they saw)
exactly as for PyTorch; this module gives it Paddle's face and Paddle's rules:

- node names: every node an op records is re-classed to a PaddleNode subclass named as Paddle names
  it (`ScaleGradNode`, `SigmoidGradNode`...); a leaf's AccumulateGrad becomes `GradNodeAccumulation`;
- what is saved: Paddle keeps some tensors PyTorch does not (`multiply` keeps both operands, `divide`
  its output too), so a later in-place change breaks backward in more places (`save_also`);
- the errors: a stale saved tensor raises Paddle's `(PermissionDenied)` RuntimeError; a node that
  ran in a backward without retain_graph raises `(Fatal) ... TensorWrappers ... do not exist`
  (SystemError) when reached again, even if it saved nothing;
- `grad_fn` is a GradNode handle whose `next_functions` is a list of handles (None for inputs that
  stop gradient) and whose `name()` is the node's name.
"""

from __future__ import annotations

import weakref
from typing import Any

from engine import autograd as engine_autograd
from engine.autograd.node import AccumulateGrad, Node, saved_input, saved_output
from engine.paddle import messages

_cleared: weakref.WeakSet[Node] = weakref.WeakSet()  # ran in a backward that did not retain the graph


class PaddleNode(Node):
    """An engine node under a Paddle name, checking versions and clearing as Paddle does."""

    __slots__ = ()
    _checks_shapes = False  # a leaf reshaped in place takes whatever shape the node computes (not summable to its edge)

    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: list[Any], grad_input_mask: Any = None) -> Any:
        if self in _cleared:
            raise SystemError(messages.BACKWARD_TWICE.format(node=self.name()))
        for _, saved in self._saved:
            tensor = saved.tensor
            if tensor is not None and tensor._version != saved.version:
                raise RuntimeError(messages.INPLACE_MODIFIED.format(current=tensor._version, expected=saved.version))
        return super().apply(grads, grad_input_mask)

    def release(self) -> None:
        super().release()
        _cleared.add(self)


class GradNodeAccumulation(AccumulateGrad):
    """A leaf's gradient sink."""

    __slots__ = ()

    def name(self) -> str:
        return "GradNodeAccumulation"


_node_types: dict[str, type[PaddleNode]] = {}


def node_type(name: str) -> type[PaddleNode]:
    cls = _node_types.get(name)
    if cls is None:
        cls = _node_types[name] = type(name, (PaddleNode,), {"__slots__": ()})
    return cls


def adopt(node: Node | None, name: str, tensor_inputs: int | None = None) -> None:
    """Give a node the engine just recorded its Paddle name, and its leaves' sinks theirs.

    `tensor_inputs`: how many leading inputs are tensors, where the engine also made an edge for a
    Python scalar operand (`x * 2`); Paddle's node has edges for tensors only."""
    if node is None or isinstance(node, PaddleNode):
        return
    node.__class__ = node_type(name)
    if tensor_inputs is not None:
        node.next_functions = node.next_functions[:tensor_inputs]
    for child, _ in node.next_functions:
        if type(child) is AccumulateGrad:
            child.__class__ = GradNodeAccumulation


def save_also(node: Node | None, inputs: dict[str, Any] | None = None, outputs: dict[str, Any] | None = None) -> None:
    """Keep tensors Paddle's node keeps and PyTorch's does not (versions taken now)."""
    if node is None:
        return
    have = {field for field, _ in node._saved}
    extra = [(f, saved_input(t)) for f, t in (inputs or {}).items() if f not in have]
    extra += [(f, saved_output(t)) for f, t in (outputs or {}).items() if f not in have]
    node._saved = (*node._saved, *extra)


# ---------------------------------------------------------------------- grad_fn handles
class GradNode:
    """What `tensor.grad_fn` returns (paddle.base.libpaddle.GradNodeBase): one handle per node."""

    __slots__ = ("__weakref__", "_node")

    def __init__(self, node: Node) -> None:
        self._node = node

    def name(self) -> str:
        return self._node.name()

    @property
    def next_functions(self) -> list[GradNode | None]:
        if isinstance(self._node, AccumulateGrad):
            return [None]
        return [handle(child) for child, _ in self._node.next_functions]

    def __repr__(self) -> str:
        return f"<paddle.base.libpaddle.GradNodeBase object at {hex(id(self))}>"


_handles: weakref.WeakValueDictionary[int, GradNode] = weakref.WeakValueDictionary()


def handle(node: Node | None) -> GradNode | None:
    """The handle of a node: the same object while anyone holds it, as pybind gives Paddle's."""
    if node is None:
        return None
    if type(node) is AccumulateGrad:
        node.__class__ = GradNodeAccumulation
    found = _handles.get(id(node))
    if found is None or found._node is not node:
        found = _handles[id(node)] = GradNode(node)
    return found


def accumulation_node(t: Any) -> GradNodeAccumulation:
    """A leaf's GradNodeAccumulation (the engine keeps only a weak reference to its sink)."""
    acc = t._accumulator() if t._accumulator is not None else None
    if acc is None:
        acc = GradNodeAccumulation(t)
        t._accumulator = weakref.ref(acc)
    elif type(acc) is AccumulateGrad:
        acc.__class__ = GradNodeAccumulation
    return acc


# ---------------------------------------------------------------------- backward
def backward(tensor: Any, grad_tensor: Any = None, retain_graph: bool = False) -> None:
    """Paddle's Tensor.backward: a no-op on a tensor that stops gradient, ones for a non-scalar."""
    from engine.paddle.tensor import Tensor

    if grad_tensor is not None:
        if not isinstance(grad_tensor, Tensor):
            raise AssertionError("The type of grad_tensor must be paddle.Tensor")
        if list(grad_tensor.shape) != list(tensor.shape):
            raise AssertionError(f"Tensor shape not match, Tensor of grad_tensor [ {grad_tensor.name} ] with shape "
                                 f"{grad_tensor.shape!r} mismatch Tensor [ {tensor.name} ] with shape {tensor.shape!r}")
    if tensor.stop_gradient:
        return
    root = tensor._t
    if grad_tensor is None and root.numel() != 1:
        from engine.ops.factories import ones_like

        grad = ones_like(root)
    else:
        grad = grad_tensor._t if isinstance(grad_tensor, Tensor) else grad_tensor
    zeroed = _set_aside_cleared_grads(root)
    engine_autograd.backward([root], [grad], retain_graph=retain_graph)
    for variable, kept in zeroed:
        if variable._grad is None:  # backward gave it nothing: the zeros stay, still "empty"
            variable._grad = kept
        else:
            variable.__dict__.pop(CLEARED, None)
    _settle_grads(root)


CLEARED = "_paddle_grad_cleared"  # a leaf's gradient zero-filled by clear_grad(): "fake empty"


def _set_aside_cleared_grads(root: Any) -> list[tuple[Any, Any]]:
    """clear_grad() zero-fills a leaf's gradient and marks its GradNodeAccumulation "fake empty":
    the next backward does not add into the zeros but gives the leaf the new gradient's buffer
    (measured: a tensor taken from `.grad` before keeps the zeros). The zeroed gradients of the
    leaves this backward reaches are set aside so the engine starts them afresh."""
    from engine import inspect

    zeroed = []
    for info in inspect.graph([root]):
        variable = info.variable
        if variable is not None and variable.__dict__.get(CLEARED) and variable._grad is not None:
            zeroed.append((variable, variable._grad))
            variable._grad = None
    return zeroed


def _settle_grads(root: Any) -> None:
    """Paddle's gradients stop no gradient themselves and report version 0 however they were summed."""
    from engine import inspect

    for info in inspect.graph([root]):
        variable = info.variable
        if variable is not None and variable._grad is not None:
            variable._grad._counter().value = 0
            variable._grad._requires_grad = True
    if root._grad_fn is None and root._grad is not None:
        root._grad._counter().value = 0
        root._grad._requires_grad = True
