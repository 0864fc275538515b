"""The derivative table: for every node class an op records, what it saves and how it differentiates.

This is the engine's derivatives.yaml. Each op family has one module here (pointwise, reduction,
linalg, views, indexing, selection, copying, nn, complex, recurrent; and for the ops added later,
products, order_statistics, statistics, fold) holding a dict `DERIVATIVES` from PyTorch's node class name to
a `rule`:

    "MulBackward0": rule(
        "self, other",                          # the node's inputs = its next_functions, in order
        saves="other, self",                    # tensors it keeps: grad_fn._saved_other / _saved_self
        self=lambda c, grad: grad * c.other,    # one formula per input, as derivatives.yaml has them
        other=lambda c, grad: grad * c.self,
    ),

- A formula receives `c`, the node's context (its saved tensors, unpacked and version-checked, and
  its saved values, by field name) and `grad`, the gradient of the node's output (for a node with
  several differentiable outputs: the list `grads`). It returns that input's gradient, or None.
- A formula is written in engine ops, never raw numpy: when backward runs with create_graph=True
  the formula's ops record the graph of the gradient itself (double backward), and what they
  allocate is counted by the allocator like any tensor. Where PyTorch calls a dedicated backward op
  (`threshold_backward`, `select_backward`, `convolution_backward`...), the formula calls the engine
  op of that name (engine/ops/backward_ops.py), whose own node (`ThresholdBackwardBackward0`) has its
  own rule here, next to the op it differentiates.
- One formula can also produce several inputs' gradients at once: pass it positionally after the
  inputs, returning one entry per input (`rule("input, weight, bias", conv_grads, ...)`).
- `saves` may map each field to the inputs whose formulas read it (`saves={"other": "self",
  "self": "other"}`): the field is then kept only when one of those inputs has an edge (its gradient
  goes somewhere), which is what PyTorch's generated code does (`x * c` with c not requiring grad
  keeps only c, and `x * v` with v a view made under no_grad, which requires grad but has no edge,
  keeps only v).
- `keeps` names the non-tensor fields the node keeps (`grad_fn._saved_dim`): the op passes them to
  `record(..., values={...})`; a value whose key starts with `_` is kept for the formula but not
  shown.
- `lists` names saved fields that hold a list of tensors (IndexBackward0's `indices`).
- `grads_list=True` gives the formulas the list of output gradients even when the node has one
  output (unbind and split make as many outputs as their input has slices, possibly one).
- `direct`, for the few nodes nearly every backward runs (sum, add, mul, sigmoid), is the same
  formulas written out for a plain first-order pass: `direct(node, grad, grad_input_mask)` reads the
  node's raw saves and values itself, runs the formulas' own ops in the formulas' order, and
  returns the gradients, or None to leave the node to the formulas (a save turned SavedTensor, a
  value missing, a dialect's trimmed edges). The engine calls it only when no graph is recorded;
  building the Context and calling each formula costs more than such a node's arithmetic.

Only an input's formula runs, and only when that input needs a gradient (`c.needs(i)`,
`c.grad_input_mask`), as in PyTorch's generated code; the formulas run in the alphabetical order of
the input names (`other` before `self`), which is the order PyTorch's generated code computes them
in, so create_graph records (and numbers) the gradient's nodes as PyTorch does.

Adding an op: its forward records its node with `engine.ops.core.record(name, outputs, inputs,
save=..., save_outputs=..., values=...)` (or `apply_inplace` for an in-place op, which records the same
node class as the out-of-place op, keeping a copy of `self` if a formula reads it); put the node's
rule in its family's DERIVATIVES (field names and node names as derivatives.yaml and the node's
`_saved_*` attributes in torch have them); add a sample to tests/engine/test_derivative_table.py,
which compares the op's first and second derivatives with torch and fails for a rule no sample
reaches. Every node class a torch op records is in the table (engine.autograd.derivatives.recurrent's fused
LSTM keeps its numpy kernel for a plain backward and switches to engine ops under create_graph, as
torch does); only the Paddle dialect's own nodes and checkpoint's still carry a numpy closure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.autograd.node import Context, node_type, unpack_raw

Formula = Callable[[Any, Any], Any]
Direct = Callable[[Any, Any, tuple[bool, ...]], "list[Any] | None"]


class Rule:
    """One node class's entry: its inputs, saved fields and gradient formulas."""

    __slots__ = ("context", "direct", "formulas", "grads_list", "inputs", "joint", "lists", "order", "save_when",
                 "saves", "steps", "unsaved", "values")

    def __init__(self, inputs: tuple[str, ...], joint: Formula | None, formulas: dict[str, Formula | None],
                 saves: dict[str, tuple[str, ...]], values: tuple[str, ...], lists: tuple[str, ...],
                 grads_list: bool = False, direct: Direct | None = None) -> None:
        unknown = set(formulas) - set(inputs)
        if unknown:
            raise ValueError(f"formulas for inputs the node does not have: {sorted(unknown)}")
        self.inputs = inputs
        self.joint = joint
        self.formulas = tuple(formulas.get(name) for name in inputs)
        # torch's generated code computes the inputs' gradients in the alphabetical order of their names
        # (`other` before `self`): that order decides which node create_graph records first
        self.order = tuple(sorted(range(len(inputs)), key=lambda i: inputs[i]))
        self.saves = tuple(saves)
        self.save_when = {field: tuple(inputs.index(r) for r in readers) for field, readers in saves.items() if readers}
        self.values = values
        self.lists = lists
        self.unsaved = {field: None for field in self.saves if field not in lists}
        # the formulas that exist, in the order they run: what `run` walks for every node of this class
        self.steps = tuple((i, self.formulas[i]) for i in self.order if self.formulas[i] is not None)
        # a node's context class: a field the op did not keep reads as None from the class (a list field
        # is always filled per node), so a node's context holds only what the node saved
        self.context = type("Context", (Context,), {"__slots__": (), **self.unsaved}) if self.unsaved else Context
        self.grads_list = grads_list  # the formulas take the list of output gradients, even of one output
        self.direct = direct

    def run(self, node: Any, grads: list[Any], grad_input_mask: tuple[bool, ...]) -> list[Any]:
        """A node's gradients, one per input in a new list the caller may consume (None where an input
        needs none or has no formula). The formulas read one Context: the node's saved tensors, all
        unpacked (so version-checked) before any formula runs, as torch's generated code does, and its
        saved values; a field the op did not keep reads as None from the rule's Context class."""
        attrs: dict[str, Any] = {"grad_input_mask": grad_input_mask}
        saves = node._saves
        if node._raw is not None and not unpack_raw(node, attrs):
            saves = node._saved  # as SavedTensors, whose unpack raises torch's error
        lists = self.lists
        if lists:
            for field in lists:
                attrs[field] = []
            for field, saved in saves:
                if field in lists:
                    attrs[field].append(saved.unpack(node, True))
                else:
                    attrs[field] = saved.unpack(node, True)
        else:
            for field, saved in saves:
                attrs[field] = saved.unpack(node, True)
        values = node._values
        if values:
            attrs.update(values)
        ctx = object.__new__(self.context)  # Context's fields as one dict, built without its __init__
        ctx.__dict__ = attrs
        grad = grads if len(node.output_meta) > 1 or self.grads_list else grads[0]
        if self.joint is not None:
            return list(self.joint(ctx, grad))
        count = len(self.formulas)
        if len(grad_input_mask) < count:  # one flag per edge (a dialect may have dropped trailing ones)
            count = len(grad_input_mask)
        out: list[Any] = [None] * count
        for i, formula in self.steps:
            if i < count and grad_input_mask[i]:
                out[i] = formula(ctx, grad)
        return out


