"""The attribute policy: which `obj.name` user code may read, set or delete.

Names starting with `__` are refused (except a few strings and operator-like methods); `_private`
names only from a short allowlist and on users' own classes; our internal classes (recognised by
identity, see `internal`) expose only the names they registered; numpy's raw-memory and file
attributes are refused, and of an array's attributes only `shape`, `real`, `imag` and `flat` may
be set; no attribute may hand out a module, frame, code, cell or memoryview object.
"""

from __future__ import annotations

import sys
import types
import typing
from abc import ABCMeta
from typing import Any

import numpy as np

import engine
from engine.autograd.node import Node
from engine.nn.module import Module
from tensorscope.sandbox.classes import is_user_class, user_mro
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.internal import internal_attributes, is_internal
from tensorscope.sandbox.modules import ModuleProxy
from tensorscope.sandbox.numpy_surface import NUMPY_BLOCKED_ATTRIBUTES, NUMPY_WRITABLE_ATTRIBUTES
from tensorscope.sandbox.stand_ins import is_stand_in, real_class

SAFE_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__"})  # their values must be strings
# Methods equivalent to a guarded operation are left out: __call__ (type's check), __iter__ (metered
# iteration), __format__ (width caps), arithmetic (size checks), and everything introspective.
_SAFE_DUNDER_METHODS = frozenset({
    "__init__", "__repr__", "__str__", "__len__", "__getitem__", "__setitem__", "__delitem__",
    "__contains__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__",
    "__enter__", "__exit__",
})
# On users' own classes and instances: `super().__getattr__(name)`, a class's annotations (a dict).
_USER_DUNDERS = frozenset({"__getattr__", "__annotations__"})
_ANY_OBJECT = frozenset({"__name__", "__qualname__", "__class__"})  # `__class__` gives type(obj)
_PRIVATE_READABLE = frozenset({"_version", "_base", "_is_view"})  # on tensors
_MODULE_PRIVATE = frozenset({"_parameters", "_buffers", "_modules"})
_BLOCKED_PREFIXES = ("gi_", "cr_", "ag_", "tb_", "co_", "func_", "im_")
_BLOCKED_NAMES = frozenset({"mro"})
_BLOCKED_VALUES = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType, types.CellType,
                   memoryview)
_NUMPY_FLAGS = type(np.empty(0).flags)
_NUMPY_TYPES = (np.ndarray, np.generic)
# Objects whose attributes are another object's: super() reads its instance's (or class's), a
# generic alias (`list[int]`, `typing.List[int]`, `np.ndarray[int]`) forwards to its origin.
_INDIRECT = (super, types.GenericAlias, typing._BaseGenericAlias)  # noqa: SLF001 - typing's alias base


def policy_target(obj: Any) -> Any:
    """The object whose rules decide `obj.name`: `super(C, x).tofile` is x's `tofile`,
    `np.ndarray[int].tofile` is np.ndarray's, and a stand-in's are its class's."""
    while True:
        if isinstance(obj, _INDIRECT):
            obj = obj.__self__ if isinstance(obj, super) else obj.__origin__
        elif is_stand_in(obj):
            obj = real_class(obj)
        else:
            return obj


def refuse_attribute(name: str, why: str) -> AttributeError:
    return AttributeError(f"access to '{name}' is not allowed in tensorscope ({why})")


def _is_numpy(obj: Any) -> bool:
    return isinstance(obj, _NUMPY_TYPES) or (isinstance(obj, type) and issubclass(obj, _NUMPY_TYPES))


@gateway
def check_value(value: Any, what: str) -> Any:
    """Refuse the Python internals that would open a way out (modules, frames, code)."""
    if isinstance(value, _BLOCKED_VALUES):
        raise TypeError(f"{what} gave a '{type(value).__name__}' object, which tensorscope does not expose")
    return value


