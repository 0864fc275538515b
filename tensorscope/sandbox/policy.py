"""The Sandbox: one interpreter's policy, tying builtins, modules, attributes, meters and output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from tensorscope.sandbox.attributes import (
    SAFE_DUNDERS,
    AttributePolicy,
    check_value,
    is_internal,
    is_paddle_tensor,
    refuse_attribute,
)
from tensorscope.sandbox.builtin_names import make_builtins
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import (
    COSTED,
    MAX_INT_BITS,
    MAX_ITEMS,
    MAX_OUTPUT_CHARS,
    LimitExceeded,
    Meter,
    is_large,
    refuse_size,
)
from tensorscope.sandbox.modules import ModuleProxy, Modules
from tensorscope.sandbox.numpy_surface import limited_tolist, numpy_guarded, numpy_result_size
from tensorscope.sandbox.sizes import check_array_size, int_from_bytes, is_int
from tensorscope.sandbox.strings import STRING_GUARDS, SafeFormatter, bound


class Sandbox:
    """The policy for one interpreter: its builtins, modules, attribute rules, meter and output."""

    def __init__(self, meter: Meter, call: Callable[..., Any], namespace: dict[str, Any]) -> None:
        self.meter = meter
        self.call = call  # the interpreter's metered call, for builtins that call user functions
        self.namespace = namespace  # the user's names, for dir()
        self.attributes = AttributePolicy()
        self.output: list[str] = []
        self.output_chars = 0
        self.formatter = SafeFormatter(self.getattr)
        self.free_ids: frozenset[int] = frozenset()
        self.builtins = make_builtins(self)
        self.modules = Modules(meter)

    # ------------------------------------------------------------------ output
    def write(self, text: str) -> None:
        self.output_chars += len(text)
        if self.output_chars > MAX_OUTPUT_CHARS:
            raise LimitExceeded("RuntimeError", f"statement printed more than {MAX_OUTPUT_CHARS:,} characters")
        self.output.append(text)

    def take_output(self) -> str:
        text = "".join(self.output)
        self.output.clear()
        self.output_chars = 0
        return text

    # ------------------------------------------------------------------ user classes and attributes
    def register_class(self, cls: type) -> None:
        self.attributes.user_classes.add(cls)

    def readable(self, obj: Any, name: str) -> bool:
        return self.attributes.readable(obj, name)

    @gateway
    def getattr(self, obj: Any, name: Any) -> Any:
        """`obj.name` under the attribute policy, with size-guarded methods where needed."""
        self.attributes.check_read(obj, name)
        value = getattr(obj, name)
        if name in SAFE_DUNDERS and not isinstance(value, (str, type(None))):
            raise refuse_attribute(name, "not a string")
        return self.checked(self._guard_method(obj, name, value), f"attribute '{name}'")

    def checked(self, value: Any, what: str) -> Any:
        """A result handed to user code: never a module, frame or code object; large ones make
        the meter look at memory."""
        check_value(value, what)
        if is_large(value):
            self.meter.check_memory()
        return value

    def _guard_method(self, obj: Any, name: str, value: Any) -> Any:
        """The guarded stand-in for methods that could build huge results or bypass the policy."""
        if name in STRING_GUARDS:
            if isinstance(obj, (str, bytes, bytearray)):
                return bound(STRING_GUARDS[name], self, obj, name=f"{type(obj).__name__}.{name}")
            if obj is str or obj is bytes or obj is bytearray:
                return bound(STRING_GUARDS[name], self, name=f"{obj.__name__}.{name}")
        if isinstance(obj, np.ndarray) and callable(value):
            if name == "tolist":
                return limited_tolist(obj.size, value)
            return numpy_guarded(name, value, obj, "numpy.ndarray")
        if name == "tolist" and isinstance(obj, engine.Tensor):
            return limited_tolist(obj.numel(), value)
        if name == "tolist" and is_paddle_tensor(obj):
            return limited_tolist(int(obj.size), value)
        if obj is int and name == "from_bytes":
            return int_from_bytes
        return value

    @gateway
    def setattr(self, obj: Any, name: Any, value: Any) -> None:
        self.attributes.check_write(obj, name)
        setattr(obj, name, value)

    @gateway
    def delattr(self, obj: Any, name: Any) -> None:
        self.attributes.check_write(obj, name)
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
        if func is type and len(args) != 1:
            raise TypeError("type() takes 1 argument in tensorscope (classes are made with `class`)")
        if func is int and args and isinstance(args[0], (str, bytes, bytearray)) and len(args[0]) > MAX_INT_BITS // 4:
            raise refuse_size("int() of a string", len(args[0]), MAX_INT_BITS // 4, "digits")
        if func is np.ndarray:
            check_array_size("numpy.ndarray()", numpy_result_size("ndarray", None, args, kwargs))
        if (func is bytes or func is bytearray) and args and is_int(args[0]) and args[0] > MAX_ITEMS:
            raise refuse_size(f"{func.__name__}()", args[0], MAX_ITEMS)
        if isinstance(func, type) and is_internal(func):
            raise TypeError(f"cannot create '{func.__name__}' objects in tensorscope")

    @gateway
    def check_bases(self, bases: tuple[Any, ...]) -> None:
        """User classes may not extend the interpreter's own classes, nor `type` (a metaclass
        could make classes without going through `class`)."""
        for base in bases:
            if isinstance(base, type) and (is_internal(base) or issubclass(base, type)):
                raise TypeError(f"classes may not inherit from '{base.__name__}' in tensorscope")

    # ------------------------------------------------------------------ imports
    def import_module(self, dotted: str) -> ModuleProxy:
        return self.modules.import_module(dotted)

    def import_from(self, module: ModuleProxy, dotted: str, name: str) -> Any:
        return self.modules.import_from(module, dotted, name)
