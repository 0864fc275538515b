"""The `*_copy` variants of the view ops (torch.view_copy, torch.diagonal_copy, torch.split_copy...):
the view op's result copied into new contiguous memory, with the view's derivative under the node
name torch gives it (`ViewBackward0_copy`), and `out=`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import geometry
from engine.autograd.node import node_type
from engine.ops import views
from engine.ops.core import edges_of, needs_grad
from engine.ops.pointwise import write_out
from engine.tensor import Tensor


def _dense_copy(view: Tensor) -> Tensor:
    out = Tensor._empty_strided(view._shape, geometry.contiguous_strides(view._shape), view.dtype)
    np.copyto(out._numpy_view(), view._numpy_view())
    return out


def _copy_variant(name: str, view_op: Callable[..., Any], node_name: str | None = None) -> Callable[..., Any]:
    def op(self: Tensor, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        result = view_op(self, *args, **kwargs)
        pieces = (result,) if isinstance(result, Tensor) else tuple(result)
        if out is not None:
            outs = (out,) if isinstance(out, Tensor) else tuple(out)
            if len(outs) != len(pieces):
                raise RuntimeError(f"{name}(): expected {len(pieces)} out tensors, got {len(outs)}")
            for o, p in zip(outs, pieces):
                write_out(o, np.ascontiguousarray(p._numpy_view()), name, (self,))
            return out if isinstance(out, Tensor) else None  # torch's tuple out= variants return None
        copies = tuple(_dense_copy(p) for p in pieces)
        node = pieces[0]._grad_fn
        if node is not None and needs_grad(self):
            copied = node_type(node_name or f"{node.name()}_copy")(node._backward, node.next_functions,
                                                                  node.output_meta)
            copied._rule, copied._values, copied._saved = node._rule, node._values, node._saved  # the view's derivative
            for i, c in enumerate(copies):
                c._set_grad_fn(copied, i)
        return copies[0] if isinstance(result, Tensor) else copies
    op.__name__ = name
    return op


def _not_implemented(name: str) -> Callable[..., Any]:
    def backward(grad: Any, saved: Any) -> Any:
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return backward


def detach_copy(self: Tensor, *, out: Tensor | None = None) -> Tensor:
    """torch records a NotImplemented node on detach_copy's result when self requires grad."""
    if out is not None:
        return write_out(out, np.ascontiguousarray(self._numpy_view()), "detach_copy", (self,))
    copy = _dense_copy(self)
    if needs_grad(self):
        node = node_type("NotImplemented")(_not_implemented("detach_copy"), edges_of([self]),
                                           ((copy._shape, copy.dtype, copy.device),))
        copy._set_grad_fn(node, 0)
    return copy


def _slice(self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    d = geometry.wrap_dim(dim, self.ndim)
    return views.slice_dim(self, d, start, end, step)


def _view_of_size(self: Tensor, size: Sequence[int]) -> Tensor:
    return views.view(self, tuple(size))


def _narrow_copy(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    return views.narrow(self, dim, start, length)


_VARIANTS: dict[str, Callable[..., Any]] = {
    "view_copy": _view_of_size, "diagonal_copy": views.diagonal, "transpose_copy": views.transpose,
    "t_copy": views.t, "permute_copy": views.permute, "unsqueeze_copy": views.unsqueeze,
    "squeeze_copy": views.squeeze, "select_copy": views.select, "slice_copy": _slice, "expand_copy": views.expand,
    "as_strided_copy": views.as_strided, "unbind_copy": views.unbind, "alias_copy": views.alias,
    "unfold_copy": views.unfold, "split_copy": views.split, "split_with_sizes_copy": views.split_with_sizes,
}

FUNCTIONS: dict[str, Callable[..., Any]] = {name: _copy_variant(name, fn) for name, fn in _VARIANTS.items()}
FUNCTIONS["detach_copy"] = detach_copy


_narrow_copy_op = _copy_variant("narrow_copy", _narrow_copy, "NarrowCopyBackward0")


def narrow_copy(self: Tensor, dim: int, start: int, length: int, *, out: Tensor | None = None) -> Tensor:
    """narrow_copy is an op of its own in torch (NarrowCopyBackward0)."""
    return _narrow_copy_op(self, dim, start, length, out=out)


FUNCTIONS["narrow_copy"] = narrow_copy
METHODS = {"narrow_copy": narrow_copy}
