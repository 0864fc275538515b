"""paddle.device: places, the current device, and the memory figures of the simulated GPU.

The reference (paddlepaddle 3.3.1 from pip) is a CPU build: `set_device('gpu')` and the memory
APIs raise there. tensorscope simulates one CUDA device (engine/cuda.py); while it is enabled this
dialect behaves as a GPU build that *starts on the CPU* (a real GPU build starts on gpu:0): tensors
go to `Place(gpu:0)` after `paddle.set_device('gpu')`, and `paddle.device.cuda.max_memory_allocated()`
reads the simulated device's allocator. With the device disabled it behaves as the CPU build.
"""

from __future__ import annotations

import re
from typing import Any

from engine import devices, runtime
from engine.paddle import messages


class Place:
    """paddle.base.libpaddle.Place: `Place(cpu)` or `Place(gpu:0)`."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def is_cpu_place(self) -> bool:
        return self.kind == "cpu"

    def is_gpu_place(self) -> bool:
        return self.kind == "gpu"

    def gpu_device_id(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Place) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)

    def __repr__(self) -> str:
        return "Place(cpu)" if self.kind == "cpu" else "Place(gpu:0)"

    __str__ = __repr__


CPU = Place("cpu")
GPU = Place("gpu")


class _State:
    """The current place: a part of the engine's runtime."""

    __slots__ = ("current",)

    def __init__(self) -> None:
        self.current: Place = CPU


state: _State = runtime.slot(__name__, "state", _State)


def CPUPlace() -> Place:  # noqa: N802 - Paddle's name
    return CPU


def CUDAPlace(index: int = 0) -> Place:  # noqa: N802 - Paddle's name
    if not is_compiled_with_cuda():
        raise ValueError("(InvalidArgument) use wrong place, Please check. (at /paddle/paddle/fluid/pybind/place.cc:451)\n")
    return GPU


def is_compiled_with_cuda() -> bool:
    return devices.state.cuda_enabled


def place_of(t: Any) -> Place:
    return CPU if t.is_cpu else GPU


def engine_device(place: Any = None) -> str:
    """The engine device a new tensor goes to: the given place, else the current one."""
    chosen = state.current if place is None else (place if isinstance(place, Place) else _parse(str(place)))
    return "cpu" if chosen.kind == "cpu" else "cuda"


def _parse(spec: str) -> Place:
    if spec == "cpu":
        return CPU
    match = re.match(r"gpu:\d+", spec)
    if spec in ("gpu", "cuda") or match:
        if not is_compiled_with_cuda():
            raise ValueError(messages.NO_CUDA_DEVICE.format(spec=repr(match) if match else "'gpu'"))
        return GPU
    raise ValueError(messages.BAD_DEVICE)


def set_device(device: str) -> Place:
    state.current = _parse(device)
    return state.current


def get_device() -> str:
    return "cpu" if state.current.kind == "cpu" else "gpu:0"


def device_count() -> int:
    return 1 if is_compiled_with_cuda() else 0


def is_available() -> bool:
    return is_compiled_with_cuda()


def _gpu_only(api: str) -> None:
    if not is_compiled_with_cuda():
        raise ValueError(messages.DEVICE_API_ON_CPU.format(api=api))


def max_memory_allocated(device: Any = None) -> int:
    _gpu_only("max_memory_allocated")
    return cuda.max_memory_allocated()


def reset_max_memory_allocated(device: Any = None) -> None:
    _gpu_only("reset_max_memory_allocated")
    cuda.reset_max_memory_allocated()


reset_peak_memory_stats = reset_max_memory_allocated


def reset() -> None:
    """A fresh process's device state (tensorscope calls it before every run)."""
    state.current = CPU


from engine.paddle.device import cuda  # noqa: E402  (paddle.device.cuda)

__all__ = ["CPUPlace", "CUDAPlace", "Place", "cuda", "device_count", "get_device", "is_available",
           "is_compiled_with_cuda", "max_memory_allocated", "reset_max_memory_allocated",
           "reset_peak_memory_stats", "set_device"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.device", name)
