"""Generator functions: a function whose body holds `yield` runs as a generator of the evaluator.

The evaluator walks the AST on Python's own stack, so a `yield` inside loops, `with` and `try`
blocks must suspend all of them: the statements on the way to a yield run in generator versions
(`gexec_*`, Python generators that `yield from` one another), every other statement in the
ordinary evaluator. A yield is a statement or the whole value of an assignment or a return
(`yield v`, `x = yield v`, `return (yield v)`, `yield from g`): generators and coroutines as
people write them (parsing refuses the rest).

`UserGenerator` is what user code holds: iteration, next(), send(), throw(), close(), and the
value of `return` in StopIteration. Each resume runs only inside a statement (OutsideStatement
otherwise), costs a step and a level of call depth, and the Python generator inside is never
reachable (no gi_frame, gi_code...). A generator left unfinished and dropped is closed by Python's
garbage collector, maybe outside any statement: then its user code (`finally` blocks, `except`
handlers, user `__exit__` methods) does not run; the engine's context managers (`torch.no_grad()`)
still restore their state. `close()` runs them all, as in Python.
"""

from __future__ import annotations

import ast
import threading
import types
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

from tensorscope.interpreter.functions import Break, Continue, Return, UserFunction
from tensorscope.interpreter.operators import INPLACE
from tensorscope.interpreter.scopes import DONE, Scope
from tensorscope.sandbox import LimitExceeded, Uncatchable, gateway
from tensorscope.sandbox.internal import internal, is_user_code
from tensorscope.sandbox.limits import OutsideStatement

if TYPE_CHECKING:
    from tensorscope.interpreter.core import Interpreter

Steps = Generator[Any, Any, Any]


class GeneratorState:
    """What a running generator's statements need to know: whether a UserGenerator method is
    driving it (else Python's garbage collector is closing it), and the exceptions whose handlers
    it is suspended in (for a bare `raise`)."""

    __slots__ = ("driving", "handling")

    def __init__(self) -> None:
        self.driving = False
        self.handling: list[BaseException] = []


@internal("send", "throw", "close")
class UserGenerator:
    """A generator made by calling a user generator function."""

    def __init__(self, interpreter: Interpreter, function: UserFunction, state: GeneratorState,
                 generator: Steps) -> None:
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self._interpreter = interpreter
        self._state = state
        self._generator = generator

    def __iter__(self) -> UserGenerator:
        return self

    def __next__(self) -> Any:
        return self._resume(self._generator.send, None)

    def send(self, value: Any) -> Any:
        return self._resume(self._generator.send, value)

    def throw(self, *exception: Any) -> Any:
        return self._resume(lambda _: self._generator.throw(*exception), None)

    def close(self) -> None:
        return self._resume(lambda _: self._generator.close(), None)

    def abandon(self) -> None:
        """Close without running user code (see the module's docstring)."""
        self._generator.close()

    @gateway
    def _resume(self, method: Callable[[Any], Any], argument: Any) -> Any:
        interpreter = self._interpreter
        if interpreter._running_in != threading.get_ident():
            raise OutsideStatement(f"{self.__qualname__}() is user code; it runs only inside a statement")
        meter, state = interpreter._meter, self._state
        meter.tick()
        meter.enter()
        outer = interpreter._handling
        interpreter._handling = [*outer, *state.handling]
        state.driving = True
        try:
            return method(argument)
        finally:
            state.driving = False
            state.handling = interpreter._handling[len(outer):]
            interpreter._handling = outer
            meter.leave()

    def __repr__(self) -> str:
        return f"<generator object {self.__qualname__} at {id(self):#x}>"


UserGenerator.__name__ = UserGenerator.__qualname__ = "generator"  # type(g).__name__, as Python's


def _abandoned(exc: BaseException, scope: Scope) -> bool:
    """The garbage collector is closing the generator: no user code may run."""
    return type(exc) is GeneratorExit and not scope.generator.driving


