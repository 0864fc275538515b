"""The Sandbox: one interpreter's policy, tying builtins, modules, attributes, meters and output."""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import engine
from tensorscope.sandbox import classes
from tensorscope.sandbox.attributes import (
    SAFE_DUNDERS,
    AttributePolicy,
    check_value,
    is_paddle_tensor,
    policy_target,
    refuse_attribute,
)
from tensorscope.sandbox.builtin_names import make_builtins
from tensorscope.sandbox.callbacks import guarded_sort, is_list_sort
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.internal import is_internal
from tensorscope.sandbox.limits import (
    COSTED,
    LARGE_RESULT_BYTES,
    MAX_INT_BITS,
    MAX_OUTPUT_CHARS,
    MAX_SESSION_OUTPUT_CHARS,
    LimitExceeded,
    Meter,
    NestingGuard,
    is_large,
    refuse_size,
)
from tensorscope.sandbox.modules import ModuleProxy, Modules
from tensorscope.sandbox.numpy_surface import (
    check_numpy_call,
    check_numpy_value,
    limited_tolist,
    numpy_guarded,
    tolist_bytes,
)
from tensorscope.sandbox.sizes import check_sequence_bytes, int_from_bytes, is_int, range_length
from tensorscope.sandbox.stand_ins import UNCONSTRUCTIBLE, StandIns, is_stand_in, real_class
from tensorscope.sandbox.strings import SafeFormatter, bound, guarded_string_method

_NUMPY_CLASSES = (np.ndarray, np.generic, np.dtype)
_SMALL_RESULTS = frozenset({int, float, bool, complex, type(None)})  # nothing in them to check
# Callables that call a class they hold: `list[int](...)`, `typing.List[int](...)`, a staticmethod.
_ALIASES = (types.GenericAlias, typing._BaseGenericAlias)  # noqa: SLF001 - typing's alias base
_CLASS_WRAPPERS = (*_ALIASES, staticmethod)
_CLASS_LIKE = (type, typing._GenericAlias)  # noqa: SLF001 - what may need a stand-in (see stand_ins)


