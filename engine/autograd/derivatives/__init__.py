"""The derivative table: for every node class an op records, what it saves and how it differentiates.

This is the engine's derivatives.yaml. Each op family has one module here (pointwise, reduction,
linalg, views, indexing, selection, copying, nn, complex,
recurrent) holding a dict `DERIVATIVES` from PyTorch's node class name to
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

from engine.autograd.node import node_type

Formula = Callable[[Any, Any], Any]


class Rule:
    """One node class's entry: its inputs, saved fields and gradient formulas."""

    __slots__ = ("formulas", "grads_list", "inputs", "joint", "lists", "order", "save_when", "saves", "unsaved",
                 "values")

    def __init__(self, inputs: tuple[str, ...], joint: Formula | None, formulas: dict[str, Formula | None],
                 saves: dict[str, tuple[str, ...]], values: tuple[str, ...], lists: tuple[str, ...],
                 grads_list: bool = False) -> None:
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
        self.grads_list = grads_list  # the formulas take the list of output gradients, even of one output

    def apply(self, ctx: Any, grad: Any) -> Sequence[Any]:
        if self.joint is not None:
            return self.joint(ctx, grad)
        mask = ctx.grad_input_mask  # one flag per edge (a dialect may have dropped trailing ones)
        formulas = self.formulas
        out: list[Any] = [None] * min(len(formulas), len(mask))
        for i in self.order:
            if i < len(out) and mask[i] and formulas[i] is not None:
                out[i] = formulas[i](ctx, grad)
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
         lists: str | Sequence[str] = (), grads_list: bool = False, **formulas: Formula | None) -> Rule:
    """A derivative-table entry (see the module docstring)."""
    return Rule(_names(inputs), joint, formulas, _saves(saves), _names(keeps), _names(lists), grads_list)


def install(table: dict[str, Rule]) -> None:
    """Give each named node class its rule."""
    for name, entry in table.items():
        node_type(name).formula = entry


def _install_all() -> None:
    from engine.autograd.derivatives import (
        complex,
        copying,
        indexing,
        linalg,
        nn,
        pointwise,
        recurrent,
        reduction,
        selection,
        views,
    )

    for family in (pointwise, reduction, linalg, views, indexing, selection, copying, nn, complex, recurrent):
        install(family.DERIVATIVES)