class GeneratorStatements:
    """The generator versions of the statements that can hold a yield (mixed into Interpreter).
    They are gateways: user code runs in them, and Python turns a StopIteration escaping one of
    them into "generator raised StopIteration" there."""

    def _make_generator(self, function: UserFunction, scope: Scope) -> UserGenerator:
        state = scope.generator = GeneratorState()
        return UserGenerator(self, function, state, self._generator_body(function, scope))

    @gateway
    def _generator_body(self, function: UserFunction, scope: Scope) -> Steps:
        try:
            yield from self._gexec_block(function._node.body, scope)
        except Return as result:
            return result.value

    @gateway
    def _gexec_block(self, body: list[ast.stmt], scope: Scope) -> Steps:
        yielding = scope.function._names.yielding
        for statement in body:
            if id(statement) in yielding:
                yield from self._gstatements[statement.__class__](statement, scope)
            else:
                self._statements[statement.__class__](statement, scope)

    def _has_yield(self, body: list[ast.stmt], scope: Scope) -> bool:
        yielding = scope.function._names.yielding
        return any(id(statement) in yielding for statement in body)

    # ------------------------------------------------------------------ yield and yield from
    @gateway
    def _gyield(self, node: ast.Yield | ast.YieldFrom, scope: Scope) -> Steps:
        if isinstance(node, ast.YieldFrom):
            return (yield from self._gyield_from(self._iter(self._eval(node.value, scope)), scope))
        return (yield None if node.value is None else self._eval(node.value, scope))

    @gateway
    def _gyield_from(self, iterator: Iterator[Any], scope: Scope) -> Steps:
        """PEP 380's expansion, so that send, throw and close reach the inner generator."""
        try:
            item = self._advance(iterator, None)
        except StopIteration as stop:
            return stop.value
        while True:
            try:
                sent = yield item
            except GeneratorExit as exc:
                if _abandoned(exc, scope):
                    _abandon(iterator)
                else:
                    self._close_inner(iterator)
                raise
            except Uncatchable:
                raise
            except BaseException as exc:  # thrown in by g.throw()
                throw = self._method_of(iterator, "throw")
                if throw is None:
                    raise
                try:
                    item = throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    item = self._advance(iterator, sent)
                except StopIteration as stop:
                    return stop.value

    @gateway
    def _advance(self, iterator: Iterator[Any], sent: Any) -> Any:
        if sent is None:
            return next(iterator)
        send = self._method_of(iterator, "send")
        if send is None:
            raise AttributeError(f"'{type(iterator).__name__}' object has no attribute 'send'")
        return send(sent)

    @gateway
    def _close_inner(self, iterator: Iterator[Any]) -> None:
        close = self._method_of(iterator, "close")
        if close is not None:
            close()

    def _method_of(self, iterator: Any, name: str) -> Any:
        """The inner iterator's send/throw/close, read under the attribute policy (None if absent)."""
        try:
            method = self._sandbox.getattr(iterator, name)
        except AttributeError:
            return None
        return lambda *args: self._call(method, args, {})

    # ------------------------------------------------------------------ simple statements
    @gateway
    def gexec_Expr(self, node: ast.Expr, scope: Scope) -> Steps:
        yield from self._gyield(node.value, scope)

    @gateway
    def gexec_Assign(self, node: ast.Assign, scope: Scope) -> Steps:
        value = yield from self._gyield(node.value, scope)
        for target in node.targets:
            self._assign(target, value, scope)

    @gateway
    def gexec_AnnAssign(self, node: ast.AnnAssign, scope: Scope) -> Steps:
        self._assign(node.target, (yield from self._gyield(node.value, scope)), scope)

    @gateway
    def gexec_AugAssign(self, node: ast.AugAssign, scope: Scope) -> Steps:
        op, target = INPLACE[node.op.__class__], node.target
        if isinstance(target, ast.Name):
            current = self._load(target.id, scope)
            self._store(target.id, self._binop(op, current, (yield from self._gyield(node.value, scope))), scope)
        elif isinstance(target, ast.Attribute):
            obj, name = self._eval(target.value, scope), self._mangle(target.attr, scope)
            current = self._sandbox.getattr(obj, name)
            self._sandbox.setattr(obj, name, self._binop(op, current, (yield from self._gyield(node.value, scope))))
        else:
            obj, index = self._eval(target.value, scope), self._eval(target.slice, scope)
            current = self._getitem(obj, index)
            self._setitem(obj, index, self._binop(op, current, (yield from self._gyield(node.value, scope))))

    @gateway
    def gexec_Return(self, node: ast.Return, scope: Scope) -> Steps:
        raise Return((yield from self._gyield(node.value, scope)))

    # ------------------------------------------------------------------ compound statements
    @gateway
    def gexec_If(self, node: ast.If, scope: Scope) -> Steps:
        yield from self._gexec_block(node.body if self._truth(self._eval(node.test, scope)) else node.orelse, scope)

    @gateway
    def gexec_While(self, node: ast.While, scope: Scope) -> Steps:
        while True:
            self._meter.tick()
            if not self._truth(self._eval(node.test, scope)):
                yield from self._gexec_block(node.orelse, scope)
                return
            try:
                yield from self._gexec_block(node.body, scope)
            except Break:
                return
            except Continue:
                pass

    @gateway
    def gexec_For(self, node: ast.For, scope: Scope) -> Steps:
        iterator = self._iter(self._eval(node.iter, scope))
        while True:
            self._meter.tick()
            item = self._next(iterator)
            if item is DONE:
                yield from self._gexec_block(node.orelse, scope)
                return
            self._assign(node.target, item, scope)
            try:
                yield from self._gexec_block(node.body, scope)
            except Break:
                return
            except Continue:
                pass

    @gateway
    def gexec_With(self, node: ast.With, scope: Scope) -> Steps:
        yield from self._gwith_items(node.items, node.body, scope)

    @gateway
    def _gwith_items(self, items: list[ast.withitem], body: list[ast.stmt], scope: Scope) -> Steps:
        """As `_with_items`; when the garbage collector closes the generator, only an `__exit__`
        that is not user code runs."""
        if not items:
            yield from self._gexec_block(body, scope)
            return
        manager = self._eval(items[0].context_expr, scope)
        enter, exit_ = self._context_methods(manager)
        value = self._call(enter, (manager,), {})
        if items[0].optional_vars is not None:
            self._assign(items[0].optional_vars, value, scope)
        try:
            yield from self._gwith_items(items[1:], body, scope)
        except LimitExceeded:
            with self._meter.grace():
                self._call(exit_, (manager, None, None, None), {})
            raise
        except Uncatchable:
            self._call(exit_, (manager, None, None, None), {})
            raise
        except BaseException as exc:
            if _abandoned(exc, scope):
                if not is_user_code(exit_):
                    exit_(manager, type(exc), exc, None)
                raise
            if not self._truth(self._call(exit_, (manager, type(exc), exc, None), {})):
                raise
        else:
            self._call(exit_, (manager, None, None, None), {})

    @gateway
    def gexec_Try(self, node: ast.Try, scope: Scope) -> Steps:
        try:
            yield from self._gtry_body(node, scope)
        except LimitExceeded:
            if not self._has_yield(node.finalbody, scope):  # a finally that yields does not run then
                with self._meter.grace():
                    self._exec_block(node.finalbody, scope)
            raise
        except BaseException as exc:
            if not _abandoned(exc, scope):
                yield from self._gexec_block(node.finalbody, scope)
            raise
        yield from self._gexec_block(node.finalbody, scope)

    @gateway
    def _gtry_body(self, node: ast.Try, scope: Scope) -> Steps:
        try:
            yield from self._gexec_block(node.body, scope)
        except Uncatchable:
            raise
        except BaseException as exc:
            if _abandoned(exc, scope):
                raise
            handler = self._matching_handler(node.handlers, exc, scope)
            if handler is None:
                raise
            yield from self._grun_handler(handler, exc, scope)
        else:
            yield from self._gexec_block(node.orelse, scope)

    @gateway
    def _grun_handler(self, handler: ast.ExceptHandler, exc: BaseException, scope: Scope) -> Steps:
        if handler.name:
            self._store(handler.name, exc, scope)
        self._handling.append(exc)
        try:
            yield from self._gexec_block(handler.body, scope)
        finally:
            # while suspended the generator's handled exceptions live in its state (see _resume)
            (self._handling if scope.generator.driving else scope.generator.handling).pop()
            if handler.name:
                self._unbind(handler.name, scope)


def _abandon(iterator: Any) -> None:
    """Close an inner generator without running user code: ours are abandoned, Python's own
    (generator expressions) hold no user cleanup code; anything else is left alone."""
    if isinstance(iterator, UserGenerator):
        iterator.abandon()
    elif isinstance(iterator, types.GeneratorType):
        iterator.close()
