"""Storage: one flat numpy buffer that tensors view; its lifetime is what memory accounting counts."""

from __future__ import annotations

import numpy as np

from engine.allocator import allocator


class Storage:
    """A flat buffer with an identity. Every tensor is a strided window onto exactly one Storage."""

    __slots__ = ("__weakref__", "data", "id", "nbytes")

    def __init__(self, data: np.ndarray, storage_id: int) -> None:
        self.data = data
        self.id = storage_id
        self.nbytes = data.nbytes

    def __del__(self) -> None:
        allocator.free(self.id, self.nbytes)

    @classmethod
    def allocate(cls, count: int, np_dtype: np.dtype) -> Storage:
        np_dtype = np.dtype(np_dtype)
        buffer = allocator.new_buffer(count, np_dtype)
        return cls(buffer, allocator.register(buffer.nbytes))

    @classmethod
    def wrap(cls, flat: np.ndarray) -> Storage:
        """Adopt an existing 1-D buffer without copying (torch.from_numpy's sharing)."""
        return cls(flat, allocator.register(flat.nbytes))

    @property
    def data_ptr(self) -> int:
        return self.data.__array_interface__["data"][0]

    def resize(self, count: int) -> None:
        """Grow the buffer (resize_/set_ semantics): old elements keep their values."""
        if count <= self.data.size:
            return
        bigger = allocator.new_buffer(count, self.data.dtype)
        bigger[: self.data.size] = self.data
        old = self.nbytes
        self.data = bigger
        self.nbytes = bigger.nbytes
        allocator.resize(self.id, old, self.nbytes)


class UntypedStorage:
    """What `t.untyped_storage()` returns: enough to compare identities and sizes."""

    __slots__ = ("_storage",)

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def data_ptr(self) -> int:
        return self._storage.data_ptr

    def nbytes(self) -> int:
        return self._storage.nbytes

    def size(self) -> int:
        return self._storage.nbytes

    def __len__(self) -> int:
        return self._storage.nbytes

    def __repr__(self) -> str:
        values = self._storage.data.view(np.uint8)
        shown = "\n".join(f" {v}" for v in values[:20])
        more = "\n ..." if values.size > 20 else ""
        return f"{shown}{more}\n[torch.storage.UntypedStorage(device=cpu) of size {self._storage.nbytes}]"