class Sandbox:
    """The policy for one interpreter: its builtins, modules, attribute rules, meter and output."""

    def __init__(self, meter: Meter, call: Callable[..., Any], namespace: dict[str, Any]) -> None:
        self.meter = meter
        self.call = call  # the interpreter's metered call, for builtins that call user functions
        self.namespace = namespace  # the user's names, for dir()
        self.attributes = AttributePolicy()
        self.nesting = NestingGuard()
        self.output: list[str] = []
        self.output_chars = 0
        self.earlier_output_chars = 0  # what the session's earlier statements printed
        self.formatter = SafeFormatter(self.getattr)
        self.free_ids: set[int] = set()  # functions whose calls cost one step (see before_call)
        self.stand_ins = StandIns(call, lambda cls: self.modules.usable(cls))
        self.builtins = make_builtins(self)
        self.modules = Modules(self)

    # ------------------------------------------------------------------ output
    def write(self, text: str, counted: int = 0) -> None:
        """Add text to the statement's output; `counted` of its characters were counted already."""
        self.count_output(len(text) - counted)
        self.output.append(text)

    def count_output(self, chars: int) -> None:
        self.output_chars += chars
        if self.output_chars > MAX_OUTPUT_CHARS:
            raise LimitExceeded("RuntimeError", f"statement printed more than {MAX_OUTPUT_CHARS:,} characters")
        if self.earlier_output_chars + self.output_chars > MAX_SESSION_OUTPUT_CHARS:
            raise LimitExceeded("RuntimeError", f"the session printed more than {MAX_SESSION_OUTPUT_CHARS:,} "
                                                "characters (every step's output is kept; start a new session)")

    def take_output(self) -> str:
        text = "".join(self.output)
        self.output.clear()
        self.earlier_output_chars += self.output_chars
        self.output_chars = 0
        return text

    # ------------------------------------------------------------------ user classes
    @gateway
    def resolve_bases(self, bases: tuple[Any, ...]) -> tuple[Any, ...]:
        """types.resolve_bases, asking only objects that are not user values for __mro_entries__
        (user classes cannot define it; typing's aliases and NamedTuple do)."""
        return types.resolve_bases(bases)

    def real_class(self, value: Any) -> Any:
        """The class a stand-in stands for (a class statement's base), else value itself."""
        return real_class(value)

    def is_stand_in(self, value: Any) -> bool:
        return is_stand_in(value)

    @gateway
    def check_class(self, bases: tuple[Any, ...], keywords: Mapping[str, Any]) -> None:
        """Before a class body runs: no keywords, and bases user code may extend."""
        classes.check_class_keywords(keywords)
        classes.check_bases(bases, self.modules.usable)

    @gateway
    def check_class_body(self, namespace: dict[str, Any], preset: Mapping[str, Any]) -> None:
        """After a class body ran: it defined only what a class may define; its `__getattr__`, if
        any, is wrapped (see classes.guard_getattr)."""
        classes.check_class_body(namespace, preset)
        classes.guard_getattr(namespace, self.call)

    def register_class(self, cls: type) -> None:
        classes.register_user_class(cls)

    # ------------------------------------------------------------------ attributes
    def readable(self, obj: Any, name: str) -> bool:
        return self.attributes.readable(policy_target(obj), name)

    @gateway
    def getattr(self, obj: Any, name: Any) -> Any:
        """`obj.name` under the attribute policy, with size-guarded methods where needed. The rules
        are those of the object that holds the attribute (`super(C, x).m` is x's `m`)."""
        target = policy_target(obj)
        self.attributes.check_read(target, name)
        if name == "__class__":
            return self.stand_ins.of(type(real_class(obj)))
        value = getattr(real_class(obj), name)
        if name in SAFE_DUNDERS and not isinstance(value, (str, type(None))):
            raise refuse_attribute(name, "not a string")
        return self.checked(self._guard_method(target, name, value), f"attribute '{name}'")

    @gateway
    def checked(self, value: Any, what: str) -> Any:
        """A result handed to user code: never a module, frame, code object or memoryview, nor an
        object or structured numpy array, nor tuples nested too deep; large ones make the meter
        look at memory."""
        cls = type(value)
        if cls in _SMALL_RESULTS:
            return value
        if cls is np.ndarray:  # the common large result: one look at its dtype and size
            check_numpy_value(value)
            if value.nbytes > LARGE_RESULT_BYTES:
                self.meter.check_memory()
            return value
        check_value(value, what)
        if isinstance(value, _CLASS_LIKE):
            return self.stand_ins.of(value)
        if isinstance(value, (np.ndarray, np.generic)):
            check_numpy_value(value)
        elif isinstance(value, tuple):
            self.nesting.check(value)
        if is_large(value):
            self.meter.check_memory()
        return value

    def _guard_method(self, obj: Any, name: str, value: Any) -> Any:
        """The guarded stand-in for methods that could build huge results or bypass the policy."""
        guarded = guarded_string_method(self, value)
        if guarded is not None:
            return guarded
        if is_list_sort(value):
            return bound(guarded_sort, self.call, self.meter, value, name="list.sort")
        if isinstance(obj, (np.ndarray, np.generic)) and callable(value):
            if name == "tolist":
                return limited_tolist(tolist_bytes(obj.size, obj.itemsize), value)
            return numpy_guarded(name, value, obj, f"numpy.{type(obj).__name__}")
        if name == "tolist" and isinstance(obj, engine.Tensor):
            return limited_tolist(tolist_bytes(obj.numel(), obj.element_size()), value)
        if name == "tolist" and is_paddle_tensor(obj):
            return limited_tolist(tolist_bytes(int(obj.size), 8), value)
        if name == "from_bytes" and type(value) is types.BuiltinMethodType and isinstance(value.__self__, type) \
                and issubclass(value.__self__, int):
            return int_from_bytes
        if isinstance(obj, range) and name in ("index", "count"):
            return bound(_range_search, self.meter, value, name=f"range.{name}")
        return value

    @gateway
    def setattr(self, obj: Any, name: Any, value: Any) -> None:
        obj = real_class(obj)
        self.attributes.check_write(policy_target(obj), name)
        if isinstance(obj, type):
            classes.check_class_attribute(name, value)
        setattr(obj, name, value)

    @gateway
    def delattr(self, obj: Any, name: Any) -> None:
        obj = real_class(obj)
        self.attributes.check_write(policy_target(obj), name)
        delattr(obj, name)

    # ------------------------------------------------------------------ calls
    @gateway
    def before_call(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Meter a call into non-interpreted code (containers it is given cost a step per item) and
        refuse the calls the policy forbids."""
        work = 0
        if id(func) not in self.free_ids:
            for value in (*args, *kwargs.values()):
                if type(value) in COSTED:
                    work += len(value)
        self.meter.tick(1 + work)
        if isinstance(func, type):
            self._check_construction(func, args, kwargs)
        elif type(func) is types.MethodType:
            if isinstance(func.__func__, type):  # a classmethod made of a class
                self._check_construction(func.__func__, (func.__self__, *args), kwargs)
        elif isinstance(func, _CLASS_WRAPPERS):
            self.before_call(real_class(func.__origin__ if isinstance(func, _ALIASES) else func.__func__), args, kwargs)

    @gateway
    def _check_construction(self, cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if is_internal(cls) or cls in UNCONSTRUCTIBLE or not self.modules.usable(cls):
            raise TypeError(f"cannot create '{cls.__name__}' objects in tensorscope")
        if issubclass(cls, type) and (cls is not type or len(args) != 1):  # a metaclass: type(name, bases, dict)
            raise TypeError(f"{cls.__name__}() takes 1 argument in tensorscope (classes are made with `class`)"
                            if cls is type else f"cannot create classes with '{cls.__name__}' in tensorscope "
                                                "(classes are made with `class`)")
        if isinstance(cls, enum.EnumType) and (len(args) != 1 or kwargs):  # Enum('X', names, type=...)
            raise TypeError("enum classes are made with `class` in tensorscope (calling one looks up a member)")
        if issubclass(cls, _NUMPY_CLASSES):
            name = "ndarray" if issubclass(cls, np.ndarray) else "dtype" if cls is np.dtype else cls.__name__
            check_numpy_call("numpy", name, None, args, kwargs)
        elif cls is int and args and isinstance(args[0], (str, bytes, bytearray)) and len(args[0]) > MAX_INT_BITS // 4:
            raise refuse_size("int() of a string", len(args[0]), MAX_INT_BITS // 4, "digits")
        elif issubclass(cls, (bytes, bytearray)) and args and is_int(args[0]):
            check_sequence_bytes(f"{cls.__name__}()", args[0])

    # ------------------------------------------------------------------ imports
    def import_module(self, dotted: str) -> ModuleProxy:
        return self.modules.import_module(dotted)

    def import_from(self, module: ModuleProxy, dotted: str, name: str) -> Any:
        return self.checked(self.modules.import_from(module, dotted, name), f"'{name}'")


@gateway
def _range_search(meter: Meter, method: Callable[..., Any], value: Any, *args: Any) -> Any:
    """range.index/count: instant for an int, a scan of the whole range for anything else."""
    range_ = method.__self__
    if type(value) not in (int, bool):
        meter.tick(range_length(range_))
    return method(value, *args)

