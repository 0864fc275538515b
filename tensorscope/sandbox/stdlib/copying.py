"""`copy.copy` and `copy.deepcopy`: CPython's algorithm (copy.py), with the sandbox's rules.

The algorithm is CPython's, step for step, so values, sharing (the memo) and the order of calls
are Python's; what differs is what it may reach and what it costs:

- every object visited costs a step (a shallow copy of a container, a step per item);
- a user class's `__copy__`/`__deepcopy__` runs through the interpreter; the engine defines what
  copying its objects means (`Tensor.__deepcopy__`, torch's error for a non-leaf);
- the interpreter's own objects cannot be copied (copying a module proxy would copy the
  interpreter): "cannot pickle 'X' object", Python's message for what it cannot copy; user
  functions copy as themselves, as Python's functions do;
- engine objects user code may not construct (graph nodes, storages) and that do not say how to
  copy themselves are refused as torch refuses them ("cannot pickle 'SumBackward0' object").
"""

from __future__ import annotations

import copy as copy_module
import copyreg
import types
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.classes import runs_user_code
from tensorscope.sandbox.gateways import gateway

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

_ATOMIC = frozenset({type(None), int, float, bool, complex, str, bytes, type, range, types.BuiltinFunctionType,
                     types.FunctionType, type(Ellipsis), type(NotImplemented), weakref.ref, property})
_SHALLOW_IMMUTABLE = _ATOMIC | {tuple, frozenset, slice}
_SHALLOW_COPIED = frozenset({list, dict, set, bytearray})
_MISSING: Any = object()


@gateway
def make_copy_module(sandbox: Sandbox) -> dict[str, Any]:
    """The names of `copy` for one sandbox."""
    meter, call = sandbox.meter, sandbox.call

    def run(method: Callable[..., Any], *args: Any) -> Any:
        """A copying method: user code through the interpreter, anything else directly."""
        if runs_user_code(method) or (type(method) is types.MethodType and runs_user_code(method.__func__)):
            return call(method, *args)
        return method(*args)

    def refuse_engine_internals(cls: type) -> None:
        if str(cls.__module__).partition(".")[0] == "engine" and not sandbox.modules.usable(cls):
            raise TypeError(f"cannot pickle '{cls.__name__}' object")

    def reduced(x: Any, cls: type) -> Any:
        refuse_engine_internals(cls)
        reductor = copyreg.dispatch_table.get(cls)
        if reductor is not None:
            return reductor(x)
        return x.__reduce_ex__(4)

    def copy(x: Any) -> Any:
        meter.tick()
        cls = type(x)
        if cls in _SHALLOW_IMMUTABLE:
            return x
        if cls in _SHALLOW_COPIED:
            meter.tick(len(x))
            return x.copy()
        if issubclass(cls, type):
            return x
        copier = getattr(cls, "__copy__", None)
        if copier is not None:
            return run(copier, x)
        rv = reduced(x, cls)
        if isinstance(rv, str):
            return x
        return reconstruct(x, None, *rv)

    def deepcopy(x: Any, memo: Any = None) -> Any:
        meter.tick()
        if memo is None:
            memo = {}
        d = id(x)
        y = memo.get(d, _MISSING)
        if y is not _MISSING:
            return y
        cls = type(x)
        if cls in _ATOMIC or issubclass(cls, type):
            return x
        if cls is list:
            y = memo[d] = []
            for item in x:
                y.append(deepcopy(item, memo))
        elif cls is tuple:
            items = [deepcopy(item, memo) for item in x]
            if d in memo:
                return memo[d]
            y = tuple(items) if any(a is not b for a, b in zip(x, items, strict=True)) else x
        elif cls is dict:
            y = memo[d] = {}
            for key, value in x.items():
                y[deepcopy(key, memo)] = deepcopy(value, memo)
        elif cls is types.MethodType:
            y = types.MethodType(x.__func__, deepcopy(x.__self__, memo))
        else:
            copier = getattr(x, "__deepcopy__", None)
            if copier is not None:
                y = run(copier, memo)
            else:
                rv = reduced(x, cls)
                y = x if isinstance(rv, str) else reconstruct(x, memo, *rv)
        if y is not x:
            memo[d] = y
            memo.setdefault(id(memo), []).append(x)  # x must live as long as the memo holds its id
        return y

    def reconstruct(x: Any, memo: Any, func: Callable[..., Any], args: tuple[Any, ...], state: Any = None,
                    listiter: Any = None, dictiter: Any = None) -> Any:
        deep = memo is not None
        if deep and args:
            args = deepcopy(args, memo)
        y = func(*args)
        if deep:
            memo[id(x)] = y
        if state is not None:
            if deep:
                state = deepcopy(state, memo)
            if hasattr(y, "__setstate__"):
                y.__setstate__(state)
            else:
                slotstate = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slotstate = state
                if state is not None:
                    y.__dict__.update(state)
                for key, value in (slotstate or {}).items():
                    setattr(y, key, value)
        for item in listiter or ():
            meter.tick()
            y.append(deepcopy(item, memo) if deep else item)
        for key, value in dictiter or ():
            meter.tick()
            y[deepcopy(key, memo) if deep else key] = deepcopy(value, memo) if deep else value
        return y

    return {"copy": copy, "deepcopy": deepcopy, "Error": copy_module.Error}
