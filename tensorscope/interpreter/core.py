"""The Interpreter: runs statements in one namespace, and the primitives every user value goes through."""

from __future__ import annotations

import ast
import contextlib
import sys
import threading
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from tensorscope.interpreter.expressions import Expressions
from tensorscope.interpreter.functions import Return, UserFunction, bind_arguments
from tensorscope.interpreter.generators import GeneratorStatements
from tensorscope.interpreter.names import Names
from tensorscope.interpreter.operators import CONTAINS, NOT_CONTAINS
from tensorscope.interpreter.parsing import check_supported, parse, parse_module
from tensorscope.interpreter.results import ErrorInfo, Outcome, Statement, UserError
from tensorscope.interpreter.scopes import COMPREHENSION, DONE, FUNCTION, MODULE, Scope
from tensorscope.interpreter.statements import Statements
from tensorscope.sandbox import (
    LimitExceeded,
    Meter,
    Sandbox,
    Uncatchable,
    check_binop,
    gateway,
    is_user_error,
)
from tensorscope.sandbox.limits import MAX_WARNINGS, OutsideStatement
from tensorscope.sandbox.sizes import range_length
from tensorscope.sandbox.stand_ins import StandInType, real_class
from tensorscope.sandbox.stdlib.typing_module import typing_index

__all__ = ["Interpreter", "OutsideStatement"]

MAX_ERROR_CHARS = 10_000  # longest error message kept (`raise ValueError('x' * 10**8)`)


def _shortened(message: str) -> str:
    if len(message) <= MAX_ERROR_CHARS:
        return message
    return f"{message[:MAX_ERROR_CHARS]}... ({len(message) - MAX_ERROR_CHARS:,} more characters)"


class _Warnings:
    """The warnings of one statement, each once, as `Category: message`, at most MAX_WARNINGS of
    them: a loop that warns at every turn would otherwise keep (and send) a million copies."""

    def __init__(self) -> None:
        self.seen: dict[str, None] = {}

    def show(self, message: Any, category: type[Warning], *where: Any, **more: Any) -> None:
        if len(self.seen) < MAX_WARNINGS:
            self.seen.setdefault(f"{category.__name__}: {message}")


_FRAMES_PER_CALL = 40  # generous bound on Python frames the evaluator uses per user-level call


@contextlib.contextmanager
def _recursion_room(frames: int) -> Iterator[None]:
    """Let the evaluator's own frames fit under Python's recursion limit for one statement."""
    previous = sys.getrecursionlimit()
    if previous < frames:
        sys.setrecursionlimit(frames)
    try:
        yield
    finally:
        if previous < frames:
            sys.setrecursionlimit(previous)


