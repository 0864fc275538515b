"""Scopes: where names live while code runs, and which names a function makes local."""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tensorscope.interpreter.parsing import parameters

if TYPE_CHECKING:
    from tensorscope.interpreter.functions import UserFunction

MODULE, FUNCTION, CLASS, COMPREHENSION = range(4)
DONE = object()  # end of an iteration, or an unbound name
REQUIRED = object()  # a keyword-only parameter without default


class Scope:
    """Where names live while code runs: the module namespace, a call's locals, a class body or a
    comprehension. `parent` is the lexically enclosing scope (closures see it live)."""

    __slots__ = ("class_name", "defined", "function", "generator", "global_names", "kind", "local_names",
                 "names", "nonlocal_names", "parent", "qualname")

    def __init__(self, kind: int, names: dict[str, Any], parent: Scope | None, *,
                 local_names: frozenset[str] = frozenset(), global_names: frozenset[str] = frozenset(),
                 nonlocal_names: frozenset[str] = frozenset(), function: UserFunction | None = None,
                 class_name: str | None = None, qualname: str = "") -> None:
        self.kind = kind
        self.names = names
        self.parent = parent
        self.local_names = local_names
        self.global_names = global_names
        self.nonlocal_names = nonlocal_names
        self.function = function
        self.class_name = class_name
        self.qualname = qualname
        self.defined: list[UserFunction] | None = [] if kind == CLASS else None  # a class body's functions
        self.generator: Any = None  # the UserGenerator running this (a generator function's) scope


@dataclass(frozen=True)
class FunctionNames:
    """A function's symbol table: which names are local, declared global, declared nonlocal; and,
    for a generator function, the statements of its body that hold a yield (by id)."""

    local_names: frozenset[str]
    global_names: frozenset[str]
    nonlocal_names: frozenset[str]
    yielding: frozenset[int] = frozenset()


_ANALYSED: weakref.WeakKeyDictionary[ast.AST, FunctionNames] = weakref.WeakKeyDictionary()
_OPAQUE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)  # their yields are their own


def analyze_function(node: ast.FunctionDef | ast.Lambda) -> FunctionNames:
    """The function's FunctionNames, computed once per definition (a def in a loop runs often)."""
    names = _ANALYSED.get(node)
    if names is None:
        names = _ANALYSED[node] = _analyze(node)
    return names


def yielding_statements(body: list[ast.stmt]) -> frozenset[int]:
    """The statements (at any depth, nested functions and classes excepted) that hold a yield."""
    found: set[int] = set()

    def holds_yield(node: ast.AST) -> bool:
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, _OPAQUE):
            return False
        held = False
        for child in ast.iter_child_nodes(node):
            held = holds_yield(child) or held  # every child: nested statements are marked too
        if held and isinstance(node, ast.stmt):
            found.add(id(node))
        return held

    for statement in body:
        holds_yield(statement)
    return frozenset(found)


def _analyze(node: ast.FunctionDef | ast.Lambda) -> FunctionNames:
    """Python's rule: a name assigned anywhere in a function body is local to it, unless declared
    global or nonlocal; nested functions and classes are not looked into (only their names)."""
    assigned, declared_global, declared_nonlocal = set(parameters(node.args)), set(), set()
    stack: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, ast.Global):
            declared_global.update(child.names)
        elif isinstance(child, ast.Nonlocal):
            declared_nonlocal.update(child.names)
        elif isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
            assigned.add(child.id)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            assigned.update(import_binding(a, isinstance(child, ast.Import)) for a in child.names if a.name != "*")
        elif isinstance(child, ast.ExceptHandler) and child.name:
            assigned.add(child.name)
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            assigned.add(child.name)
        elif isinstance(child, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            assigned.update(n.target.id for n in ast.walk(child) if isinstance(n, ast.NamedExpr))
        elif not isinstance(child, ast.Lambda):
            stack.extend(ast.iter_child_nodes(child))
    yielding = yielding_statements(node.body) if isinstance(node, ast.FunctionDef) else frozenset()
    return FunctionNames(frozenset(assigned - declared_global - declared_nonlocal),
                          frozenset(declared_global), frozenset(declared_nonlocal), yielding)


def import_binding(alias: ast.alias, plain_import: bool) -> str:
    if alias.asname:
        return alias.asname
    return alias.name.split(".")[0] if plain_import else alias.name


def comprehension_targets(node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> frozenset[str]:
    return frozenset(n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name))
