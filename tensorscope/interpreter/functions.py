"""User functions: how they are represented, how arguments bind, and the signals of control flow."""

from __future__ import annotations

import ast
import types
from typing import TYPE_CHECKING, Any

from tensorscope.interpreter.scopes import REQUIRED, Scope, analyze_function
from tensorscope.sandbox import Uncatchable, gateway
from tensorscope.sandbox.internal import internal, user_code

if TYPE_CHECKING:
    from tensorscope.interpreter.core import Interpreter


@user_code
@internal("__name__", "__qualname__", "__doc__", "__module__")
class UserFunction:
    """A function or lambda defined by user code. Calling it runs its body in the interpreter;
    as a class attribute it binds like a Python function (descriptor protocol)."""

    def __init__(self, interpreter: Interpreter, node: ast.FunctionDef | ast.Lambda, scope: Scope,
                 defaults: tuple[Any, ...], kwdefaults: tuple[Any, ...], name: str) -> None:
        self.__name__ = name
        self.__qualname__ = scope.qualname + name
        self.__doc__ = ast.get_docstring(node, clean=False) if isinstance(node, ast.FunctionDef) else None
        self.__module__ = "__main__"
        self._interpreter = interpreter
        self._node = node
        self._scope = scope
        self._defaults = defaults
        self._kwdefaults = kwdefaults
        self._names = analyze_function(node)
        self._owner: type | None = None  # the class whose body defined it, for zero-argument super()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._interpreter._invoke(self, args, kwargs)

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<function {self.__qualname__} at {id(self):#x}>"


@internal()
class Return(Uncatchable):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


@internal()
class Break(Uncatchable):
    pass


@internal()
class Continue(Uncatchable):
    pass


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def name_list(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def callable_name(func: Any) -> str:
    if isinstance(func, (UserFunction, types.FunctionType, types.BuiltinFunctionType, type)):
        return func.__qualname__
    return type(func).__name__ + " object"


@gateway
def bind_arguments(function: UserFunction, args: tuple[Any, ...], kwargs: dict[str, Any],
                   names: dict[str, Any]) -> None:
    """Python's argument binding, with Python's TypeError wording."""
    spec, qualname = function._node.args, function.__qualname__
    positional_only = [a.arg for a in spec.posonlyargs]
    positional = positional_only + [a.arg for a in spec.args]
    keyword_only = [a.arg for a in spec.kwonlyargs]
    if len(args) > len(positional) and spec.vararg is None:
        raise TypeError(_too_many(qualname, len(positional), len(function._defaults), len(args)))
    names.update(zip(positional, args, strict=False))
    if spec.vararg is not None:
        names[spec.vararg.arg] = tuple(args[len(positional):])
    extra, misplaced = {}, []
    for key, value in kwargs.items():
        if (key in positional and key not in positional_only) or key in keyword_only:
            if key in names:
                raise TypeError(f"{qualname}() got multiple values for argument '{key}'")
            names[key] = value
        elif spec.kwarg is not None:
            extra[key] = value
        elif key in positional_only:
            misplaced.append(key)
        else:
            raise TypeError(f"{qualname}() got an unexpected keyword argument '{key}'")
    if misplaced:
        raise TypeError(f"{qualname}() got some positional-only arguments passed as keyword arguments: "
                        f"'{', '.join(misplaced)}'")
    _fill_defaults(function, positional, keyword_only, names)
    if spec.kwarg is not None:
        names[spec.kwarg.arg] = extra


@gateway
def _fill_defaults(function: UserFunction, positional: list[str], keyword_only: list[str],
                   names: dict[str, Any]) -> None:
    first_default = len(positional) - len(function._defaults)
    missing = []
    for i, name in enumerate(positional):
        if name not in names:
            if i >= first_default:
                names[name] = function._defaults[i - first_default]
            else:
                missing.append(name)
    if missing:
        raise TypeError(f"{function.__qualname__}() missing {plural(len(missing), 'required positional argument')}: "
                        f"{name_list(missing)}")
    for name, default in zip(keyword_only, function._kwdefaults, strict=True):
        if name not in names and default is not REQUIRED:
            names[name] = default
    missing = [n for n in keyword_only if n not in names]
    if missing:
        raise TypeError(f"{function.__qualname__}() missing {plural(len(missing), 'required keyword-only argument')}: "
                        f"{name_list(missing)}")


def _too_many(qualname: str, count: int, defaults: int, given: int) -> str:
    takes = f"from {count - defaults} to {count}" if defaults else str(count)
    was = "was" if given == 1 else "were"
    return f"{qualname}() takes {takes} positional argument{'' if takes == '1' else 's'} but {given} {was} given"
