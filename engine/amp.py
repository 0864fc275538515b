"""torch.autocast on the CPU: inside the region, matrix products and convolutions run in the lower
precision (bfloat16 by default) by casting their floating inputs first (ToCopyBackward0 nodes), as
torch's CPU autocast list does; everything else keeps its dtype."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from engine import dtypes, runtime


class AutocastState:
    """Whether an autocast region is open and its dtype: a part of the engine's runtime."""

    __slots__ = ("dtype", "enabled")

    def __init__(self) -> None:
        self.enabled = False
        self.dtype = dtypes.bfloat16


state: AutocastState = runtime.slot(__name__, "state", AutocastState)


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Without an argument torch asks about CUDA, where this engine never autocasts."""
    return state.enabled if device_type == "cpu" else False


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    return state.dtype if device_type == "cpu" else dtypes.float16


def cast_inputs(*tensors: Any) -> tuple[Any, ...]:
    """The operands of a lower-precision op under autocast: floating tensors cast to its dtype."""
    if not state.enabled:
        return tensors
    return tuple(t.to(state.dtype) if t is not None and hasattr(t, "dtype") and t.dtype.is_floating_point
                 and t.dtype is not state.dtype else t for t in tensors)


def float32_inputs(*tensors: Any) -> tuple[Any, ...]:
    """The operands of an op on autocast's float32 list (losses, norms): lower precision cast up."""
    if not state.enabled:
        return tensors
    return tuple(t.to(dtypes.float32) if t is not None and hasattr(t, "dtype") and t.dtype in (dtypes.bfloat16,
                 dtypes.float16) else t for t in tensors)


class autocast:  # noqa: N801 - torch's name
    def __init__(self, device_type: str, dtype: dtypes.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if device_type not in ("cpu", "cuda"):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device_type = device_type
        self.fast_dtype = dtype if dtype is not None else (dtypes.bfloat16 if device_type == "cpu" else dtypes.float16)
        if device_type == "cpu" and self.fast_dtype not in (dtypes.bfloat16, dtypes.float16):
            raise RuntimeError("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                               "CPU Autocast only supports dtype of torch.bfloat16, torch.float16 currently.")
        self._enabled = enabled and device_type == "cpu"

    def __enter__(self) -> autocast:
        self.prev = (state.enabled, state.dtype)
        if self._enabled:
            state.enabled, state.dtype = True, self.fast_dtype
        return self

    def __exit__(self, *exc: object) -> None:
        state.enabled, state.dtype = self.prev

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with autocast(self.device_type, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)

        return wrapper
