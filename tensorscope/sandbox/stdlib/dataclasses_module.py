"""`dataclasses`, built without exec.

CPython's `@dataclass` writes `__init__`, `__repr__`, `__eq__`... as source text and execs it, with
field names from `__annotations__` (which a class body can fill with any string). Here the same
methods are closures that work from the field list, so nothing is compiled; the rules are
CPython's, step for step (`_process_class`): fields inherited from dataclass bases, ClassVar,
InitVar and KW_ONLY annotations (also as strings, resolved in the session's names), defaults and
`field()`, the mutable-default and default-order errors, frozen classes, order, the `__hash__`
table, `__match_args__`, `__doc__`. Default factories and `__post_init__` run through the
interpreter. `@dataclass` takes only classes user code defined (it sets attributes on them);
`slots=True` is refused. `asdict`/`astuple` copy leaves with the sandbox's deepcopy; `replace`
constructs through the interpreter. `field`, `fields`, `Field`, `is_dataclass`, `MISSING`,
`KW_ONLY`, `InitVar` and `FrozenInstanceError` are CPython's.
"""

from __future__ import annotations

import abc
import dataclasses
import inspect
import operator
import re
import reprlib
import types
import typing
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.classes import is_user_class
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.stdlib.signatures import Signature

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

NAMES = ("dataclass", "field", "fields", "Field", "asdict", "astuple", "replace", "is_dataclass", "MISSING",
         "KW_ONLY", "InitVar", "FrozenInstanceError")