class Interpreter(Statements, GeneratorStatements, Expressions, Names):
    """Runs statements in one persistent namespace under the sandbox's allowlists and limits."""

    def __init__(self, *, max_steps: int = 1_000_000, max_depth: int = 200) -> None:
        self.namespace: dict[str, Any] = {}
        self._meter = Meter(max_steps, max_depth)
        self._sandbox = Sandbox(self._meter, self._call_from_builtin, self.namespace)
        self._module_scope = Scope(MODULE, self.namespace, None)
        self._handling: list[BaseException] = []  # exceptions whose `except` block is running
        self._future_annotations = False  # `from __future__ import annotations` ran
        self._running_in: int | None = None  # the thread running a statement, if one is
        self._frames = 1000 + _FRAMES_PER_CALL * max_depth
        self._statements = {getattr(ast, n[5:]): getattr(self, n) for n in dir(self) if n.startswith("exec_")}
        self._gstatements = {getattr(ast, n[6:]): getattr(self, n) for n in dir(self) if n.startswith("gexec_")}
        self._expressions = {getattr(ast, n[5:]): getattr(self, n) for n in dir(self) if n.startswith("eval_")}

    # ------------------------------------------------------------------ public API
    def run(self, statement: Statement) -> Outcome:
        """Run one statement; every failure becomes Outcome.error."""
        self._meter.reset()
        self._sandbox.take_output()
        error = None
        self._running_in = threading.get_ident()
        caught = _Warnings()
        with warnings.catch_warnings(), _recursion_room(self._frames):
            warnings.simplefilter("always")
            warnings.showwarning = caught.show
            try:
                tree = parse_module(statement.exact or statement.source, "<input>", statement.lineno - 1)
                check_supported(tree)
                self._exec_block(tree.body, self._module_scope)
            except UserError as exc:
                error = exc.info
            except BaseException as exc:  # noqa: BLE001 - run never raises
                error = self._describe(exc)
            finally:
                self._running_in = None
        output = self._sandbox.take_output()
        output = output.removesuffix("\n") if output else None
        return Outcome(output, error, tuple(caught.seen))

    def run_source(self, source: str) -> list[tuple[Statement, Outcome]]:
        """Parse source and run every statement, in order, as the REPL would (an error does not
        stop the next statement). A SyntaxError gives one outcome for the whole source."""
        try:
            statements = parse(source)
        except UserError as exc:
            return [(Statement(source, 1), Outcome(None, exc.info, ()))]
        return [(s, self.run(s)) for s in statements]

    def _describe(self, exc: BaseException) -> ErrorInfo:
        """The one-line error for an exception that ended a statement."""
        try:
            if isinstance(exc, LimitExceeded):
                return ErrorInfo(exc.kind, exc.message)
            if isinstance(exc, (RecursionError, MemoryError, KeyboardInterrupt)) or (
                    not isinstance(exc, Uncatchable) and is_user_error(exc)):
                return ErrorInfo(type(exc).__name__, _shortened(str(exc)))
            first_line = str(exc).partition("\n")[0]
            return ErrorInfo("InternalError", f"{type(exc).__name__}: {first_line} (a bug in tensorscope's interpreter)")
        except BaseException as failure:  # noqa: BLE001 - a user __str__ that fails or loops
            return ErrorInfo(type(exc).__name__, f"<str() of the exception failed: {type(failure).__name__}>")

    # ------------------------------------------------------------------ user-value primitives
    @gateway
    def _truth(self, value: Any) -> bool:
        return bool(value)

    @gateway
    def _iter(self, value: Any) -> Iterator[Any]:
        return iter(value)

    @gateway
    def _next(self, iterator: Iterator[Any]) -> Any:
        try:
            item = next(iterator)
        except StopIteration:
            return DONE
        if isinstance(item, tuple):
            self._sandbox.nesting.check(item)
        elif isinstance(item, type):  # a class from a container: as a stand-in where it needs one
            return self._sandbox.stand_ins.of(item)
        return item

    @gateway
    def _binop(self, op: Callable[[Any, Any], Any], left: Any, right: Any) -> Any:
        check_binop(op, left, right)
        return self._sandbox.checked(op(left, right), "an operator")

    @gateway
    def _unary(self, op: Callable[[Any], Any], value: Any) -> Any:
        return op(value)

    @gateway
    def _compare(self, op: Callable[[Any, Any], Any], left: Any, right: Any) -> Any:
        if (op is CONTAINS or op is NOT_CONTAINS) and type(right) is range and type(left) not in (int, bool):
            self._meter.tick(range_length(right))  # not an int: Python scans the whole range
        return op(left, right)

    @gateway
    def _getitem(self, obj: Any, index: Any) -> Any:
        if type(obj).__module__ == "typing" or isinstance(obj, type):  # `Optional['GPT']`, `list[int]`
            index = typing_index(obj, index)
        return self._sandbox.checked(obj[index], "subscript")

    @gateway
    def _setitem(self, obj: Any, index: Any, value: Any) -> None:
        obj[index] = value

    @gateway
    def _delitem(self, obj: Any, index: Any) -> None:
        del obj[index]

    @gateway
    def _set_add(self, target: set[Any], value: Any) -> None:
        target.add(value)

    @gateway
    def _repr(self, value: Any) -> str:
        return repr(value)

    @gateway
    def _call(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Every call: user functions run here, anything else is metered and its result checked."""
        if type(func) is UserFunction:
            return self._invoke(func, args, kwargs)
        if type(func) is types.MethodType and type(func.__func__) is UserFunction:
            return self._invoke(func.__func__, (func.__self__, *args), kwargs)
        if type(func) is StandInType:
            func = real_class(func)
        if func is type or func is isinstance or func is issubclass or func is super:
            args = tuple(map(real_class, args))  # they look at a class itself, not at its stand-in
        self._sandbox.before_call(func, args, kwargs)
        return self._sandbox.checked(func(*args, **kwargs), "a call")

    def _call_from_builtin(self, func: Any, /, *args: Any, **kwargs: Any) -> Any:
        return self._call(func, args, kwargs)

    def _invoke(self, function: UserFunction, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run a user function: a fresh local scope whose parent is where it was defined.

        Only while a statement runs, in its thread: user code reached any other way (a snapshot
        reading a user object, the garbage collector, another thread) gets OutsideStatement
        instead of running unmetered."""
        if self._running_in != threading.get_ident():
            raise OutsideStatement(f"{function.__qualname__}() is user code; it runs only inside a statement")
        self._meter.tick()
        self._meter.enter()
        try:
            names = function._names
            scope = Scope(FUNCTION, {}, function._scope, local_names=names.local_names,
                          global_names=names.global_names, nonlocal_names=names.nonlocal_names,
                          function=function, class_name=function._scope.class_name,
                          qualname=function.__qualname__ + ".<locals>.")
            bind_arguments(function, args, kwargs, scope.names)
            if function._node.args.vararg is not None:
                self._sandbox.nesting.check(scope.names[function._node.args.vararg.arg])
            node = function._node
            if isinstance(node, ast.Lambda):
                return self._eval(node.body, scope)
            if names.yielding:
                return self._make_generator(function, scope)
            try:
                self._exec_block(node.body, scope)
            except Return as result:
                return result.value
            return None
        finally:
            self._meter.leave()

    @gateway
    def _zero_arg_super(self, scope: Scope) -> Any:
        """`super()` in a method: the class that defined the method and its first argument."""
        while scope.kind == COMPREHENSION:
            scope = scope.parent
        if scope.kind != FUNCTION:
            raise RuntimeError("super(): no arguments")
        owner, outer = None, scope
        while outer is not None and owner is None:
            owner = outer.function._owner if outer.kind == FUNCTION else None
            outer = outer.parent
        if owner is None:
            raise RuntimeError("super(): __class__ cell not found")
        spec = scope.function._node.args
        parameters = [*spec.posonlyargs, *spec.args]
        if not parameters or parameters[0].arg not in scope.names:
            raise RuntimeError("super(): no arguments")
        return super(owner, scope.names[parameters[0].arg])
