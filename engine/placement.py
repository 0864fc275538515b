"""Ops run on the device of their arguments: the wrapper every installed op goes through.

Every op runs with a "current device", taken from its tensor arguments (or a factory's `device=`),
and the storages it creates are placed there. Data always lives in host numpy memory; a device
storage is additionally accounted by that device's caching allocator, so `torch.cuda.*` report
what a real GPU would. Mixing devices in one op fails as PyTorch fails.
"""

from __future__ import annotations

import functools
import inspect
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


# Tensor methods that take no `device=` run unwrapped while no device storage exists anywhere in
# the process (placed() would call them straight through then): the wrapper's extra call is a good
# part of a small op's cost. The first device storage puts the wrappers in (placement.engage).
# A method taken off Tensor before that (`f = torch.Tensor.relu`, `f = x.relu`) stays unwrapped,
# so called later on device tensors it neither checks devices nor places its result on theirs.
_deferred: list[tuple[str, Callable[..., Any], bool]] = []
_engaged = False


def _takes_device(fn: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "device" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def install(name: str, fn: Callable[..., Any], as_property: bool = False) -> None:
    """Attach op `fn` to Tensor as method (or property) `name`, placed on its arguments' device."""
    if _engaged or _takes_device(fn):
        wrapped = placed(fn)
        setattr(Tensor, name, property(wrapped) if as_property else wrapped)
        return
    _deferred.append((name, fn, as_property))
    setattr(Tensor, name, property(fn) if as_property else fn)


def engage() -> None:
    """A device storage now exists: from here on every Tensor method goes through placed()."""
    global _engaged
    if _engaged:
        return
    _engaged = True
    for name, fn, as_property in _deferred:
        wrapped = placed(fn)
        setattr(Tensor, name, property(wrapped) if as_property else wrapped)
    _deferred.clear()
