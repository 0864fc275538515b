"""Expressions: what each kind of expression evaluates to, comprehensions included."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from tensorscope.interpreter.functions import UserFunction, callable_name
from tensorscope.interpreter.operators import BINOPS, COMPARE, CONVERSIONS, UNARY
from tensorscope.interpreter.scopes import COMPREHENSION, DONE, Scope, comprehension_targets
from tensorscope.sandbox import Counted, check_format_spec, gateway
from tensorscope.sandbox.sizes import check_joined


class Expressions:
    """The expression half of the evaluator (mixed into Interpreter)."""

    def _eval(self, node: ast.expr, scope: Scope) -> Any:
        return self._expressions[node.__class__](node, scope)

    def eval_Constant(self, node: ast.Constant, scope: Scope) -> Any:
        return node.value

    def eval_Name(self, node: ast.Name, scope: Scope) -> Any:
        return self._load(node.id, scope)

    def eval_Attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        return self._sandbox.getattr(self._eval(node.value, scope), self._mangle(node.attr, scope))

    def eval_Subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        obj = self._eval(node.value, scope)
        return self._getitem(obj, self._eval(node.slice, scope))

    def eval_Slice(self, node: ast.Slice, scope: Scope) -> slice:
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if p is None else self._eval(p, scope) for p in parts))

    def eval_BinOp(self, node: ast.BinOp, scope: Scope) -> Any:
        left = self._eval(node.left, scope)
        return self._binop(BINOPS[node.op.__class__], left, self._eval(node.right, scope))

    def eval_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Any:
        value = self._eval(node.operand, scope)
        if isinstance(node.op, ast.Not):
            return not self._truth(value)
        return self._unary(UNARY[node.op.__class__], value)

    def eval_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Any:
        is_and = isinstance(node.op, ast.And)
        for value_node in node.values[:-1]:
            value = self._eval(value_node, scope)
            if self._truth(value) != is_and:
                return value
        return self._eval(node.values[-1], scope)

    def eval_Compare(self, node: ast.Compare, scope: Scope) -> Any:
        left, last = self._eval(node.left, scope), len(node.ops) - 1
        result: Any = True
        for i, (op, comparator) in enumerate(zip(node.ops, node.comparators, strict=True)):
            right = self._eval(comparator, scope)
            result = self._compare(COMPARE[op.__class__], left, right)
            if i < last and not self._truth(result):
                return result
            left = right
        return result

    def eval_IfExp(self, node: ast.IfExp, scope: Scope) -> Any:
        return self._eval(node.body if self._truth(self._eval(node.test, scope)) else node.orelse, scope)

    def eval_NamedExpr(self, node: ast.NamedExpr, scope: Scope) -> Any:
        value = self._eval(node.value, scope)
        while scope.kind == COMPREHENSION:  # the walrus binds in the enclosing function
            scope = scope.parent
        self._store(node.target.id, value, scope)
        return value

    def eval_Call(self, node: ast.Call, scope: Scope) -> Any:
        func = self._eval(node.func, scope)
        if func is super and not node.args and not node.keywords:
            return self._zero_arg_super(scope)
        args = self._eval_arguments(node.args, scope, func)
        return self._call(func, args, self._eval_keywords(node.keywords, scope, func))

    def _eval_arguments(self, nodes: list[ast.expr], scope: Scope, func: Any) -> tuple[Any, ...]:
        values: list[Any] = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                values.extend(self._star_items(self._eval(node.value, scope), func))
            else:
                values.append(self._eval(node, scope))
        return tuple(values)

    @gateway
    def _star_items(self, value: Any, func: Any) -> list[Any]:
        try:
            iterator = iter(value)
        except TypeError:
            where = "Value" if func is None else f"{callable_name(func)}() argument"
            raise TypeError(f"{where} after * must be an iterable, not {type(value).__name__}") from None
        return self._take(iterator, None)

    def _eval_keywords(self, nodes: list[ast.keyword], scope: Scope, func: Any) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for node in nodes:
            if node.arg is not None:
                kwargs[node.arg] = self._eval(node.value, scope)
            else:
                self._merge_keywords(kwargs, self._eval(node.value, scope), func)
        return kwargs

    @gateway
    def _merge_keywords(self, kwargs: dict[str, Any], mapping: Any, func: Any) -> None:
        name = callable_name(func) if func is not None else "class"
        if not hasattr(type(mapping), "keys"):
            raise TypeError(f"{name}() argument after ** must be a mapping, not {type(mapping).__name__}")
        for key in Counted(iter(mapping.keys()), self._meter):
            if not isinstance(key, str):
                raise TypeError("keywords must be strings")
            if key in kwargs:
                raise TypeError(f"{name}() got multiple values for keyword argument '{key}'")
            kwargs[key] = mapping[key]

    def eval_Lambda(self, node: ast.Lambda, scope: Scope) -> UserFunction:
        return self._make_function(node, "<lambda>", scope)

    def eval_List(self, node: ast.List, scope: Scope) -> list[Any]:
        return list(self._eval_arguments(node.elts, scope, None))

    def eval_Tuple(self, node: ast.Tuple, scope: Scope) -> tuple[Any, ...]:
        values = self._eval_arguments(node.elts, scope, None)
        self._sandbox.nesting.check(values)
        return values

    def eval_Set(self, node: ast.Set, scope: Scope) -> set[Any]:
        result: set[Any] = set()
        for value in self._eval_arguments(node.elts, scope, None):
            self._set_add(result, value)
        return result

    def eval_Dict(self, node: ast.Dict, scope: Scope) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:
                self._merge_mapping(result, self._eval(value_node, scope))
            else:
                key = self._eval(key_node, scope)
                self._setitem(result, key, self._eval(value_node, scope))
        return result

    @gateway
    def _merge_mapping(self, result: dict[Any, Any], mapping: Any) -> None:
        if not hasattr(type(mapping), "keys"):
            raise TypeError(f"'{type(mapping).__name__}' object is not a mapping")
        for key in Counted(iter(mapping.keys()), self._meter):
            result[key] = mapping[key]

    def eval_JoinedStr(self, node: ast.JoinedStr, scope: Scope) -> str:
        parts = [self._eval(part, scope) for part in node.values]
        check_joined(parts)
        return "".join(parts)

    def eval_FormattedValue(self, node: ast.FormattedValue, scope: Scope) -> str:
        value = self._eval(node.value, scope)
        spec = "" if node.format_spec is None else self._eval(node.format_spec, scope)
        return self._format(value, node.conversion, spec)

    @gateway
    def _format(self, value: Any, conversion: int, spec: str) -> str:
        if conversion in CONVERSIONS:
            value = CONVERSIONS[conversion](value)
        check_format_spec(spec)
        return format(value, spec)

    # ------------------------------------------------------------------ comprehensions
    def eval_ListComp(self, node: ast.ListComp, scope: Scope) -> list[Any]:
        return [self._eval(node.elt, inner) for inner in self._comprehension(node, scope)]

    def eval_SetComp(self, node: ast.SetComp, scope: Scope) -> set[Any]:
        result: set[Any] = set()
        for inner in self._comprehension(node, scope):
            self._set_add(result, self._eval(node.elt, inner))
        return result

    def eval_DictComp(self, node: ast.DictComp, scope: Scope) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for inner in self._comprehension(node, scope):
            key = self._eval(node.key, inner)
            self._setitem(result, key, self._eval(node.value, inner))
        return result

    @gateway  # a user's g.throw(exc) raises exc here
    def eval_GeneratorExp(self, node: ast.GeneratorExp, scope: Scope) -> Iterator[Any]:
        scopes = self._comprehension(node, scope)
        return (self._eval(node.elt, inner) for inner in scopes)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
                       scope: Scope) -> Iterator[Scope]:
        """The comprehension's own scope, yielded once per item that passes the filters. The first
        iterable is evaluated (and iter() called) right away in the enclosing scope, as in Python."""
        inner = Scope(COMPREHENSION, {}, scope, local_names=comprehension_targets(node),
                      class_name=scope.class_name, qualname=scope.qualname)
        first = self._iter(self._eval(node.generators[0].iter, scope))
        return self._comprehension_loop(node.generators, 0, first, inner)

    @gateway  # a user's g.throw(exc) raises exc here
    def _comprehension_loop(self, generators: list[ast.comprehension], index: int, iterator: Iterator[Any],
                            scope: Scope) -> Iterator[Scope]:
        generator, last = generators[index], index == len(generators) - 1
        while True:
            self._meter.tick()
            item = self._next(iterator)
            if item is DONE:
                return
            self._assign(generator.target, item, scope)
            if all(self._truth(self._eval(condition, scope)) for condition in generator.ifs):
                if last:
                    yield scope
                else:
                    nested = self._iter(self._eval(generators[index + 1].iter, scope))
                    yield from self._comprehension_loop(generators, index + 1, nested, scope)