# Objects every session shares (modules, the engine's and the granted modules' functions): read-only.
_SHARED = (ModuleProxy, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
_PADDLE_PRIVATE = frozenset({"_inplace_version", "_is_shared_buffer_with", "_grad_ivar", "_bump_inplace_version",
                             "_offset"})
_PADDLE_LAYER_PRIVATE = frozenset({"_parameters", "_sub_layers"})


def is_paddle_tensor(obj: Any) -> bool:
    paddle = sys.modules.get("engine.paddle")
    return paddle is not None and isinstance(obj, paddle.Tensor)


def _paddle_private(obj: Any, name: str) -> bool:
    """The few private names Paddle users read: `_inplace_version()`, and a Layer's tables."""
    if name in _PADDLE_PRIVATE:
        return is_paddle_tensor(obj)
    if name in _PADDLE_LAYER_PRIVATE:
        nn = sys.modules.get("engine.paddle.nn")
        return nn is not None and isinstance(obj, nn.Layer)
    return False


class AttributePolicy:
    """The attribute rules: what user code may read, set and delete."""

    @staticmethod
    def _user_private(obj: Any, name: str) -> bool:
        """A `_name` of a user object that no engine or builtin class in its MRO defines."""
        mro = user_mro(obj)
        return mro is not None and not any(name in vars(c) for c in mro if not is_user_class(c))

    # ------------------------------------------------------------------ attributes
    @gateway
    def check_read(self, obj: Any, name: Any) -> None:
        """Raise AttributeError unless user code may read `obj.name`."""
        if not isinstance(name, str):
            raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        if isinstance(obj, ModuleProxy):
            if name.startswith("_") and name != "__version__":
                raise refuse_attribute(name, "private name of a module")
        elif is_internal(obj):
            if name not in internal_attributes(obj) and name not in _ANY_OBJECT:
                raise refuse_attribute(name, "interpreter internals")
        elif name.startswith("__"):
            if name not in SAFE_DUNDERS and name not in _SAFE_DUNDER_METHODS and name != "__class__" and not (
                    name in _USER_DUNDERS and user_mro(obj) is not None):
                raise refuse_attribute(name, "names starting with '__' are blocked")
        elif name.startswith("_"):
            if not self._private_readable(obj, name):
                raise refuse_attribute(name, f"private attribute of '{type(obj).__name__}'")
        else:
            self._check_public(obj, name)

    def readable(self, obj: Any, name: str) -> bool:
        """Whether the policy lets user code read `obj.name` (without reading it)."""
        try:
            self.check_read(obj, name)
        except AttributeError:
            return False
        return True

    def _private_readable(self, obj: Any, name: str) -> bool:
        return ((name in _PRIVATE_READABLE and isinstance(obj, engine.Tensor))
                or _paddle_private(obj, name)
                or (name.startswith("_saved_") and isinstance(obj, Node))
                or (name in _MODULE_PRIVATE and isinstance(obj, Module))
                or self._user_private(obj, name))

    @staticmethod
    @gateway
    def _check_public(obj: Any, name: str) -> None:
        if name.startswith(_BLOCKED_PREFIXES) or name in _BLOCKED_NAMES or (
                name.startswith("f_") and isinstance(obj, types.FrameType)):
            raise refuse_attribute(name, "interpreter internals")
        if name == "register" and isinstance(obj, ABCMeta):
            raise refuse_attribute(name, "it would change isinstance() for every session")
        if _is_numpy(obj) and (name in NUMPY_BLOCKED_ATTRIBUTES or isinstance(obj, type)):
            raise refuse_attribute(name, "numpy file, raw-memory and class attributes")

    @gateway
    def check_write(self, obj: Any, name: Any) -> None:
        """Raise AttributeError unless user code may set or delete `obj.name`."""
        if not isinstance(name, str):
            raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        if isinstance(obj, _SHARED) or is_internal(obj):
            raise AttributeError(f"cannot set attributes of '{type(obj).__name__}' objects in tensorscope")
        if isinstance(obj, type) and user_mro(obj) is None:
            raise AttributeError(f"cannot set attributes of the class '{obj.__name__}' in tensorscope")
        if (_is_numpy(obj) and name not in NUMPY_WRITABLE_ATTRIBUTES) or type(obj) is _NUMPY_FLAGS:
            raise refuse_attribute(name, "numpy arrays let you set only shape, real, imag and flat")
        if name.startswith("__"):
            raise refuse_attribute(name, "names starting with '__' are blocked")
        if name.startswith("_") and not self._user_private(obj, name):
            raise refuse_attribute(name, f"private attribute of '{type(obj).__name__}'")
        self._check_public(obj, name)
