"""Ops that re-point a tensor at memory: resize_, resize_as_ and set_ (the seed's "either error or
warn" family), and is_set_to. They change the tensor's own layout or storage; a storage too small
for the new layout grows, its new bytes uninitialised, as torch's does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import errors, geometry
from engine.autograd import grad_mode
from engine.autograd.node import node_type
from engine.ops.core import check_inplace_allowed, edges_of, needs_grad, rebase_view
from engine.ops.views import sizes_arg
from engine.storage import Storage, UntypedStorage
from engine.tensor import Tensor


def _storage_bytes(shape: tuple[int, ...], stride: tuple[int, ...], offset: int, itemsize: int) -> int:
    """Bytes a (checked) layout reaches: none for an empty one."""
    if 0 in shape:
        return 0
    return (offset + 1 + sum((n - 1) * st for n, st in zip(shape, stride))) * itemsize


def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """A new shape (row-major strides) over the same storage, grown if needed. Resizing to the shape
    the tensor has is a no-op: strides and version stay."""
    if self.requires_grad and not grad_mode.state.inference:  # autograd's check; inference mode skips autograd
        raise RuntimeError(errors.RESIZE_REQUIRES_GRAD)
    shape = sizes_arg(sizes)
    if shape == self._shape:
        return self
    geometry.check_resizable(shape, self._offset, self.dtype.itemsize)
    stride = geometry.contiguous_strides(shape)
    self._storage.grow_to(_storage_bytes(shape, stride, self._offset, self.dtype.itemsize))
    self._set_layout(shape, stride, self._offset)
    self._bump_version()
    return self


def resize_as_(self: Tensor, other: Tensor, memory_format: Any = None) -> Tensor:
    return resize_(self, other._shape)


def set_(self: Tensor, source: Tensor | UntypedStorage | None = None, storage_offset: int = 0,
         size: Sequence[int] | None = None, stride: Sequence[int] | None = None) -> Tensor:
    """Make self a window onto source's memory (or onto nothing): sharing is now total. set_ has no
    derivative: on a tensor in the graph it records torch's NotImplemented node."""
    if isinstance(source, Tensor) and source.dtype is not self.dtype:
        raise RuntimeError(f"Could not set tensor of type {source.dtype.cpp} to a tensor of type {self.dtype.cpp}")
    check_inplace_allowed(self, source)
    if source is None:  # resize_impl keeps the strides of a tensor that already has the size
        strides = self._stride if self._shape == (0,) else (1,)
        storage, shape, offset = Storage.allocate(0, self.dtype.np), (0,), 0
    elif isinstance(source, Tensor):
        storage, shape, strides, offset = source._storage, source._shape, source._stride, source._offset
    else:
        storage = source._storage
        shape = tuple(size) if size is not None else (storage.nbytes // self.dtype.itemsize - storage_offset,)
        strides, needed = geometry.check_set_storage_layout(shape, stride, storage_offset, self.dtype.itemsize)
        offset = int(storage_offset)
        storage.grow_to(needed)
    tracked = needs_grad(self, source) if isinstance(source, Tensor) else needs_grad(self)
    edges = edges_of([self, source]) if tracked else ()
    base_edge = edges_of([self._view.base])[0] if tracked and self._view is not None else None
    self._accumulator = None  # torch's set_ resets the grad accumulator: earlier graphs no longer reach the leaf
    self._storage = storage
    self._set_layout(shape, strides, offset)
    self._bump_version()
    if tracked:
        node = node_type("NotImplemented")(_not_implemented, edges, ((self._shape, self.dtype, self.device),))
        if self._view is None:
            self._set_grad_fn(node, 0)
        else:  # like any in-place op on a view: the base's history becomes CopySlices
            rebase_view(self, node, base_edge)
    return self


def _not_implemented(grad: Any, saved: Any) -> Any:
    raise RuntimeError("derivative for set_ is not implemented")


def is_set_to(self: Tensor, other: Tensor) -> bool:
    """Same storage, offset, sizes and strides (two empty tensors each own a storage, so are not)."""
    return (self._storage is other._storage and self._offset == other._offset
            and self._shape == other._shape and self._stride == other._stride)


METHODS = {"resize_": resize_, "resize_as_": resize_as_, "set_": set_, "is_set_to": is_set_to}