MISSING = dataclasses.MISSING
_FIELD, _CLASSVAR, _INITVAR = dataclasses._FIELD, dataclasses._FIELD_CLASSVAR, dataclasses._FIELD_INITVAR  # noqa: SLF001
_FACTORY = dataclasses._HAS_DEFAULT_FACTORY  # noqa: SLF001 - a parameter whose default is a factory (`<factory>`)
_MODULE_IDENTIFIER = re.compile(r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")
_ORDER = (("__lt__", operator.lt), ("__le__", operator.le), ("__gt__", operator.gt), ("__ge__", operator.ge))


@gateway
def make_dataclasses_module(sandbox: Sandbox) -> dict[str, Any]:
    call, meter, namespace = sandbox.call, sandbox.meter, sandbox.namespace

    def is_type(annotation: Any, module: Any, wanted: Any, predicate: Any) -> bool:
        """A string annotation naming `wanted` (`'ClassVar[int]'`, `'typing.ClassVar'`), looked up
        in the session's names as CPython looks it up in the class's module."""
        match = _MODULE_IDENTIFIER.match(annotation)
        if not match:
            return False
        module_name, name = match.groups()
        if not module_name:
            return predicate(namespace.get(name))
        proxy = namespace.get(module_name)
        if proxy is not sandbox.modules.import_module(module.__name__):
            return False
        return predicate(getattr(module, name, None))

    def is_classvar(kind: Any) -> bool:
        return kind is typing.ClassVar or (type(kind) is typing._GenericAlias and kind.__origin__ is typing.ClassVar)  # noqa: SLF001

    def is_initvar(kind: Any) -> bool:
        return kind is dataclasses.InitVar or type(kind) is dataclasses.InitVar

    def is_kw_only(kind: Any) -> bool:
        return kind is dataclasses.KW_ONLY

    def annotated(kind: Any, module: Any, wanted: Any, predicate: Any) -> bool:
        return predicate(kind) or (isinstance(kind, str) and is_type(kind, module, wanted, predicate))

    def get_field(cls: type, name: str, kind: Any, kw_only: bool) -> dataclasses.Field[Any]:
        default = getattr(cls, name, MISSING)
        if isinstance(default, dataclasses.Field):
            f = default
        else:
            if isinstance(default, types.MemberDescriptorType):
                default = MISSING
            f = dataclasses.field(default=default)
        f.name, f.type, f._field_type = name, kind, _FIELD
        if annotated(kind, typing, typing.ClassVar, is_classvar):
            f._field_type = _CLASSVAR
        elif annotated(kind, dataclasses, dataclasses.InitVar, is_initvar):
            f._field_type = _INITVAR
        if f._field_type in (_CLASSVAR, _INITVAR) and f.default_factory is not MISSING:
            raise TypeError(f"field {f.name} cannot have a default factory")
        if f._field_type in (_FIELD, _INITVAR):
            if f.kw_only is MISSING:
                f.kw_only = kw_only
        elif f.kw_only is not MISSING:
            raise TypeError(f"field {f.name} is a ClassVar but specifies kw_only")
        if f._field_type is _FIELD and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {f.name} is not allowed: use default_factory")
        return f

    def process(cls: Any, init: bool, repr: bool, eq: bool, order: bool, unsafe_hash: bool, frozen: bool,  # noqa: A002
                match_args: bool, kw_only: bool) -> type:
        if not (isinstance(cls, type) and is_user_class(cls)):
            raise TypeError("dataclass() takes a class defined in your code in tensorscope")
        fields: dict[str, dataclasses.Field[Any]] = {}
        type.__setattr__(cls, "__dataclass_params__",
                         dataclasses._DataclassParams(init, repr, eq, order, unsafe_hash, frozen))  # noqa: SLF001
        any_frozen_base = has_dataclass_bases = False
        for base in cls.__mro__[-1:0:-1]:
            base_fields = getattr(base, "__dataclass_fields__", None)
            if base_fields is not None:
                has_dataclass_bases = True
                fields.update((f.name, f) for f in base_fields.values())
                any_frozen_base |= base.__dataclass_params__.frozen
        annotations = cls.__dict__.get("__annotations__", {})
        own, kw_only_seen = [], False
        for name, kind in annotations.items():
            if annotated(kind, dataclasses, dataclasses.KW_ONLY, is_kw_only):
                if kw_only_seen:
                    raise TypeError(f"{name!r} is KW_ONLY, but KW_ONLY has already been specified")
                kw_only_seen = kw_only = True
            else:
                own.append(get_field(cls, name, kind, kw_only))
        for f in own:
            fields[f.name] = f
            if isinstance(getattr(cls, f.name, None), dataclasses.Field):
                if f.default is MISSING:
                    type.__delattr__(cls, f.name)
                else:
                    type.__setattr__(cls, f.name, f.default)
        for name, value in cls.__dict__.items():
            if isinstance(value, dataclasses.Field) and name not in annotations:
                raise TypeError(f"{name!r} is a field but has no type annotation")
        if has_dataclass_bases and any_frozen_base != frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one" if any_frozen_base
                            else "cannot inherit frozen dataclass from a non-frozen one")
        type.__setattr__(cls, "__dataclass_fields__", fields)
        class_hash = cls.__dict__.get("__hash__", MISSING)
        has_explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__))
        if order and not eq:
            raise ValueError("eq must be true if order is true")
        init_fields = [f for f in fields.values() if f._field_type in (_FIELD, _INITVAR)]
        positional = [f for f in init_fields if f.init and not f.kw_only]
        keyword_only = [f for f in init_fields if f.init and f.kw_only]
        field_list = [f for f in fields.values() if f._field_type is _FIELD]
        if init:
            set_new(cls, "__init__", make_init(cls, init_fields, positional, keyword_only, frozen))
        if repr:
            set_new(cls, "__repr__", make_repr(cls, [f for f in field_list if f.repr]))
        compared = [f for f in field_list if f.compare]
        if eq:
            set_new(cls, "__eq__", make_compare(cls, "__eq__", operator.eq, compared))
        if order:
            for name, op in _ORDER:
                if set_new(cls, name, make_compare(cls, name, op, compared)):
                    raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                                    "Consider using functools.total_ordering")
        if frozen:
            for method in make_frozen(cls, field_list):
                if set_new(cls, method.__name__, method):
                    raise TypeError(f"Cannot overwrite attribute {method.__name__} in class {cls.__name__}")
        set_hash(cls, field_list, unsafe_hash, eq, frozen, has_explicit_hash)
        if not cls.__doc__:
            type.__setattr__(cls, "__doc__", cls.__name__ + text_signature(positional, keyword_only))
        if match_args:
            set_new(cls, "__match_args__", tuple(f.name for f in positional))
        abc.update_abstractmethods(cls)
        return cls

    def set_new(cls: type, name: str, value: Any) -> bool:
        """CPython's `_set_new_attribute`: True (and nothing set) when the class defines name."""
        if name in cls.__dict__:
            return True
        type.__setattr__(cls, name, value)
        return False

    def make_init(cls: type, init_fields: list[Any], positional: list[Any], keyword_only: list[Any],
                  frozen: bool) -> Any:
        def check_default_order() -> None:
            seen_default = False
            for f in positional:
                if not (f.default is MISSING and f.default_factory is MISSING):
                    seen_default = True
                elif seen_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")

        check_default_order()
        defaults = {f.name: _FACTORY if f.default_factory is not MISSING else f.default
                    for f in (*positional, *keyword_only) if f.default is not MISSING or f.default_factory is not MISSING}
        signature = Signature(f"{cls.__qualname__}.__init__", tuple(f.name for f in positional),
                              tuple(f.name for f in keyword_only), defaults)
        has_post_init = hasattr(cls, "__post_init__")
        assign = object.__setattr__ if frozen else setattr

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            values = signature.bind(args, kwargs)
            for f in init_fields:
                if f._field_type is _INITVAR:
                    continue
                if f.default_factory is not MISSING:
                    value = values[f.name] if f.init else _FACTORY
                    if value is _FACTORY:
                        value = call(f.default_factory)
                elif f.init:
                    value = values[f.name]
                else:
                    continue  # the class attribute is its default
                assign(self, f.name, value)
            if has_post_init:
                call(self.__post_init__, *(values[f.name] for f in init_fields if f._field_type is _INITVAR))

        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        return __init__

    def make_repr(cls: type, fields: list[Any]) -> Any:
        @reprlib.recursive_repr()
        def __repr__(self: Any) -> str:
            parts = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields)
            return f"{self.__class__.__qualname__}({parts})"

        __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
        return __repr__

    def make_compare(cls: type, name: str, op: Any, fields: list[Any]) -> Any:
        def compare(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return op(tuple(getattr(self, f.name) for f in fields), tuple(getattr(other, f.name) for f in fields))
            return NotImplemented

        compare.__name__, compare.__qualname__ = name, f"{cls.__qualname__}.{name}"
        return compare

    def make_frozen(cls: type, fields: list[Any]) -> tuple[Any, Any]:
        names = tuple(f.name for f in fields)

        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in names:
                raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
            super(cls, self).__setattr__(name, value)

        def __delattr__(self: Any, name: str) -> None:
            if type(self) is cls or name in names:
                raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
            super(cls, self).__delattr__(name)

        for method in (__setattr__, __delattr__):
            method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        return __setattr__, __delattr__

    def set_hash(cls: type, fields: list[Any], unsafe_hash: bool, eq: bool, frozen: bool, explicit: bool) -> None:
        """CPython's `_hash_action` table."""
        if unsafe_hash and explicit:
            raise TypeError(f"Cannot overwrite attribute __hash__ in class {cls.__name__}")
        if explicit or not (unsafe_hash or eq):
            return
        if eq and not frozen and not unsafe_hash:
            type.__setattr__(cls, "__hash__", None)
            return
        hashed = [f for f in fields if (f.compare if f.hash is None else f.hash)]

        def __hash__(self: Any) -> int:
            return hash(tuple(getattr(self, f.name) for f in hashed))

        __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
        type.__setattr__(cls, "__hash__", __hash__)

    def text_signature(positional: list[Any], keyword_only: list[Any]) -> str:
        def parameter(f: Any, kind: Any) -> inspect.Parameter:
            default = _FACTORY if f.default_factory is not MISSING else f.default
            return inspect.Parameter(f.name, kind, default=inspect.Parameter.empty if default is MISSING else default,
                                     annotation=f.type)

        try:
            return str(inspect.Signature([*(parameter(f, inspect.Parameter.POSITIONAL_OR_KEYWORD) for f in positional),
                                          *(parameter(f, inspect.Parameter.KEYWORD_ONLY) for f in keyword_only)]))
        except (TypeError, ValueError):
            return ""

    def dataclass(cls: Any = None, /, *, init: bool = True, repr: bool = True, eq: bool = True,  # noqa: A002
                  order: bool = False, unsafe_hash: bool = False, frozen: bool = False, match_args: bool = True,
                  kw_only: bool = False, slots: bool = False, weakref_slot: bool = False) -> Any:
        if slots or weakref_slot:
            raise TypeError("dataclass(slots=True) is not supported in tensorscope")

        def wrap(cls: Any) -> type:
            return process(cls, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only)

        return wrap if cls is None else wrap(cls)

    def is_instance(obj: Any) -> bool:
        return hasattr(type(obj), "__dataclass_fields__")

    def copy_leaf(value: Any) -> Any:
        return sandbox.modules.import_module("copy").deepcopy(value)

    def inner(obj: Any, factory: Any, as_dict: bool) -> Any:
        meter.tick()
        if is_instance(obj):
            items = [(f.name, inner(getattr(obj, f.name), factory, as_dict)) for f in dataclasses.fields(obj)]
            if not as_dict:
                return call(factory, [value for _, value in items])
            return dict(items) if factory is dict else call(factory, items)
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            return call(type(obj), *[inner(v, factory, as_dict) for v in obj])
        if isinstance(obj, (list, tuple)):
            return call(type(obj), [inner(v, factory, as_dict) for v in obj])
        if isinstance(obj, dict):
            return call(type(obj), [(inner(k, factory, as_dict), inner(v, factory, as_dict)) for k, v in obj.items()])
        return copy_leaf(obj)

    def asdict(obj: Any, *, dict_factory: Any = dict) -> Any:
        if not is_instance(obj):
            raise TypeError("asdict() should be called on dataclass instances")
        return inner(obj, dict_factory, True)

    def astuple(obj: Any, *, tuple_factory: Any = tuple) -> Any:
        if not is_instance(obj):
            raise TypeError("astuple() should be called on dataclass instances")
        return inner(obj, tuple_factory, False)

    def replace(obj: Any, /, **changes: Any) -> Any:
        if not is_instance(obj):
            raise TypeError("replace() should be called on dataclass instances")
        for f in obj.__dataclass_fields__.values():
            if f._field_type is _CLASSVAR:
                continue
            if not f.init:
                if f.name in changes:
                    raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
                continue
            if f.name not in changes:
                if f._field_type is _INITVAR and f.default is MISSING:
                    raise ValueError(f"InitVar {f.name!r} must be specified with replace()")
                changes[f.name] = getattr(obj, f.name)
        return call(obj.__class__, **changes)

    return {"dataclass": dataclass, "field": dataclasses.field, "fields": dataclasses.fields,
            "Field": dataclasses.Field, "asdict": asdict, "astuple": astuple, "replace": replace,
            "is_dataclass": dataclasses.is_dataclass, "MISSING": MISSING, "KW_ONLY": dataclasses.KW_ONLY,
            "InitVar": dataclasses.InitVar, "FrozenInstanceError": dataclasses.FrozenInstanceError}

