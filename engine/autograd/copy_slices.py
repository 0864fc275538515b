"""CopySlices: the base's history after an in-place op on one of its views, as PyTorch builds it.

The in-place op's own node (`fn`) computed its gradient for the view; CopySlices places that into
the gradient of the whole base: a copy of the incoming gradient laid out as the base, the view's
window of it handed to `fn`, and `fn`'s result written back into that window. Written in engine ops,
so create_graph records it (CopyBackwards, AsStridedBackward0, CopySlices) exactly as torch does.
The node keeps its state in its values (`_fn`, the base's and the view's layouts), so a dialect can
re-class it under its own name like any other node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import errors
from engine.autograd.derivatives import rule
from engine.autograd.node import Edge, Node, _QualifiedNode, register_node


def copy_slices_backward(fn: Node | None, base_layout: Any, view_layout: Any, grad: Any,
                         mask: tuple[bool, ...]) -> list[Any]:
    from engine.ops.backward_ops import new_empty_strided

    count = len(mask)
    if grad is None:
        return [None] * count
    if fn is None:
        raise RuntimeError(errors.BACKWARD_TWICE)
    base_shape, base_stride, base_offset = base_layout
    view_shape, view_stride, view_offset = view_layout
    result = new_empty_strided(grad, base_shape, base_stride)
    result.copy_(grad)
    if result.dtype.is_complex and not fn.output_meta[0][1].is_complex:
        # a real view of complex memory (view_as_real, .real): its window of the (real, imag) pairs
        from engine.ops.complex_ops import view_as_real

        grad_slice = view_as_real(result).as_strided(view_shape, view_stride, view_offset - 2 * base_offset)
    else:
        grad_slice = result.as_strided(view_shape, view_stride, view_offset - base_offset)
    # fn computes the view's gradient only where its own edge leads somewhere (torch's
    # should_compute_output): a view of a base that did not require grad gets none, which counts as zeros
    res = fn.apply([grad_slice.clone(memory_format="contiguous_format")], (fn.next_functions[0][0] is not None,
                                                                         *mask[1:]))
    out: list[Any] = [None] * count
    for i in range(count):
        value = res[i] if i < len(res) else None
        if not mask[i]:
            continue
        if i == 0:
            if value is None:
                grad_slice.zero_()
            else:
                grad_slice.copy_(value)
            out[0] = result
        elif value is not None:
            out[i] = value
    return out


def _formula(c: Any, grad: Any) -> list[Any]:
    return copy_slices_backward(c._fn, c._base_layout, c._view_layout, grad, c.grad_input_mask)


@register_node
class CopySlices(_QualifiedNode):
    """Gradient of a base whose view `fn` modified in place."""

    __slots__ = ()

    def __init__(self, base: Any, view: Any, fn: Node, base_edge: Edge) -> None:
        super().__init__(None, (base_edge, *fn.next_functions[1:]), ((base._shape, base.dtype, base._storage.device),))
        self._values = {"_fn": fn, "_base_layout": base._layout_key(), "_view_layout": view._layout_key()}
        self._saved = fn._saved  # what fn keeps is what the base's history keeps (the explorer shows it)

    def apply(self, grads: list[Any], grad_input_mask: tuple[bool, ...] | None = None) -> Sequence[Any]:
        mask = grad_input_mask or tuple(edge[0] is not None for edge in self.next_functions)
        values = self._values
        return copy_slices_backward(values["_fn"], values["_base_layout"], values["_view_layout"], grads[0], mask)

    def _lookup_saved(self, field: str) -> Any:
        raise AttributeError(f"'CopySlices' object has no attribute '_saved_{field}'")

    def release(self) -> None:
        fn = self._values["_fn"]
        if fn is not None:
            fn.release()
        self._values["_fn"] = None


CopySlices.formula = rule("self", _formula)  # what a re-classed CopySlices runs
