"""`collections.namedtuple` and `typing.NamedTuple`, built without exec.

CPython's namedtuple writes its `__new__` as source text and execs it; here `__new__` binds its
arguments by name (`signatures.Signature`), so field names never reach a compiler, and they are
validated as CPython validates them (identifiers, no keywords, no leading underscore, no
duplicates) with the same messages. The class is otherwise CPython's: a tuple subclass with
`_fields`, `_field_defaults`, `_make`, `_replace`, `_asdict`, field properties, `__repr__`,
`__getnewargs__` and `__match_args__`; it is registered as a user class (its `_fields` and
`_asdict` are readable, it may be subclassed).
"""

from __future__ import annotations

import sys
from _collections import _tuplegetter
from collections.abc import Callable, Iterable
from keyword import iskeyword
from typing import Any

from tensorscope.sandbox.classes import allow_metaclass, register_user_class
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.stdlib.signatures import Signature

_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                         "_make", "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})


@gateway
def namedtuple(typename: Any, field_names: Any, *, rename: bool = False, defaults: Any = None,
               module: Any = None) -> type:
    """collections.namedtuple, with CPython's checks and messages."""
    if isinstance(field_names, str):
        field_names = field_names.replace(",", " ").split()
    field_names = list(map(str, field_names))
    typename = sys.intern(str(typename))
    if rename:
        seen: set[str] = set()
        for index, name in enumerate(field_names):
            if not name.isidentifier() or iskeyword(name) or name.startswith("_") or name in seen:
                field_names[index] = f"_{index}"
            seen.add(name)
    for name in [typename, *field_names]:
        if not name.isidentifier():
            raise ValueError(f"Type names and field names must be valid identifiers: {name!r}")
        if iskeyword(name):
            raise ValueError(f"Type names and field names cannot be a keyword: {name!r}")
    seen = set()
    for name in field_names:
        if name.startswith("_") and not rename:
            raise ValueError(f"Field names cannot start with an underscore: {name!r}")
        if name in seen:
            raise ValueError(f"Encountered duplicate field name: {name!r}")
        seen.add(name)
    field_defaults: dict[str, Any] = {}
    if defaults is not None:
        defaults = tuple(defaults)
        if len(defaults) > len(field_names):
            raise TypeError("Got more default values than field names")
        field_defaults = dict(reversed(list(zip(reversed(field_names), reversed(defaults), strict=False))))
    return _make_class(typename, tuple(map(sys.intern, field_names)), field_defaults,
                       "__main__" if module is None else module)


@gateway
def _make_class(typename: str, fields: tuple[str, ...], field_defaults: dict[str, Any], module: Any) -> type:
    signature = Signature(f"{typename}.__new__", fields, defaults=field_defaults, first="_cls")
    arguments = ", ".join(fields)
    repr_format = "(" + ", ".join(f"{name}=%r" for name in fields) + ")"

    def __new__(_cls: type, *args: Any, **kwargs: Any) -> Any:
        values = signature.bind(args, kwargs)
        return tuple.__new__(_cls, [values[name] for name in fields])

    @classmethod  # type: ignore[misc]
    def _make(cls: type, iterable: Iterable[Any]) -> Any:
        result = tuple.__new__(cls, iterable)
        if len(result) != len(fields):
            raise TypeError(f"Expected {len(fields)} arguments, got {len(result)}")
        return result

    def _replace(self: Any, /, **kwds: Any) -> Any:
        result = self._make(map(kwds.pop, fields, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    def __repr__(self: Any) -> str:
        return self.__class__.__name__ + repr_format % self

    def _asdict(self: Any) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=False))

    def __getnewargs__(self: Any) -> tuple[Any, ...]:
        return tuple(self)

    methods: list[Callable[..., Any]] = [__new__, _make.__func__, _replace, __repr__, _asdict, __getnewargs__]
    for method in methods:
        method.__qualname__ = f"{typename}.{method.__name__}"
    __new__.__doc__ = f"Create new instance of {typename}({arguments})"
    namespace = {"__doc__": f"{typename}({arguments})", "__slots__": (), "_fields": fields,
                 "_field_defaults": field_defaults, "__new__": __new__, "_make": _make, "_replace": _replace,
                 "__repr__": __repr__, "_asdict": _asdict, "__getnewargs__": __getnewargs__, "__match_args__": fields}
    for index, name in enumerate(fields):
        namespace[name] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
    cls = type(typename, (tuple,), namespace)
    cls.__module__ = module
    register_user_class(cls)
    return cls


@allow_metaclass
class NamedTupleMeta(type):
    """What `class P(NamedTuple):` makes: a namedtuple of the annotated fields (defaults from the
    body), with the body's other attributes (methods, docstring) added, as typing's does."""

    @gateway
    def __new__(mcs, typename: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if bases != (NamedTupleBase,):
            raise TypeError("can only inherit from a NamedTuple type (tensorscope: and nothing else)")
        annotations = namespace.get("__annotations__", {})
        default_names: list[str] = []
        for name in annotations:
            if name in namespace:
                default_names.append(name)
            elif default_names:
                raise TypeError(f"Non-default namedtuple field {name} cannot follow default "
                                f"field{'s' if len(default_names) > 1 else ''} {', '.join(default_names)}")
        cls = namedtuple(typename, list(annotations), defaults=[namespace[n] for n in default_names],
                         module=namespace["__module__"])
        cls.__annotations__ = dict(annotations)
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
            if key not in _SPECIAL and key not in cls._fields:
                setattr(cls, key, value)
        return cls


NamedTupleBase = type.__new__(NamedTupleMeta, "NamedTuple", (), {})


@gateway
def NamedTuple(typename: str, fields: Any = None, /, **kwargs: Any) -> type:  # noqa: N802 - typing's name
    """typing.NamedTuple('P', [('x', int)]) or NamedTuple('P', x=int); as a base, see NamedTupleMeta."""
    if fields is None:
        fields = kwargs.items()
    elif kwargs:
        raise TypeError("Either list of fields or keywords can be provided to NamedTuple, not both")
    pairs = [(name, kind) for name, kind in fields]
    cls = namedtuple(typename, [name for name, _ in pairs])
    cls.__annotations__ = dict(pairs)
    return cls


NamedTuple.__mro_entries__ = lambda bases: (NamedTupleBase,)  # type: ignore[attr-defined]
