"""paddle.device.cuda over tensorscope's simulated GPU (engine/cuda.py).

The figures come from the engine's model of PyTorch's caching allocator (blocks rounded to 512 B,
large ones to 2 MiB). Paddle's own allocator (auto-growth best-fit, 256 B alignment) would report
the same for the seed's 64 MiB tensors, not necessarily for small ones.
"""

from __future__ import annotations

from typing import Any

from engine import cuda as simulated
from engine.paddle import messages


def _require(api: str) -> None:
    if not simulated.is_available():
        raise ValueError(messages.CUDA_API_ON_CPU.format(api=api))


def device_count() -> int:
    return 1 if simulated.is_available() else 0


def memory_allocated(device: Any = None) -> int:
    _require("memory_allocated")
    return simulated.memory_allocated() if simulated.is_initialized() else 0


def max_memory_allocated(device: Any = None) -> int:
    _require("max_memory_allocated")
    return simulated.max_memory_allocated() if simulated.is_initialized() else 0


def memory_reserved(device: Any = None) -> int:
    _require("memory_reserved")
    return simulated.memory_reserved() if simulated.is_initialized() else 0


def max_memory_reserved(device: Any = None) -> int:
    _require("max_memory_reserved")
    return simulated.max_memory_reserved() if simulated.is_initialized() else 0


def reset_max_memory_allocated(device: Any = None) -> None:
    _require("reset_max_memory_allocated")
    simulated.reset_peak_memory_stats()


def reset_max_memory_reserved(device: Any = None) -> None:
    _require("reset_max_memory_reserved")
    simulated.reset_peak_memory_stats()


def empty_cache() -> None:
    simulated.empty_cache()


def synchronize(device: Any = None) -> None:
    if not simulated.is_available():
        raise RuntimeError(messages.SYNCHRONIZE_ON_CPU)


def get_device_name(device: Any = None) -> str:
    if not simulated.is_available():
        raise ValueError("The API paddle.device.cuda.get_device_properties is not supported in CPU-only "
                         "PaddlePaddle. Please reinstall PaddlePaddle with GPU support to call this API.")
    return simulated.get_device_name()


__all__ = ["device_count", "empty_cache", "get_device_name", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "reset_max_memory_allocated", "reset_max_memory_reserved",
           "synchronize"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.device.cuda", name)
