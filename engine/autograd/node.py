"""Graph nodes: what an op records so backward can run, and the tensors it saved for that.

A Node holds the op's backward closure (written beside the op's forward in engine/ops), its edges to
the nodes of its inputs (`next_functions`), and SavedTensors that remember the version they were
saved at. Node classes carry PyTorch's names, so `type(t.grad_fn).__name__` reads `MulBackward0`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import errors
from engine.autograd import graph

Edge = tuple["Node | None", int]
Backward = Callable[..., Sequence[np.ndarray | None]]
_sequence = itertools.count()


class SavedTensor:
    """A tensor an op keeps for backward, checked against in-place changes when unpacked.

    An op's own output is saved as an alias without grad_fn (as PyTorch does, to avoid a cycle), and
    an error about it names the op that saved it (or, for an in-place op on a view, the view's node
    after the rebase: `view_grad_fn`); a saved input names its grad_fn at backward time.
    """

    __slots__ = ("hooks", "is_output", "packed", "released", "tensor", "version", "view_grad_fn")

    def __init__(self, tensor: Any, is_output: bool) -> None:
        if tensor._storage.inference:
            raise RuntimeError(errors.INFERENCE_SAVED)
        self.version = tensor._vc.value
        self.is_output = is_output
        self.tensor = tensor._alias() if is_output else tensor
        self.released = False
        self.view_grad_fn: Node | None = None
        self.hooks = graph._active[-1] if graph._active else None
        self.packed = self.hooks[0](self.tensor) if self.hooks else None
        if self.hooks is not None:
            self.tensor = None  # as in PyTorch, only what the pack hook returned is kept

    def unpack(self, owner: Node) -> Any:
        if self.released:
            raise RuntimeError(errors.BACKWARD_TWICE)
        if self.hooks is not None:  # hooked tensors are not version-checked, exactly as in PyTorch
            return self.hooks[1](self.packed)
        tensor = self.tensor
        current = tensor._vc.value
        if current != self.version:
            raise RuntimeError(errors.VERSION_MISMATCH.format(core=self._mismatch_core(owner, current)))
        return tensor

    def _mismatch_core(self, owner: Node, current: int) -> str:
        tensor = self.tensor
        producer = (self.view_grad_fn or owner) if self.is_output else tensor._grad_fn_for_message()
        named = f", which is output 0 of {producer.forward_op_name()}," if producer is not None else ""
        return (
            f"[{tensor.dtype.message_name} {errors.shape_text(tensor.shape)}]{named} is at version "
            f"{current}; expected version {self.version} instead"
        )

    def release(self) -> None:
        self.released = True
        self.tensor = None
        self.packed = None


class Node:
    """One recorded op. Subclasses exist only to carry PyTorch's node names."""

    __slots__ = ("__weakref__", "_backward", "_retained", "_saved", "_saved_values", "next_functions",
                 "output_meta", "sequence_nr")

    def __init__(self, backward: Backward | None, next_functions: tuple[Edge, ...],
                 output_meta: tuple[tuple[tuple[int, ...], np.dtype], ...]) -> None:
        self._backward = backward
        self.next_functions = next_functions
        self.output_meta = output_meta
        self._saved: tuple[tuple[str, SavedTensor], ...] = ()
        self._retained: dict[int, Any] | None = None
        self._saved_values: dict[str, Any] = {}
        self.sequence_nr = next(_sequence)

    def name(self) -> str:
        return type(self).__name__

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Graph nodes cannot be pickled or copied, as in PyTorch (`copy.deepcopy(y.grad_fn)`,
        or a node inside an optimizer's loaded param_groups)."""
        raise TypeError(f"cannot pickle '{type(self).__name__}' object")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def forward_op_name(self) -> str:
        """How the version-mismatch message names this node: `Mul`, `Pow1`, `MyFn` (a custom
        Function's `MyFnBackward`), `torch::autograd::CopySlices`."""
        name = type(self).__name__
        head, sep, digits = name.rpartition("Backward")
        if sep and (digits.isdigit() or not digits):
            return head if digits in ("0", "") else head + digits
        return self.name()

    def save(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Keep tensors for backward, in PyTorch's pack order (inputs as given, then outputs)."""
        self._saved = tuple(
            [(field, SavedTensor(t, False)) for field, t in inputs.items()]
            + [(field, SavedTensor(t, True)) for field, t in outputs.items()]
        )

    def saved_tensors(self) -> list[tuple[str, SavedTensor]]:
        """What this node keeps alive: inspection for the explorer's graph pane."""
        return list(self._saved)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_saved_"):
            if attr[7:] in self._saved_values:
                return self._saved_values[attr[7:]]
            for field, saved in self._saved:
                if field == attr[7:]:
                    if saved.released:
                        raise RuntimeError(errors.BACKWARD_TWICE)
                    return saved.unpack(self) if saved.hooks is not None else saved.tensor
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def apply(self, grads: list[np.ndarray | None]) -> Sequence[np.ndarray | None]:
        """Gradients for each next_function from the gradients of this node's outputs."""
        saved = {field: s.unpack(self)._numpy_view() for field, s in self._saved}
        if len(self.output_meta) == 1:
            return self._backward(grads[0], saved)
        filled = [g if g is not None else np.zeros(shape, dt) for g, (shape, dt) in zip(grads, self.output_meta)]
        return self._backward(filled, saved)

    def release(self) -> None:
        for _, saved in self._saved:
            saved.release()

    def register_hook(self, fn: Callable[..., Any]) -> None:
        raise RuntimeError("hooks on graph nodes are not supported by this engine")


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming gradients into `leaf.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        super().__init__(None, (), ((variable.shape, variable.dtype.np),))
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads: list[np.ndarray | None]) -> Sequence[np.ndarray | None]:
        if grads[0] is not None:
            self.variable._accumulate_grad(grads[0], 1)
        return ()


class _QualifiedNode(Node):
    """Nodes PyTorch implements by hand: name() is qualified, the type name is not."""

    __slots__ = ()

    def name(self) -> str:
        return "torch::autograd::" + type(self).__name__


_node_types: dict[str, type[Node]] = {}
_QUALIFIED = {"CopySlices", "CopyBackwards", "AccumulateGrad", "Error", "NotImplemented"}


def node_type(name: str) -> type[Node]:
    """The Node subclass named `name` (created once)."""
    cls = _node_types.get(name)
    if cls is None:
        base = _QualifiedNode if name in _QUALIFIED else Node
        cls = _node_types[name] = type(name, (base,), {"__slots__": ()})
    return cls
