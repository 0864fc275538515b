"""Classes user code may hold but never call unchecked: each reaches user code as a stand-in.

The interpreter checks a construction when user code calls a class (`Sandbox.before_call`):
`type(name, bases, dict)` would make a class with any dunder, `np.ndarray(shape, dtype, buffer,
offset, strides)` reads raw memory, an engine graph node or storage takes internal arguments,
`Enum('X', names, type=np.ndarray)` builds members unchecked. But code that is not interpreted
(the engine, numpy, C) calls what it is given directly: `model.apply(fn)`, a forward hook, a
`LambdaLR` lambda, a DataLoader's `collate_fn`, `checkpoint(fn, *args)`, a module whose
`forward` attribute was replaced, a decorator such as `torch.no_grad()(fn)`. Routing each such
call site would be a list that is never complete; so the classes whose construction needs a
check never reach user code at all. Every class handed to user code (a call's result, an
attribute, an item, a name imported, `type(x)`, `x.__class__`) passes `StandIns.of`, which gives
such a class as its stand-in: a class of our metaclass whose every call is the interpreter's
checked call of the real class. Whoever calls the stand-in (user code, the engine, numpy,
`functools`) gets the check; everything else user code does with a class works on it as on the
real one: `isinstance(x, np.ndarray)`, `issubclass`, `type(a) is np.ndarray` (both sides are the
same stand-in), `type(x).__name__` (attributes are the real class's, under its rules), `repr`,
`np.ndarray[int]`, a class statement's bases (the interpreter passes the real class on).

The classes that need one (`needs_stand_in`): metaclasses (`type` itself, ABCMeta, EnumType),
the interpreter's own classes, function and method types, engine classes not offered by name
(graph nodes, storages), numpy's array, dtype, void and object types, and enum classes without
members (calling one with names makes a new enum class).
"""

from __future__ import annotations

import enum
import operator
import types
import typing
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorscope.sandbox.classes import is_user_class
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.internal import internal, is_internal

# Classes whose instances would run code objects, or read attributes past the policy (CPython's
# attrgetter and methodcaller; the granted operator module has its own).
UNCONSTRUCTIBLE = frozenset({types.FunctionType, types.MethodType, types.CodeType, types.ModuleType,
                             operator.attrgetter, operator.methodcaller})
_NUMPY_RAW = (np.ndarray, np.dtype, np.void, np.object_)
_TYPING_ALIAS = typing._GenericAlias  # noqa: SLF001 - a subscripted typing alias (`typing.Type[int]`) calls its origin


@internal()
class StandInType(type):
    """The metaclass of stand-ins: calling one is the interpreter's checked call of the real class;
    isinstance, issubclass and repr answer for the real class."""

    @gateway
    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return type.__getattribute__(cls, "_ts_call")(real_class(cls), *args, **kwargs)

    @gateway
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, real_class(cls))

    @gateway
    def __subclasscheck__(cls, subclass: Any) -> bool:
        return issubclass(real_class(subclass), real_class(cls))

    @gateway
    def __getitem__(cls, item: Any) -> Any:
        """`np.ndarray[int]` and `type[int]` are aliases of the stand-in (calling one checks); an
        enum's `Base['A']` looks up a member; other classes are not subscriptable."""
        real = real_class(cls)
        result = real[item]
        if isinstance(result, types.GenericAlias) and result.__origin__ is real:
            return types.GenericAlias(cls, result.__args__)
        return result

    def __bool__(cls) -> bool:  # a class is true (not its length, as `len` of an enum would make it)
        return True

    @gateway
    def __iter__(cls) -> Any:  # an enum's members; any other class is not iterable
        return iter(real_class(cls))

    @gateway
    def __len__(cls) -> int:
        return len(real_class(cls))

    @gateway
    def __contains__(cls, item: Any) -> bool:
        return item in real_class(cls)

    def __repr__(cls) -> str:
        return repr(real_class(cls))


StandInType.__name__ = StandInType.__qualname__ = "type"  # what messages name a stand-in's class


def is_stand_in(value: Any) -> bool:
    return type(value) is StandInType


def real_class(value: Any) -> Any:
    """The class a stand-in stands for; any other value as it is."""
    return type.__getattribute__(value, "_ts_real") if type(value) is StandInType else value


@gateway
def needs_stand_in(cls: type, usable: Callable[[type], bool]) -> bool:
    """Whether calling cls with arguments chosen by someone else could skip a check of the policy."""
    if issubclass(cls, type) or is_internal(cls) or cls in UNCONSTRUCTIBLE or issubclass(cls, _NUMPY_RAW):
        return True
    if isinstance(cls, enum.EnumType):
        return not cls._member_map_  # `Base('X', 'A B', type=...)` makes a new enum class
    return not is_user_class(cls) and not usable(cls)


class StandIns:
    """One sandbox's stand-ins, one per real class, so that identity holds within a session."""

    def __init__(self, call: Callable[..., Any], usable: Callable[[type], bool]) -> None:
        self._call = call
        self._usable = usable
        self._made: dict[type, StandInType] = {}
        self._plain: dict[type, bool] = {}  # classes that need none (most are asked about often)

    def of(self, value: Any) -> Any:
        """value, or its stand-in when it is a class (or a typing alias of one) that needs one."""
        if isinstance(value, type):
            return self._class(value)
        if isinstance(value, _TYPING_ALIAS) and isinstance(value.__origin__, type):
            origin = self._class(value.__origin__)
            if origin is not value.__origin__:  # `typing.Type[int]` would call `type` itself
                return types.GenericAlias(origin, value.__args__)
        return value

    def _class(self, cls: type) -> Any:
        if type(cls) is StandInType:
            return cls
        if cls is StandInType:
            cls = type  # `type(type(x))` is `type`, as in Python
        plain = self._plain.get(cls)
        if plain is None:
            plain = not needs_stand_in(cls, self._usable)
            if not is_user_class(cls):  # user classes come and go: not kept alive here
                self._plain[cls] = plain
        if plain:
            return cls
        made = self._made.get(cls)
        if made is None:
            made = self._made[cls] = StandInType(cls.__name__, (), {
                "__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__,
                "_ts_real": cls, "_ts_call": self._call})
        return made
