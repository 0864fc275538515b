"""Storage: one flat numpy buffer that tensors view; its lifetime is what memory accounting counts."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from engine import allocator as allocation
from engine import devices
from engine.autograd import grad_mode

NOT_RESIZABLE = "Trying to resize storage that is not resizable"


class Storage:
    """A flat buffer with an identity. Every tensor is a strided window onto exactly one Storage.

    A storage on the simulated CUDA device keeps its data in the same host buffer (the host pays
    once) and also holds a block of that device's caching allocator, which is what
    `torch.cuda.memory_allocated()` counts (a DeviceStorage). `owner` is the allocator (of the
    runtime active when the storage was made) that accounts it until it is freed."""

    __slots__ = ("__weakref__", "data", "device", "id", "inference", "nbytes", "owner")
    block: Any = None  # a host storage holds no device block: nothing to write per storage

    def __init__(self, data: np.ndarray, storage_id: int, device: devices.device = devices.CPU,
                 owner: allocation.Allocator | None = None) -> None:
        self.data = data
        self.id = storage_id
        self.nbytes = data.nbytes
        self.device = device
        self.owner = owner or allocation.allocator
        self.inference = grad_mode.state.inference  # allocated under inference_mode: no version counter

    def __del__(self) -> None:
        """Give the bytes back to the allocator that accounted them: Allocator.free written out here,
        as every op's result ends here and a method call more is a tenth of a small op's cost."""
        owner = self.owner
        owner.live_bytes -= self.nbytes
        owner.live_count -= 1
        if owner.listeners:
            owner.announce("free", self.id, self.nbytes)

    @classmethod
    def allocate(cls, count: int, np_dtype: np.dtype) -> Storage:
        np_dtype = np.dtype(np_dtype)
        try:
            flat = allocation.allocator.new_buffer(count, np_dtype)
        except RuntimeError:
            if devices.state.current.type == "cuda":
                _refuse_beyond_the_card(count * np_dtype.itemsize)
            raise
        return cls.wrap(flat)

    @classmethod
    def wrap(cls, flat: np.ndarray) -> Storage:
        """Adopt an existing 1-D buffer without copying (torch.from_numpy's sharing), on the device
        the running op works on."""
        owner = allocation.allocator
        target = devices.state.current
        if target.type == "cuda":
            from engine import cuda

            return DeviceStorage(flat, owner.next_id(), target, cuda.take_block(flat.nbytes), owner)
        return Storage(flat, owner.register(flat.nbytes), devices.CPU, owner)

    @property
    def data_ptr(self) -> int:
        return self.data.__array_interface__["data"][0]

    def grow_to(self, nbytes: int) -> None:
        """Make the buffer hold at least `nbytes` (resize_/set_/out= semantics): old bytes keep their
        values, new ones are whatever the allocator gives. Tensors of any dtype may view the bytes."""
        if nbytes <= self.nbytes:
            return
        if self in _numpy_held:
            raise RuntimeError(NOT_RESIZABLE)
        bigger = self.owner.new_buffer(-(-nbytes // self.data.itemsize), self.data.dtype)
        bigger[: self.data.size] = self.data
        old = self.nbytes
        self.data = bigger
        self.nbytes = bigger.nbytes
        if self.block is None:
            self.owner.resize(self.id, old, self.nbytes)
        else:
            from engine import cuda

            cuda.release_block(self.block, old, self.owner)
            self.block = cuda.take_block(self.nbytes)


def _refuse_beyond_the_card(nbytes: int) -> None:
    """A device tensor the host cannot hold: when the card could not hold it either, the answer is
    the card's (CUDA out of memory, counted in its stats), as on a GPU; else the host's."""
    from engine import cuda

    if cuda.beyond_the_card(nbytes):
        cuda.release_block(cuda.take_block(nbytes), nbytes, allocation.allocator)


class DeviceStorage(Storage):
    """A storage on the simulated CUDA device: its data on the host, and a block of the device's
    caching allocator, given back when the storage is freed."""

    __slots__ = ("block",)

    def __init__(self, data: np.ndarray, storage_id: int, device: devices.device, block: Any,
                 owner: allocation.Allocator) -> None:
        super().__init__(data, storage_id, device, owner)
        self.block = block

    def __del__(self) -> None:
        from engine import cuda

        cuda.release_block(self.block, self.nbytes, self.owner)


# Storages whose bytes a numpy array may hold (torch.from_numpy, .numpy(), np.asarray(t)): torch makes
# them not resizable for good, since growing would move the bytes out from under the array.
_numpy_held: weakref.WeakSet[Storage] = weakref.WeakSet()


def hold_for_numpy(storage: Storage) -> None:
    _numpy_held.add(storage)


class UntypedStorage:
    """What `t.untyped_storage()` returns: enough to compare identities and sizes."""

    __slots__ = ("_storage",)

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def data_ptr(self) -> int:
        return self._storage.data_ptr if self._storage.nbytes else 0

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
