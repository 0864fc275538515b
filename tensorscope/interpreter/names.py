"""Names and assignment: Python's scoping rules for loading, storing and deleting names."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from tensorscope.interpreter.scopes import CLASS, COMPREHENSION, DONE, FUNCTION, MODULE, Scope
from tensorscope.sandbox import gateway, left_out_builtin


class Names:
    """Loading, storing, deleting and unpacking names (mixed into Interpreter)."""

    def _load(self, name: str, scope: Scope) -> Any:
        kind = scope.kind
        if kind == MODULE:
            return self._load_global(name)
        if kind == CLASS:
            name = self._mangle(name, scope)
            if name in scope.names:
                return scope.names[name]
        elif name in scope.local_names:
            value = scope.names.get(name, DONE)
            return self._unbound_local(name) if value is DONE else value
        elif name in scope.global_names:
            return self._load_global(name)
        owner = self._enclosing_with(name, scope.parent)
        if owner is None:
            return self._load_global(name)
        value = owner.names.get(name, DONE)
        return self._unbound_free(name) if value is DONE else value

    @gateway
    def _load_global(self, name: str) -> Any:
        value = self.namespace.get(name, DONE)
        if value is DONE:
            value = self._sandbox.builtins.get(name, DONE)
        if value is DONE:
            hint = " (tensorscope does not provide it)" if left_out_builtin(name) else ""
            raise NameError(f"name '{name}' is not defined{hint}", name=name)
        return value

    @gateway
    def _unbound_local(self, name: str) -> Any:
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")

    @gateway
    def _unbound_free(self, name: str) -> Any:
        raise NameError(f"cannot access free variable '{name}' where it is not associated with a value in enclosing scope")

    @staticmethod
    def _enclosing_with(name: str, scope: Scope | None) -> Scope | None:
        """The nearest function or comprehension scope, from `scope` outwards, where name is local."""
        while scope is not None and scope.kind != MODULE:
            if scope.kind != CLASS and name in scope.local_names:
                return scope
            scope = scope.parent
        return None

    def _store(self, name: str, value: Any, scope: Scope) -> None:
        if scope.kind == CLASS:
            name = self._mangle(name, scope)
        if scope.kind in (MODULE, CLASS) or name in scope.local_names:
            scope.names[name] = value
        elif name in scope.global_names:
            self.namespace[name] = value
        else:
            owner = self._enclosing_with(name, scope.parent)
            (owner.names if owner is not None else scope.names)[name] = value

    @gateway
    def _delete_name(self, name: str, scope: Scope) -> None:
        if scope.kind == CLASS:
            name = self._mangle(name, scope)
        if scope.kind == FUNCTION and name in scope.global_names:
            scope = self._module_scope
        elif scope.kind in (FUNCTION, COMPREHENSION) and name not in scope.local_names:
            scope = self._enclosing_with(name, scope.parent) or self._module_scope
        if name in scope.names:
            del scope.names[name]
        elif scope.kind in (FUNCTION, COMPREHENSION):
            raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")
        else:
            raise NameError(f"name '{name}' is not defined", name=name)

    @staticmethod
    def _mangle(name: str, scope: Scope) -> str:
        """`self.__x` inside class C means `self._C__x`, as in Python; so does `__x` in C's body.
        (Local variables of methods keep their names: consistent, and invisible to user code.)"""
        if scope.class_name and name.startswith("__") and not name.endswith("__"):
            return f"_{scope.class_name.lstrip('_')}{name}"
        return name

    # ------------------------------------------------------------------ assignment
    def _assign(self, target: ast.expr, value: Any, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            self._store(target.id, value, scope)
        elif isinstance(target, ast.Attribute):
            self._sandbox.setattr(self._eval(target.value, scope), self._mangle(target.attr, scope), value)
        elif isinstance(target, ast.Subscript):
            obj = self._eval(target.value, scope)
            self._setitem(obj, self._eval(target.slice, scope), value)
        elif isinstance(target, ast.Starred):
            self._assign(target.value, value, scope)
        else:
            for element, item in zip(target.elts, self._unpack(value, target.elts), strict=True):
                self._assign(element, item, scope)

    @gateway
    def _unpack(self, value: Any, targets: list[ast.expr]) -> list[Any]:
        """Python's unpacking: exactly len(targets) items, or a list for the starred target."""
        try:
            iterator = iter(value)
        except TypeError:
            raise TypeError(f"cannot unpack non-iterable {type(value).__name__} object") from None
        stars = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        count = len(targets)
        if not stars:
            items = self._take(iterator, count + 1)
            if len(items) != count:
                raise ValueError(f"not enough values to unpack (expected {count}, got {len(items)})"
                                 if len(items) < count else f"too many values to unpack (expected {count})")
            return items
        items = self._take(iterator, None)
        if len(items) < count - 1:
            raise ValueError(f"not enough values to unpack (expected at least {count - 1}, got {len(items)})")
        star, after = stars[0], count - 1 - stars[0]
        return [*items[:star], items[star:len(items) - after], *items[len(items) - after:]]

    def _take(self, iterator: Iterator[Any], limit: int | None) -> list[Any]:
        items: list[Any] = []
        while limit is None or len(items) < limit:
            self._meter.tick()
            item = self._next(iterator)
            if item is DONE:
                break
            items.append(item)
        return items
