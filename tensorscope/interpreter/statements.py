"""Statements: what each kind of statement does, as Python would do it."""

from __future__ import annotations

import ast
import contextlib
import types
from typing import Any

from tensorscope.interpreter.functions import Break, Continue, Return, UserFunction
from tensorscope.interpreter.operators import INPLACE
from tensorscope.interpreter.scopes import CLASS, DONE, MODULE, REQUIRED, Scope, import_binding
from tensorscope.sandbox import LimitExceeded, Uncatchable, gateway, public_names


class Statements:
    """The statement half of the evaluator (mixed into Interpreter)."""

    def _exec_block(self, body: list[ast.stmt], scope: Scope) -> None:
        handlers = self._statements
        for statement in body:
            handlers[statement.__class__](statement, scope)

    def exec_Expr(self, node: ast.Expr, scope: Scope) -> None:
        value = self._eval(node.value, scope)
        if scope.kind == MODULE and value is not None:
            self._sandbox.write(self._repr(value) + "\n")

    def exec_Assign(self, node: ast.Assign, scope: Scope) -> None:
        value = self._eval(node.value, scope)
        for target in node.targets:
            self._assign(target, value, scope)

    def exec_AnnAssign(self, node: ast.AnnAssign, scope: Scope) -> None:
        """Python evaluates an annotation in a module or class body (a function's are left alone)
        and keeps a class's in its `__annotations__` (a module's are not kept here)."""
        if node.value is not None:
            self._assign(node.target, self._eval(node.value, scope), scope)
        if scope.kind == MODULE or scope.kind == CLASS:
            annotation = self._annotation(node.annotation, scope)
            if node.simple and scope.kind == CLASS:
                annotations = scope.names.setdefault("__annotations__", {})
                self._setitem(annotations, self._mangle(node.target.id, scope), annotation)

    def _annotation(self, node: ast.expr, scope: Scope) -> Any:
        """An annotation's value; its text under `from __future__ import annotations`."""
        return ast.unparse(node) if self._future_annotations else self._eval(node, scope)

    def exec_AugAssign(self, node: ast.AugAssign, scope: Scope) -> None:
        """Python's semantics: load the target, call the in-place operator (`__iadd__`, falling
        back to `__add__`), store the result back; so `out += residual` is in place on tensors."""
        op, target = INPLACE[node.op.__class__], node.target
        if isinstance(target, ast.Name):
            current = self._load(target.id, scope)
            self._store(target.id, self._binop(op, current, self._eval(node.value, scope)), scope)
        elif isinstance(target, ast.Attribute):
            obj, name = self._eval(target.value, scope), self._mangle(target.attr, scope)
            current = self._sandbox.getattr(obj, name)
            self._sandbox.setattr(obj, name, self._binop(op, current, self._eval(node.value, scope)))
        else:
            obj, index = self._eval(target.value, scope), self._eval(target.slice, scope)
            current = self._getitem(obj, index)
            self._setitem(obj, index, self._binop(op, current, self._eval(node.value, scope)))

    def exec_Delete(self, node: ast.Delete, scope: Scope) -> None:
        for target in node.targets:
            self._delete(target, scope)

    def _delete(self, target: ast.expr, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            self._delete_name(target.id, scope)
        elif isinstance(target, ast.Attribute):
            self._sandbox.delattr(self._eval(target.value, scope), self._mangle(target.attr, scope))
        elif isinstance(target, ast.Subscript):
            self._delitem(self._eval(target.value, scope), self._eval(target.slice, scope))
        else:
            for element in target.elts:
                self._delete(element, scope)

    def exec_Pass(self, node: ast.Pass, scope: Scope) -> None:
        pass

    def exec_Global(self, node: ast.Global, scope: Scope) -> None:
        pass  # handled when the enclosing function is analysed

    def exec_Nonlocal(self, node: ast.Nonlocal, scope: Scope) -> None:
        pass  # handled when the enclosing function is analysed

    def exec_Break(self, node: ast.Break, scope: Scope) -> None:
        raise Break

    def exec_Continue(self, node: ast.Continue, scope: Scope) -> None:
        raise Continue

    def exec_Return(self, node: ast.Return, scope: Scope) -> None:
        raise Return(None if node.value is None else self._eval(node.value, scope))

    def exec_If(self, node: ast.If, scope: Scope) -> None:
        branch = node.body if self._truth(self._eval(node.test, scope)) else node.orelse
        self._exec_block(branch, scope)

    def exec_While(self, node: ast.While, scope: Scope) -> None:
        while True:
            self._meter.tick()
            if not self._truth(self._eval(node.test, scope)):
                self._exec_block(node.orelse, scope)
                return
            try:
                self._exec_block(node.body, scope)
            except Break:
                return
            except Continue:
                pass

    def exec_For(self, node: ast.For, scope: Scope) -> None:
        iterator = self._iter(self._eval(node.iter, scope))
        while True:
            self._meter.tick()
            item = self._next(iterator)
            if item is DONE:
                self._exec_block(node.orelse, scope)
                return
            self._assign(node.target, item, scope)
            try:
                self._exec_block(node.body, scope)
            except Break:
                return
            except Continue:
                pass

    def exec_With(self, node: ast.With, scope: Scope) -> None:
        self._with_items(node.items, node.body, scope)

    def _with_items(self, items: list[ast.withitem], body: list[ast.stmt], scope: Scope) -> None:
        """`with a, b:` is `with a: with b:`; __exit__ sees the exception (without traceback), and
        a true result suppresses it; break/return/limits pass through after a clean exit."""
        if not items:
            self._exec_block(body, scope)
            return
        manager = self._eval(items[0].context_expr, scope)
        enter, exit_ = self._context_methods(manager)
        value = self._call(enter, (manager,), {})
        if items[0].optional_vars is not None:
            self._assign(items[0].optional_vars, value, scope)
        try:
            self._with_items(items[1:], body, scope)
        except LimitExceeded:
            with self._meter.grace():
                self._call(exit_, (manager, None, None, None), {})
            raise
        except Uncatchable:
            self._call(exit_, (manager, None, None, None), {})
            raise
        except BaseException as exc:
            if not self._truth(self._call(exit_, (manager, type(exc), exc, None), {})):
                raise
        else:
            self._call(exit_, (manager, None, None, None), {})

    @gateway
    def _context_methods(self, manager: Any) -> tuple[Any, Any]:
        cls = type(manager)
        if not (hasattr(cls, "__enter__") and hasattr(cls, "__exit__")):
            raise TypeError(f"'{cls.__name__}' object does not support the context manager protocol")
        return cls.__enter__, cls.__exit__

    def exec_Try(self, node: ast.Try, scope: Scope) -> None:
        try:
            self._try_body(node, scope)
        except LimitExceeded:
            with self._meter.grace():
                self._exec_block(node.finalbody, scope)
            raise
        except BaseException:
            self._exec_block(node.finalbody, scope)
            raise
        self._exec_block(node.finalbody, scope)

    def _try_body(self, node: ast.Try, scope: Scope) -> None:
        """try/except/else; user handlers never see break, return or an exceeded limit."""
        try:
            self._exec_block(node.body, scope)
        except Uncatchable:
            raise
        except BaseException as exc:
            handler = self._matching_handler(node.handlers, exc, scope)
            if handler is None:
                raise
            self._run_handler(handler, exc, scope)
        else:
            self._exec_block(node.orelse, scope)

    @gateway
    def _matching_handler(self, handlers: list[ast.ExceptHandler], exc: BaseException,
                          scope: Scope) -> ast.ExceptHandler | None:
        for handler in handlers:
            if handler.type is None:
                return handler
            classes = self._eval(handler.type, scope)
            for cls in classes if isinstance(classes, tuple) else (classes,):
                if not (isinstance(cls, type) and issubclass(cls, BaseException)):
                    raise TypeError("catching classes that do not inherit from BaseException is not allowed")
            if isinstance(exc, classes):
                return handler
        return None

    def _run_handler(self, handler: ast.ExceptHandler, exc: BaseException, scope: Scope) -> None:
        if handler.name:
            self._store(handler.name, exc, scope)
        self._handling.append(exc)
        try:
            self._exec_block(handler.body, scope)
        finally:
            self._handling.pop()
            if handler.name:
                self._unbind(handler.name, scope)

    def _unbind(self, name: str, scope: Scope) -> None:
        """`except E as e` deletes e at the end of the handler (if the handler did not)."""
        with contextlib.suppress(NameError):
            self._delete_name(name, scope)

    @gateway
    def exec_Raise(self, node: ast.Raise, scope: Scope) -> None:
        if node.exc is None:
            if not self._handling:
                raise RuntimeError("No active exception to reraise")
            raise self._handling[-1]
        exc = self._exception(self._eval(node.exc, scope))
        if node.cause is None:
            raise exc
        cause = self._eval(node.cause, scope)
        raise exc from (None if cause is None else self._exception(cause))

    @gateway
    def _exception(self, value: Any) -> BaseException:
        if isinstance(value, type) and issubclass(value, BaseException):
            value = self._call(value, (), {})
        if not isinstance(value, BaseException) or isinstance(value, Uncatchable):
            raise TypeError("exceptions must derive from BaseException")
        return value

    @gateway
    def exec_Assert(self, node: ast.Assert, scope: Scope) -> None:
        if not self._truth(self._eval(node.test, scope)):
            raise AssertionError() if node.msg is None else AssertionError(self._eval(node.msg, scope))

    def exec_Import(self, node: ast.Import, scope: Scope) -> None:
        for alias in node.names:
            module = self._sandbox.import_module(alias.name)
            if not alias.asname:
                module = self._sandbox.import_module(alias.name.split(".")[0])
            self._store(import_binding(alias, True), module, scope)

    @gateway
    def exec_ImportFrom(self, node: ast.ImportFrom, scope: Scope) -> None:
        if node.level:
            raise ImportError("attempted relative import with no known parent package")
        if node.module == "__future__":
            self._future_annotations |= any(alias.name == "annotations" for alias in node.names)
            return
        module = self._sandbox.import_module(node.module)
        for alias in node.names:
            if alias.name == "*":
                for name in public_names(module):
                    self._store(name, self._sandbox.import_from(module, node.module, name), scope)
            else:
                self._store(import_binding(alias, False), self._sandbox.import_from(module, node.module, alias.name), scope)

    def exec_FunctionDef(self, node: ast.FunctionDef, scope: Scope) -> None:
        decorators = [self._eval(d, scope) for d in node.decorator_list]
        function = self._make_function(node, node.name, scope)
        for decorator in reversed(decorators):
            function = self._call(decorator, (function,), {})
        self._store(node.name, function, scope)

    @gateway
    def _make_function(self, node: ast.FunctionDef | ast.Lambda, name: str, scope: Scope) -> UserFunction:
        defaults = tuple(self._eval(d, scope) for d in node.args.defaults)
        kwdefaults = tuple(REQUIRED if d is None else self._eval(d, scope) for d in node.args.kw_defaults)
        if isinstance(node, ast.FunctionDef) and not self._future_annotations:
            self._evaluate_annotations(node, scope)
        function = UserFunction(self, node, scope, defaults, kwdefaults, name)
        for declared in function._names.nonlocal_names:
            if self._enclosing_with(declared, scope) is None:
                raise SyntaxError(f"no binding for nonlocal '{declared}' found")
        if scope.defined is not None:
            scope.defined.append(function)  # its zero-argument super() is the class's (Python's __class__ cell)
        return function

    def _evaluate_annotations(self, node: ast.FunctionDef, scope: Scope) -> None:
        """Python evaluates a def's annotations when it runs (a NameError for an unknown type)."""
        spec = node.args
        arguments = [*spec.posonlyargs, *spec.args, spec.vararg, *spec.kwonlyargs, spec.kwarg]
        for annotation in [a.annotation for a in arguments if a is not None] + [node.returns]:
            if annotation is not None:
                self._eval(annotation, scope)

    def exec_ClassDef(self, node: ast.ClassDef, scope: Scope) -> None:
        decorators = [self._eval(d, scope) for d in node.decorator_list]
        bases = tuple(map(self._sandbox.real_class, self._eval_arguments(node.bases, scope, None)))
        keywords = self._eval_keywords(node.keywords, scope, None)
        cls = self._make_class(node, bases, keywords, scope)
        for decorator in reversed(decorators):
            cls = self._call(decorator, (cls,), {})
        self._store(node.name, self._sandbox.checked(cls, "a class statement"), scope)

    @gateway
    def _make_class(self, node: ast.ClassDef, bases: tuple[Any, ...], keywords: dict[str, Any], scope: Scope) -> type:
        """What `class` does: check the bases and keywords, prepare the namespace, run the body in
        it, check what the body defined, call the metaclass; the class is then registered as a
        user class (its `_names` are readable). See tensorscope.sandbox.classes for the rules."""
        resolved = self._sandbox.resolve_bases(bases)  # `Generic[T]`, `NamedTuple`: __mro_entries__
        self._sandbox.check_class(resolved, keywords)
        metaclass, namespace, _ = types.prepare_class(node.name, resolved, {})
        qualname = scope.qualname + node.name
        preset = {"__module__": "__main__", "__qualname__": qualname}
        if resolved is not bases:
            preset["__orig_bases__"] = bases
        namespace.update(preset)
        docstring = ast.get_docstring(node, clean=False)
        if docstring is not None:
            namespace["__doc__"] = docstring
        body_scope = Scope(CLASS, namespace, scope, class_name=node.name, qualname=qualname + ".")
        self._exec_block(node.body, body_scope)
        self._sandbox.check_class_body(namespace, preset)
        self._meter.tick()
        cls = metaclass(node.name, resolved, namespace)
        self._sandbox.register_class(cls)
        for function in body_scope.defined:
            function._owner = cls
        return cls
