"""The one place storages are allocated and freed, so live and peak bytes are exact.

Listeners (the application's memory timeline) hear every allocation and free; the engine itself
only keeps the running totals. Each runtime has its own allocator (`allocator`, rebound when a
runtime is activated); a storage remembers the allocator that accounted it, so it is freed there
even when another runtime is active by then. The budget is the process's: every allocator in it
refuses past the same number of bytes.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engine import runtime

Listener = Callable[[str, int, int], None]  # (event: "alloc" | "free", storage_id, nbytes)


def _free_memory_bytes() -> int:
    """The machine's available memory when the engine starts (MemAvailable), else its physical size."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * 1024**3


@dataclass
class Allocator:
    """Exact byte accounting of host storages, with a budget instead of an out-of-memory crash."""

    live_bytes: int = 0
    peak_bytes: int = 0
    device_bytes: int = 0  # host memory holding simulated-device data: counts against the budget only
    live_count: int = 0
    budget_bytes: ClassVar[int] = _free_memory_bytes()  # the process's; `set_budget` caps it
    listeners: list[Listener] = field(default_factory=list)
    ids: Iterator[int] = field(default_factory=itertools.count)  # storage identities, in allocation order

    def new_buffer(self, count: int, np_dtype: np.dtype) -> np.ndarray:
        """A fresh flat buffer of `count` elements, or torch's out-of-memory error past the budget."""
        nbytes = count * np_dtype.itemsize
        self.check(nbytes)
        try:
            buffer = np.empty(count, dtype=np_dtype)
        except (MemoryError, ValueError) as exc:
            raise RuntimeError(
                f"DefaultCPUAllocator: not enough memory: you tried to allocate {nbytes} bytes."
            ) from exc
        return buffer

    def check(self, nbytes: int) -> None:
        """Refuse, before numpy allocates, a result that would exceed the budget."""
        if self.live_bytes + self.device_bytes + nbytes > self.budget_bytes:
            raise RuntimeError(
                f"DefaultCPUAllocator: not enough memory: you tried to allocate {nbytes} bytes."
            )

    def next_id(self) -> int:
        """An identity for a storage this allocator does not account (a device storage)."""
        return next(self.ids)

    def register(self, nbytes: int) -> int:
        """Account for a storage whose buffer already exists (allocated here or bridged from numpy).
        Tensor._adopt writes this out, Storage.__del__ `free`: keep them in step."""
        storage_id = next(self.ids)
        self.live_bytes += nbytes
        self.live_count += 1
        if self.live_bytes > self.peak_bytes:
            self.peak_bytes = self.live_bytes
        if self.listeners:
            self.announce("alloc", storage_id, nbytes)
        return storage_id

    def resize(self, storage_id: int, old_nbytes: int, new_nbytes: int) -> None:
        self.live_bytes += new_nbytes - old_nbytes
        self.peak_bytes = max(self.peak_bytes, self.live_bytes)
        for listener in self.listeners:
            listener("resize", storage_id, new_nbytes)

    def free(self, storage_id: int, nbytes: int) -> None:
        self.live_bytes -= nbytes
        self.live_count -= 1
        if self.listeners:
            self.announce("free", storage_id, nbytes)

    def announce(self, event: str, storage_id: int, nbytes: int) -> None:
        """Tell every listener of an allocation or free."""
        for listener in self.listeners:
            listener(event, storage_id, nbytes)

    def reset_peak(self) -> None:
        self.peak_bytes = self.live_bytes


def set_budget(nbytes: int) -> None:
    """Cap what every allocator in this process may hold (a worker sets its memory limit here)."""
    Allocator.budget_bytes = nbytes


allocator: Allocator = runtime.slot(__name__, "allocator", Allocator)
"""The active runtime's allocator: read it as `allocation.allocator` at use, never import the name."""
