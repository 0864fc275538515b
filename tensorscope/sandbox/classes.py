"""What a `class` statement may make: ordinary classes, never hooks into Python's or numpy's machinery.

Python, numpy and the engine call some dunders of a value behind the interpreter's back: numpy
reads `__array_interface__` as raw memory, Python runs `__getattr__` for every attribute lookup
(ours included), `__del__` whenever the garbage collector likes, `__set_name__` and
`__init_subclass__` while the class is being made, `__index__` each time a size is read (twice,
if it likes, with different answers). So a class body may define only the dunders of ordinary
values (ORDINARY_DUNDERS: construction, repr, containers, iteration, comparison, arithmetic,
context managers); it takes no keywords (`metaclass=`); its bases are classes the user may use.
`__module__` and `__qualname__` are the interpreter's to set.

Python calls a class's dunders, and a property's accessors, directly: so those must be user code
(functions defined by `def` or `lambda`, which run only through the interpreter), never a builtin
or a class (`__call__ = np.ndarray` would build arrays over raw memory unchecked). `__getattr__`
may be defined: it is wrapped so that Python's and numpy's own probes (dunder names) never reach
it, and outside a statement it answers AttributeError without running.

Classes made by `class` statements are registered here (weakly, by identity): that is what makes
a class the user's own, whatever attributes it has.
"""

from __future__ import annotations

import abc
import enum
import types
import weakref
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

import numpy as np

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.internal import class_of, is_internal, is_user_code
from tensorscope.sandbox.limits import OutsideStatement

_ARITHMETIC = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift",
               "and", "xor", "or")
ORDINARY_DUNDERS = frozenset({
    "__doc__", "__init__", "__call__", "__repr__", "__str__", "__format__",
    "__len__", "__getitem__", "__setitem__", "__delitem__", "__missing__", "__contains__",
    "__iter__", "__next__", "__reversed__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__",
    "__enter__", "__exit__", "__copy__", "__deepcopy__", "__post_init__", "__getattr__",
    "__neg__", "__pos__", "__abs__", "__invert__", "__divmod__", "__rdivmod__",
    "__int__", "__float__", "__complex__", "__round__", "__trunc__", "__floor__", "__ceil__",
    *(f"__{op}__" for op in _ARITHMETIC), *(f"__r{op}__" for op in _ARITHMETIC),
    *(f"__i{op}__" for op in _ARITHMETIC),
})
_WHY_NOT = {  # the reasons given for the dunders people are likeliest to try
    "raw memory": ("__array__", "__array_interface__", "__array_struct__", "__array_function__",
                   "__array_ufunc__", "__array_priority__", "__array_finalize__", "__array_wrap__",
                   "__dlpack__", "__dlpack_device__", "__cuda_array_interface__", "__buffer__",
                   "__release_buffer__", "__torch_function__", "__torch_dispatch__"),
    "attribute hooks would bypass the attribute policy": (
        "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__get__", "__set__",
        "__delete__", "__set_name__", "__class__", "__dict__", "__slots__", "__weakref__"),
    "it would run outside the interpreter's limits": ("__del__",),
    "it hooks into how classes are made": ("__new__", "__init_subclass__", "__class_getitem__", "__prepare__",
                                           "__mro_entries__", "__instancecheck__", "__subclasscheck__",
                                           "__subclasshook__"),
    "Python would trust its answer for sizes and indices": ("__index__", "__length_hint__", "__sizeof__"),
}
_REASONS = {name: why for why, names in _WHY_NOT.items() for name in names}
_NUMPY_BASES = (np.ndarray, np.generic, np.dtype)

_USER_CLASSES: weakref.WeakSet[type] = weakref.WeakSet()
# The metaclasses that may make a user's class: their code is the standard library's or ours.
_METACLASSES: set[type] = {type, abc.ABCMeta, enum.EnumType}


_ENUM_MIXINS = frozenset({object, int, str, float})


def allow_metaclass(metaclass: type) -> type:
    """Register one of our own metaclasses (typing.NamedTuple's) as one that may make user classes."""
    _METACLASSES.add(metaclass)
    return metaclass
_PLAIN_TYPES = frozenset({int, float, complex, bool, str, bytes, type(None)})


def register_user_class(cls: type) -> None:
    _USER_CLASSES.add(cls)


def is_user_class(cls: type) -> bool:
    return cls in _USER_CLASSES


def user_mro(obj: Any) -> tuple[type, ...] | None:
    """The MRO of obj's class (or of obj, a class) when a user class is in it, else None."""
    mro = class_of(obj).__mro__
    return mro if any(c in _USER_CLASSES for c in mro) else None


