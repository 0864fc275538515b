"""torch.utils.hooks.RemovableHandle, and the result checks PyTorch makes on what hooks return."""

from __future__ import annotations

import itertools
import weakref
from typing import Any

_next_id = itertools.count()


class HookDict(dict):
    """An ordered dict of hooks a handle can point at weakly (a plain dict cannot be weakly referenced)."""

    __slots__ = ("__weakref__",)


class RemovableHandle:
    """Returned by every hook registration: `remove()` takes the hook out; usable as a context manager."""

    __slots__ = ("__weakref__", "hooks_dict_ref", "id")

    def __init__(self, hooks_dict: HookDict) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_next_id)

    def remove(self) -> None:
        hooks = self.hooks_dict_ref()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<torch.utils.hooks.RemovableHandle object at {hex(id(self))}>"


def add_hook(hooks: HookDict, fn: Any) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


def hook_name(hook: Any) -> str:
    """How torch names a hook in its messages: the function's __name__, else its repr."""
    return getattr(hook, "__name__", None) or repr(hook)


def type_name(value: Any) -> str:
    return "NoneType" if value is None else type(value).__name__


def check_tensor_result(original: Any, result: Any, hook: Any) -> Any:
    """What a tensor hook may return instead of a gradient: a tensor of the same type and size."""
    from engine.tensor import Tensor

    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type_name(result)}'")
    if original is None:
        return result
    if result.dtype is not original.dtype or result.device.type != original.device.type:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the type of value (was "
                           f"{_type_string(original)} got {_type_string(result)})")
    if result._shape != original._shape:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")
    return result


def check_tuple_result(originals: list[Any], result: Any, hook: Any) -> list[Any]:
    """What a node hook may return: a tuple with one (checked) entry per gradient."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type_name(result)}'")
    if len(result) != len(originals):
        raise RuntimeError(f"hook '{hook_name(hook)}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(originals)})")
    checked = []
    for original, value in zip(originals, result):
        if value is None:
            checked.append(None)
        else:
            checked.append(check_tensor_result(original, value, hook))
    return checked


def _type_string(t: Any) -> str:
    prefix = "torch.cuda." if t.device.type == "cuda" else "torch."
    return prefix + t.dtype.legacy