def _names(spec: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(spec, str):
        return tuple(name.strip() for name in spec.split(",") if name.strip())
    return tuple(spec)


def _saves(spec: str | Sequence[str] | dict[str, str]) -> dict[str, tuple[str, ...]]:
    if isinstance(spec, dict):
        return {field: _names(readers) for field, readers in spec.items()}
    return {field: () for field in _names(spec)}


def rule(inputs: str | Sequence[str], joint: Formula | None = None, /, *,
         saves: str | Sequence[str] | dict[str, str] = (), keeps: str | Sequence[str] = (),
         lists: str | Sequence[str] = (), grads_list: bool = False, direct: Direct | None = None,
         **formulas: Formula | None) -> Rule:
    """A derivative-table entry (see the module docstring)."""
    return Rule(_names(inputs), joint, formulas, _saves(saves), _names(keeps), _names(lists), grads_list, direct)


def install(table: dict[str, Rule]) -> None:
    """Give each named node class its rule."""
    for name, entry in table.items():
        node_type(name).formula = entry


def _install_all() -> None:
    from engine.autograd.derivatives import (
        complex,
        copying,
        fold,
        indexing,
        linalg,
        nn,
        order_statistics,
        pointwise,
        products,
        recurrent,
        reduction,
        selection,
        statistics,
        views,
    )

    for family in (pointwise, reduction, linalg, views, indexing, selection, copying, nn, complex, recurrent,
                   products, order_statistics, statistics, fold):
        install(family.DERIVATIVES)