def is_user_instance(value: Any) -> bool:
    """An instance (not a class) of a class a `class` statement made."""
    cls = type(value)
    return cls not in _PLAIN_TYPES and cls in _USER_CLASSES


@gateway
def check_class_keywords(keywords: Mapping[str, Any]) -> None:
    if keywords:
        named = ", ".join(f"{key}=" for key in keywords)
        raise TypeError(f"class keywords ({named}) are not supported in tensorscope")


@gateway
def check_bases(bases: tuple[Any, ...], usable: Callable[[type], bool]) -> None:
    """Bases must be classes: not the interpreter's own, not `type` (a metaclass could make
    classes without a class statement), not numpy's array types (whose constructors read raw
    memory), and engine classes only where user code may use them (`usable`)."""
    for base in bases:
        if not isinstance(base, type):
            raise TypeError(f"bases of a class must be classes in tensorscope, not '{type(base).__name__}'")
        if is_internal(base) or issubclass(base, type) or issubclass(base, _NUMPY_BASES) or not usable(base):
            raise TypeError(f"classes may not inherit from '{base.__name__}' in tensorscope")
        if type(base) not in _METACLASSES:
            raise TypeError(f"classes may not inherit from '{base.__name__}' in tensorscope "
                            f"(its metaclass '{type(base).__name__}' would make the class)")
    if any(isinstance(base, enum.EnumType) for base in bases):
        for base in bases:
            if not all(c in _ENUM_MIXINS or is_user_class(c) or isinstance(c, enum.EnumType) for c in base.__mro__):
                raise TypeError(f"an enum may not mix in '{base.__name__}' in tensorscope (its members would be "
                                "built by it unchecked; int, str, float and your own classes may be)")


@gateway
def check_class_body(namespace: Mapping[str, Any], preset: Mapping[str, Any]) -> None:
    """Refuse a class body that defines anything but ordinary dunders, or that changed what the
    interpreter set (`preset`: __module__, __qualname__)."""
    for key, value in namespace.items():
        if not (key.startswith("__") and key.endswith("__") and len(key) > 4):
            continue
        if key in preset:
            if value is not preset[key]:
                raise TypeError(f"classes may not set {key} in tensorscope (the interpreter sets it)")
        elif key == "__doc__":
            if value is not None and not isinstance(value, str):
                raise TypeError("a class's __doc__ must be a string in tensorscope")
        elif key == "__annotations__":
            if type(value) is not dict:
                raise TypeError("a class's __annotations__ must be a dict in tensorscope")
        elif key == "__slots__" and type(value) is tuple and not value:
            continue  # `__slots__ = ()`, as subclasses of a namedtuple say: no attributes at all
        elif key not in ORDINARY_DUNDERS:
            why = _REASONS.get(key, "only ordinary methods such as __init__, __repr__, __len__, __getitem__, "
                                    "comparisons and arithmetic")
            raise TypeError(f"classes may not define {key} in tensorscope ({why})")
        elif value is not None and not runs_user_code(value):
            raise TypeError(f"classes may not set {key} to a '{type(value).__name__}' object in tensorscope "
                            "(Python would call it directly: define it with def)")
    for key, value in namespace.items():
        check_class_attribute(key, value)


@gateway
def check_class_attribute(name: str, value: Any) -> None:
    """A property's accessors (and a cached_property's function) are called by Python directly."""
    if isinstance(value, property):
        accessors = (value.fget, value.fset, value.fdel)
    elif isinstance(value, cached_property):
        accessors = (value.func,)
    else:
        return
    if any(f is not None and not runs_user_code(f) for f in accessors):
        raise TypeError(f"the property '{name}' must use functions defined with def or lambda in tensorscope "
                        "(Python calls them directly)")


def runs_user_code(value: Any) -> bool:
    """User code, possibly wrapped in staticmethod/classmethod or in an engine decorator that
    calls it (torch.no_grad()(f), followed through __wrapped__, which user code cannot set)."""
    for _ in range(10):
        if is_user_code(value):
            return True
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        elif isinstance(value, types.FunctionType):
            value = getattr(value, "__wrapped__", None)
        else:
            return False
    return False


def guard_getattr(namespace: dict[str, Any], call: Callable[..., Any]) -> None:
    """Replace a class body's `__getattr__` by one that never shows it dunder names (Python's,
    numpy's and copy's probes) and that runs it only inside a statement, through the interpreter."""
    user_getattr = namespace.get("__getattr__")
    if user_getattr is None:
        return

    @gateway
    def __getattr__(self: Any, name: str) -> Any:
        if not (name.startswith("__") and name.endswith("__")):
            try:
                return call(user_getattr, self, name)
            except OutsideStatement:
                pass
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    namespace["__getattr__"] = __getattr__
