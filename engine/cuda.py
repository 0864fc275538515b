"""torch.cuda for the simulated device: availability, placement, and the caching allocator's figures.

tensorscope simulates one CUDA device (on by default; `--no-cuda` or a scenario key turn it off).
Its tensors keep their data in host memory; what `memory_allocated()` and friends report comes from
a model of PyTorch's CUDA caching allocator (engine/cuda_allocator.py), so the seeds' measurements
(relu vs relu_ on a 10000x10000 tensor: 382.0 vs 0.0 MiB) come out as on a real GPU.
"""

from __future__ import annotations

from typing import Any

from engine import allocator as allocation
from engine import devices, runtime
from engine.cuda_allocator import CachingAllocator, OutOfMemoryError, round_size
from engine.devices import NOT_COMPILED

DEFAULT_CAPACITY = 16 * 1024**3  # a 16 GiB card unless told otherwise


class SimulatedDevice:
    """The simulated device's allocator, made on first allocation (is_initialized() tells); a part
    of the engine's runtime."""

    __slots__ = ("capacity", "current", "tag")

    def __init__(self) -> None:
        self.capacity = DEFAULT_CAPACITY
        self.current: CachingAllocator | None = None
        self.tag: Any = None  # what the allocator's history records for each event (tensorscope: the step)

    @property
    def allocator(self) -> CachingAllocator:
        if self.current is None:
            self.current = CachingAllocator(self.capacity)
        return self.current


_device: SimulatedDevice = runtime.slot(__name__, "_device", SimulatedDevice)

Block = tuple[SimulatedDevice, CachingAllocator, int]


def configure(enabled: bool = True, capacity_bytes: int = DEFAULT_CAPACITY) -> None:
    """A fresh simulated device (every tensorscope run starts with one), or none at all."""
    devices.state.cuda_enabled = enabled
    _device.capacity = capacity_bytes
    _device.current = None


def device_allocator() -> CachingAllocator:
    return _device.allocator


def set_tag(tag: Any) -> None:
    """Label the allocations and frees that follow (tensorscope passes the step number)."""
    _device.tag = tag


def take_block(nbytes: int) -> Block:
    """Account a device storage of `nbytes`; the block remembers which device instance holds it."""
    owner = _device.allocator
    handle = owner.malloc(nbytes, _device.tag)
    allocation.allocator.device_bytes += nbytes
    if not devices.state.cuda_in_use:
        from engine import placement

        devices.state.cuda_in_use = True
        placement.engage()
    return _device, owner, handle


def beyond_the_card(nbytes: int) -> bool:
    """Whether `nbytes` cannot fit the card even with every cached block released, so that torch's
    caching allocator would fail with its out-of-memory error whatever the host can hold."""
    owner = _device.allocator
    return round_size(nbytes) > owner.capacity - owner.memory_allocated()


def release_block(block: Block, nbytes: int, host: allocation.Allocator) -> None:
    """Free a device storage in the device (and host budget) that accounted it."""
    device, owner, handle = block
    owner.free(handle, device.tag)
    host.device_bytes -= nbytes


def _require() -> CachingAllocator:
    if not devices.state.cuda_enabled:
        raise AssertionError(NOT_COMPILED)
    return _device.allocator


# ------------------------------------------------------------------ torch.cuda's API
def is_available() -> bool:
    return devices.state.cuda_enabled


def is_initialized() -> bool:
    """True once the current simulated device has allocated memory (its allocator exists)."""
    return devices.state.cuda_enabled and _device.current is not None


def device_count() -> int:
    return 1 if devices.state.cuda_enabled else 0


def current_device() -> int:
    _require()
    return 0


def set_device(device: Any) -> None:
    devices.resolve(device if not isinstance(device, int) else f"cuda:{device}")


def get_device_name(device: Any = None) -> str:
    _require()
    return "tensorscope simulated GPU"


def synchronize(device: Any = None) -> None:
    """Nothing runs asynchronously here; kept so that measuring code runs unchanged."""
    _require()


def memory_allocated(device: Any = None) -> int:
    return _require().memory_allocated()


def max_memory_allocated(device: Any = None) -> int:
    return _require().max_memory_allocated()


def memory_reserved(device: Any = None) -> int:
    return _require().memory_reserved()


def max_memory_reserved(device: Any = None) -> int:
    return _require().max_memory_reserved()


def memory_cached(device: Any = None) -> int:
    return memory_reserved(device)


def reset_peak_memory_stats(device: Any = None) -> None:
    _require().reset_peak_memory_stats()


def reset_max_memory_allocated(device: Any = None) -> None:
    _require().reset_peak_memory_stats()


def reset_accumulated_memory_stats(device: Any = None) -> None:
    _require().reset_accumulated_memory_stats()


def empty_cache() -> None:
    if devices.state.cuda_enabled and _device.current is not None:
        _device.current.empty_cache()


def memory_stats(device: Any = None) -> Any:
    return _require().memory_stats()


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    return _require().memory_summary(abbreviated=abbreviated)


def manual_seed(seed: int) -> None:
    """Seed the device's generator (torch.manual_seed seeds it too); as in torch, lazily, so it also
    works, and does nothing visible, without the device."""
    from engine.ops import random

    random.device_generator.manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    manual_seed(seed)


def initial_seed() -> int:
    from engine.ops import random

    return random.device_generator.initial_seed()


class _Memory:
    """torch.cuda.memory: the snapshot functions PyTorch's memory visualiser reads."""

    @staticmethod
    def _record_memory_history(*args: Any, **kwargs: Any) -> None:
        """History is always recorded by the simulated allocator."""
        _require()

    @staticmethod
    def _snapshot(device: Any = None) -> dict[str, Any]:
        from engine.memory_snapshot import snapshot

        return snapshot(_require())

    @staticmethod
    def _dump_snapshot(filename: str = "dump_snapshot.pickle") -> None:
        from engine.memory_snapshot import dump_snapshot

        dump_snapshot(_require(), filename)

    memory_allocated = staticmethod(memory_allocated)
    max_memory_allocated = staticmethod(max_memory_allocated)
    memory_reserved = staticmethod(memory_reserved)
    memory_stats = staticmethod(memory_stats)
    memory_summary = staticmethod(memory_summary)
    empty_cache = staticmethod(empty_cache)


memory = _Memory()

__all__ = [
    "OutOfMemoryError", "current_device", "device_count", "empty_cache", "get_device_name", "is_available",
    "is_initialized", "max_memory_allocated", "max_memory_reserved", "memory", "memory_allocated",
    "manual_seed", "manual_seed_all", "initial_seed",
    "memory_cached", "memory_reserved", "memory_stats", "memory_summary", "reset_accumulated_memory_stats",
    "reset_max_memory_allocated", "reset_peak_memory_stats", "set_device", "synchronize",
]
