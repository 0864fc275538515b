"""Ops that re-point a tensor at memory: resize_, resize_as_ and set_ (the seed's "either error or
warn" family). They change the tensor's own layout or storage and bump its version once."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from engine import errors, geometry
from engine.ops.core import check_inplace_allowed
from engine.ops.views import sizes_arg
from engine.storage import UntypedStorage
from engine.tensor import Tensor


def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    if self.requires_grad:
        raise RuntimeError(errors.RESIZE_REQUIRES_GRAD)
    shape = sizes_arg(sizes)
    geometry.check_resizable(shape, self._offset, self.dtype.itemsize)
    self._storage.resize(self._offset + math.prod(shape))
    self._set_layout(shape, geometry.contiguous_strides(shape), self._offset)
    self._bump_version()
    return self


def resize_as_(self: Tensor, other: Tensor) -> Tensor:
    return resize_(self, other._shape)


def set_(self: Tensor, source: Tensor | UntypedStorage | None = None, storage_offset: int = 0,
         size: Sequence[int] | None = None, stride: Sequence[int] | None = None) -> Tensor:
    """Make self a window onto source's memory (or onto nothing): sharing is now total."""
    check_inplace_allowed(self)
    if source is None:
        from engine.storage import Storage

        self._storage = Storage.allocate(0, self.dtype.np)
        self._set_layout((0,), (1,), 0)
    elif isinstance(source, Tensor):
        self._storage = source._storage
        self._set_layout(source._shape, source._stride, source._offset)
    else:
        storage = source._storage
        shape = tuple(size) if size is not None else (storage.data.size - storage_offset,)
        strides, needed = geometry.check_set_storage_layout(shape, stride, storage_offset, self.dtype.itemsize)
        storage.resize(-(-needed // storage.data.itemsize))
        self._storage = storage
        self._set_layout(shape, strides, storage_offset)
    self._bump_version()
    return self


METHODS = {"resize_": resize_, "resize_as_": resize_as_, "set_": set_}
