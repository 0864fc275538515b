"""Ops run on the device of their arguments: the wrapper every installed op goes through.

Every op runs with a "current device", taken from its tensor arguments (or a factory's `device=`),
and the storages it creates are placed there. Data always lives in host numpy memory; a device
storage is additionally accounted by that device's caching allocator, so `torch.cuda.*` report
what a real GPU would. Mixing devices in one op fails as PyTorch fails.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from engine import devices
from engine.devices import CPU, device, on, resolve
from engine.tensor import Tensor


def _tensors_in(values: Any) -> Iterator[Tensor]:
    for value in values:
        if isinstance(value, Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, Tensor))


def device_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> device:
    """The one device of an op's tensor arguments (CPU scalars may join a device op, as in torch)."""
    found: device | None = None
    for t in _tensors_in((*args, *kwargs.values())):
        dev = t._storage.device
        if dev.type == "cpu" and t.ndim == 0:
            continue
        if found is None:
            found = dev
        elif dev != found:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                               f"{found} and {dev}!")
    return found or CPU


def placed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run an op on the device of its arguments (or its `device=`), once devices are in play."""
    @functools.wraps(fn)
    def op(*args: Any, **kwargs: Any) -> Any:
        target = kwargs.get("device")
        state = devices.state
        if not state.cuda_in_use and target is None:
            return fn(*args, **kwargs)
        dev = resolve(target) if target is not None else device_of(args, kwargs)
        if dev == state.current:
            return fn(*args, **kwargs)
        with on(dev):
            return fn(*args, **kwargs)
    return op
