"""paddle.utils.dlpack: `from_dlpack(to_dlpack(x))` is a new tensor over x's memory.

Measured in Paddle 3.3.1: writes through either side show in the other, yet the two keep separate
version counters and `_is_shared_buffer_with` says False (the import holds the memory through an
allocation record of its own). A capsule can be consumed once.
"""

from __future__ import annotations

from typing import Any

from engine.paddle.tensor import HOLDER, EngineTensor, Tensor
from engine.tensor import VersionCounter


class Capsule:
    """The PyCapsule `to_dlpack` returns: it carries the tensor until `from_dlpack` consumes it."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: EngineTensor) -> None:
        self._tensor: EngineTensor | None = tensor

    def __repr__(self) -> str:
        return f'<capsule object "dltensor" at {hex(id(self))}>'


def to_dlpack(x: Tensor) -> Capsule:
    return Capsule(x._t)


def from_dlpack(dlpack: Any) -> Tensor:
    if isinstance(dlpack, Tensor):
        dlpack = to_dlpack(dlpack)
    if not isinstance(dlpack, Capsule):
        raise TypeError(f"The type of 'dlpack' in from_dlpack must be PyCapsule object, but received {type(dlpack)}.")
    source = dlpack._tensor
    if source is None:
        raise ValueError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                         "only once, so you might have already constructed a tensor from it once.")
    dlpack._tensor = None
    t = EngineTensor._make(source._storage, source._offset, source._shape, source._stride, source.dtype,
                           VersionCounter())
    t.__dict__[HOLDER] = object()
    return Tensor._wrap(t)


__all__ = ["from_dlpack", "to_dlpack"]
