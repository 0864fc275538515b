"""The safe interpreter: runs PyTorch-style Python typed by users, one top-level statement at a time.

Security model
--------------
User text is parsed with `ast.parse` and walked by this module's own evaluator: it is never handed
to eval, exec or compile, so user code can only do what the evaluator does for it. Everything it
reaches is decided by allowlists at three levels (the policy lives in tensorscope/sandbox.py):

1. Names: a name is a user binding or one of an explicit table of builtins (no open, eval, exec,
   compile, __import__, globals, locals, vars, input, breakpoint, help, memoryview; `iter`, `zip`,
   `map`, `sum`, `print`, `getattr`, ... are replaced by metered or policy-checked versions).
2. Modules: `import` resolves only torch (the engine), torch.nn, torch.nn.functional, torch.nn.init,
   torch.autograd, torch.cuda, numpy, numpy.random and math, each as a read-only proxy exposing
   listed names (numpy: no file, ctypes or raw-memory functions; calls that would allocate huge
   arrays are refused).
3. Attributes: every read, write and delete, including getattr/setattr/hasattr and str.format
   fields, goes through one policy: names starting with `__` are refused (except the strings
   `__name__`, `__qualname__`, `__doc__`, a module's `__version__`, and methods that only do what
   an operator does, such as `__init__`, `__repr__`, `__len__`, `__eq__`, for `super().__init__()`);
   `_private` names only from a short allowlist (`_version`, `_base`, `_is_view`, `_saved_*` on
   graph nodes, a Module's `_parameters`/`_buffers`/`_modules`, and users' own `_names`);
   `gi_*`, `cr_*`, `ag_*`, `tb_*`, `co_*`, `func_*`, `im_*`, `mro`, numpy's `ctypes`/`tofile`/`dump`
   are refused; no attribute or call may return a module, frame, code, traceback or cell object;
   classes other than users' own are read-only.

Counters bound what one statement may cost: a step counter (loop iterations, calls, items that
builtins and engine calls consume) stops it past `max_steps`; a depth counter raises RecursionError
past `max_depth` user-function calls (Python's own recursion limit is raised for the duration of a
statement so that the evaluator's frames fit); results that would be too large (`[0] * 10**12`,
`10**10**10`, `'{:999999999}'`, `'x'.ljust(10**12)`, huge numpy arrays) are refused before they are
built, and a statement whose memory grows past the engine's budget is stopped. Limits cannot be
caught by user code; `__exit__` and `finally` get a small budget to clean up. Tensor memory is the
engine allocator's job.

Errors read as Python's: NameError, AttributeError, TypeError, ... with Python's wording, engine
errors as raised (type name and str(exc)). An exception raised by the interpreter's own code
outside the places where user errors arise (sandbox.gateway) is a bug and is reported as
`InternalError: ...`; `run` never raises.

REPL behaviour: a module-level expression statement (also inside a module-level if/for/with)
echoes repr(value) unless it is None, as Python's interactive prompt does; this includes a bare
string, such as a docstring or a `'''Output: ...'''` block pasted from a tutorial.
"""

from __future__ import annotations

import ast
import contextlib
import operator
import re
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tensorscope.sandbox import (
    Counted,
    LimitExceeded,
    Meter,
    Sandbox,
    Uncatchable,
    check_binop,
    check_format_spec,
    gateway,
    is_user_error,
    left_out_builtin,
    public_names,
)


@dataclass(frozen=True)
class Statement:
    """One top-level statement: its text as written and its first line in the parsed source.

    `exact` is the text `run` executes when `source` was trimmed for display (see `parse`);
    statements made by hand leave it out and run `source`.
    """

    source: str
    lineno: int
    exact: str | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ErrorInfo:
    """An error as Python prints its last line: `type: message`."""

    type: str
    message: str

    def __str__(self) -> str:
        return f"{self.type}: {self.message}" if self.message else self.type


@dataclass(frozen=True)
class Outcome:
    """What running a statement did: printed/echoed text, the error, the warnings raised."""

    output: str | None
    error: ErrorInfo | None
    warnings: tuple[str, ...]


class UserError(Exception):
    """A failure in the user's text itself (a SyntaxError), raised by `parse`."""

    def __init__(self, info: ErrorInfo) -> None:
        super().__init__(str(info))
        self.info = info


# ----------------------------------------------------------------------------- parsing

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def parse(source: str, filename: str = "<input>") -> list[Statement]:
    """Split source into top-level statements.

    Raises UserError for text Python would reject. Its type is Python's class name (SyntaxError,
    IndentationError, TabError) and its message is Python's, followed by the position:
    `"invalid syntax (<input>, line 1, column 3)"`; the column is 1-based, as Python's `offset`.

    A statement's `source` is its lines (from its first decorator to its last line, comments
    included, trailing spaces removed), or, when it shares a line with another statement
    (`a = 1; b = 2`), exactly its own text; `lineno` is its first line.
    """
    source = source.removeprefix("\ufeff")
    tree = _parse_module(source, filename)
    lines = _LINE_BREAK.split(source)
    spans = [(_first_line(node), node.end_lineno or node.lineno) for node in tree.body]
    statements = []
    for i, node in enumerate(tree.body):
        first, last = spans[i]
        exact = _statement_text(lines, node)
        shares_a_line = (i > 0 and spans[i - 1][1] == first) or (i + 1 < len(spans) and spans[i + 1][0] == last)
        shown = exact if shares_a_line else "\n".join(line.rstrip() for line in lines[first - 1:last])
        statements.append(Statement(shown, first, None if shown == exact else exact))
    return statements


def _first_line(node: ast.stmt) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _statement_text(lines: list[str], node: ast.stmt) -> str:
    """The statement's exact text; ast offsets count UTF-8 bytes, so slicing happens on bytes."""
    first, last = _first_line(node), node.end_lineno or node.lineno
    start = node.col_offset if first == node.lineno else 0
    chunk = [line.encode() for line in lines[first - 1:last]]
    if len(chunk) == 1:
        return chunk[0][start:node.end_col_offset].decode()
    chunk[0], chunk[-1] = chunk[0][start:], chunk[-1][:node.end_col_offset]
    return "\n".join(part.decode() for part in chunk)


def _syntax_message(msg: str, filename: str, lineno: int | None, offset: int | None) -> str:
    if lineno is None:
        return f"{msg} ({filename})"
    column = f", column {offset}" if offset else ""
    return f"{msg} ({filename}, line {lineno}{column})"


def _parse_module(source: str, filename: str, line_offset: int = 0) -> ast.Module:
    """ast.parse plus the checks Python's compiler adds ('return' outside function, ...)."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        lineno = None if exc.lineno is None else exc.lineno + line_offset
        raise UserError(ErrorInfo(type(exc).__name__, _syntax_message(exc.msg, filename, lineno, exc.offset))) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, nesting too deep
        raise UserError(ErrorInfo("SyntaxError", f"{exc} ({filename})")) from None
    if line_offset:
        ast.increment_lineno(tree, line_offset)
    misplaced = _misplaced_statement(tree)
    if misplaced is not None:
        node, msg = misplaced
        raise UserError(ErrorInfo("SyntaxError", _syntax_message(msg, filename, node.lineno, node.col_offset + 1)))
    return tree


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _misplaced_statement(tree: ast.Module) -> tuple[ast.AST, str] | None:
    """The first construct that ast.parse accepts but Python's compiler rejects: return, break,
    continue, yield or nonlocal out of place, a misplaced starred expression, a repeated parameter."""
    found: list[tuple[ast.AST, str]] = []
    stack: list[tuple[ast.AST, bool, bool]] = [(node, False, False) for node in tree.body]
    while stack:
        node, in_function, in_loop = stack.pop()
        message = _placement_error(node, in_function, in_loop)
        if message:
            found.append((node, message))
        for slot, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if isinstance(child, ast.Starred) and not _starred_allowed(node, slot):
                    found.append((child, "can't use starred expression here"))
                if isinstance(child, ast.AST):
                    stack.append((child, *_child_context(node, slot, in_function, in_loop)))
    return min(found, key=lambda f: (f[0].lineno, f[0].col_offset)) if found else None


def _starred_allowed(parent: ast.AST, slot: str) -> bool:
    return (isinstance(parent, (ast.List, ast.Tuple, ast.Set)) and slot == "elts") or (
        isinstance(parent, ast.Call) and slot == "args") or (isinstance(parent, ast.ClassDef) and slot == "bases")


def _child_context(node: ast.AST, slot: str, in_function: bool, in_loop: bool) -> tuple[bool, bool]:
    if isinstance(node, _FUNCTIONS) and slot == "body":
        return True, False
    if isinstance(node, ast.ClassDef) and slot == "body":
        return False, False
    if isinstance(node, _LOOPS) and slot == "body":
        return in_function, True
    return in_function, in_loop


def _placement_error(node: ast.AST, in_function: bool, in_loop: bool) -> str | None:
    if isinstance(node, ast.Return) and not in_function:
        return "'return' outside function"
    if isinstance(node, (ast.Yield, ast.YieldFrom)) and not in_function:
        return "'yield' outside function"
    if isinstance(node, ast.Await) and not in_function:
        return "'await' outside function"
    if isinstance(node, ast.Nonlocal) and not in_function:
        return "nonlocal declaration not allowed at module level"
    if isinstance(node, ast.ImportFrom) and in_function and any(a.name == "*" for a in node.names):
        return "import * only allowed at module level"
    if isinstance(node, ast.Break) and not in_loop:
        return "'break' outside loop"
    if isinstance(node, ast.Continue) and not in_loop:
        return "'continue' not properly in loop"
    if isinstance(node, (ast.List, ast.Tuple)) and isinstance(node.ctx, ast.Store) and \
            sum(isinstance(e, ast.Starred) for e in node.elts) > 1:
        return "multiple starred expressions in assignment"
    if isinstance(node, _FUNCTIONS):
        names = _parameters(node.args)
        repeated = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if repeated is not None:
            return f"duplicate argument '{repeated}' in function definition"
    return None


_UNSUPPORTED = {
    ast.Yield: "generator functions (yield)", ast.YieldFrom: "generator functions (yield from)",
    ast.AsyncFunctionDef: "async functions", ast.Await: "await", ast.AsyncFor: "async for",
    ast.AsyncWith: "async with", ast.Match: "match statements", ast.TryStar: "except*",
}


@gateway
def _check_supported(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if type(node) in _UNSUPPORTED:
            raise NotImplementedError(f"tensorscope does not support {_UNSUPPORTED[type(node)]}")


# ----------------------------------------------------------------------------- scopes

MODULE, FUNCTION, CLASS, COMPREHENSION = range(4)
_DONE = object()  # end of an iteration, or an unbound name
_REQUIRED = object()  # a keyword-only parameter without default


class Scope:
    """Where names live while code runs: the module namespace, a call's locals, a class body or a
    comprehension. `parent` is the lexically enclosing scope (closures see it live)."""

    __slots__ = ("class_name", "function", "global_names", "kind", "local_names", "names",
                 "nonlocal_names", "parent", "qualname")

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


@dataclass(frozen=True)
class _FunctionNames:
    """A function's symbol table: which names are local, declared global, declared nonlocal."""

    local_names: frozenset[str]
    global_names: frozenset[str]
    nonlocal_names: frozenset[str]


def _parameters(args: ast.arguments) -> list[str]:
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def _analyze_function(node: ast.FunctionDef | ast.Lambda) -> _FunctionNames:
    """Python's rule: a name assigned anywhere in a function body is local to it, unless declared
    global or nonlocal; nested functions and classes are not looked into (only their names)."""
    assigned, declared_global, declared_nonlocal = set(_parameters(node.args)), set(), set()
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
            assigned.update(_import_binding(a, isinstance(child, ast.Import)) for a in child.names if a.name != "*")
        elif isinstance(child, ast.ExceptHandler) and child.name:
            assigned.add(child.name)
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            assigned.add(child.name)
        elif isinstance(child, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            assigned.update(n.target.id for n in ast.walk(child) if isinstance(n, ast.NamedExpr))
        elif not isinstance(child, ast.Lambda):
            stack.extend(ast.iter_child_nodes(child))
    return _FunctionNames(frozenset(assigned - declared_global - declared_nonlocal),
                          frozenset(declared_global), frozenset(declared_nonlocal))


def _import_binding(alias: ast.alias, plain_import: bool) -> str:
    if alias.asname:
        return alias.asname
    return alias.name.split(".")[0] if plain_import else alias.name


def _comprehension_targets(node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> frozenset[str]:
    return frozenset(n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name))


class UserFunction:
    """A function or lambda defined by user code. Calling it runs its body in the interpreter;
    as a class attribute it binds like a Python function (descriptor protocol)."""

    public_attributes = frozenset({"__name__", "__qualname__", "__doc__", "__module__"})

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
        self._names = _analyze_function(node)
        self._owner: type | None = None  # the class whose body defined it, for zero-argument super()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._interpreter._invoke(self, args, kwargs)

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<function {self.__qualname__} at {id(self):#x}>"


class _Return(Uncatchable):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


class _Break(Uncatchable):
    pass


class _Continue(Uncatchable):
    pass


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.MatMult: operator.matmul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
}
_INPLACE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul, ast.MatMult: operator.imatmul,
    ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod,
    ast.Pow: operator.ipow, ast.LShift: operator.ilshift, ast.RShift: operator.irshift,
    ast.BitOr: operator.ior, ast.BitXor: operator.ixor, ast.BitAnd: operator.iand,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: gateway(lambda a, b: a in b), ast.NotIn: gateway(lambda a, b: a not in b),
}
_CONVERSIONS: dict[int, Callable[[Any], str]] = {ord("s"): str, ord("r"): repr, ord("a"): ascii}
_REFUSED_METHODS = {"__del__": "it would run outside the interpreter's limits"}
_FRAMES_PER_CALL = 40  # generous bound on Python frames the evaluator uses per user-level call


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _name_list(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _callable_name(func: Any) -> str:
    if isinstance(func, (UserFunction, types.FunctionType, types.BuiltinFunctionType, type)):
        return func.__qualname__
    return type(func).__name__ + " object"


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


# ----------------------------------------------------------------------------- the interpreter


class Interpreter:
    """Runs statements in one persistent namespace under the sandbox's allowlists and limits."""

    def __init__(self, *, max_steps: int = 1_000_000, max_depth: int = 200) -> None:
        self.namespace: dict[str, Any] = {}
        self._meter = Meter(max_steps, max_depth)
        self._sandbox = Sandbox(self._meter, self._call_from_builtin, self.namespace)
        self._module_scope = Scope(MODULE, self.namespace, None)
        self._handling: list[BaseException] = []  # exceptions whose `except` block is running
        self._frames = 1000 + _FRAMES_PER_CALL * max_depth
        self._statements = {getattr(ast, n[5:]): getattr(self, n) for n in dir(self) if n.startswith("exec_")}
        self._expressions = {getattr(ast, n[5:]): getattr(self, n) for n in dir(self) if n.startswith("eval_")}

    # ------------------------------------------------------------------ public API
    def run(self, statement: Statement) -> Outcome:
        """Run one statement; every failure becomes Outcome.error."""
        self._meter.reset()
        self._sandbox.take_output()
        error = None
        with warnings.catch_warnings(record=True) as caught, _recursion_room(self._frames):
            warnings.simplefilter("always")
            try:
                tree = _parse_module(statement.exact or statement.source, "<input>", statement.lineno - 1)
                _check_supported(tree)
                self._exec_block(tree.body, self._module_scope)
            except UserError as exc:
                error = exc.info
            except BaseException as exc:  # noqa: BLE001 - run never raises
                error = self._describe(exc)
        output = self._sandbox.take_output()
        output = output.removesuffix("\n") if output else None
        return Outcome(output, error, tuple(f"{w.category.__name__}: {w.message}" for w in caught))

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
                return ErrorInfo(type(exc).__name__, str(exc))
            first_line = str(exc).partition("\n")[0]
            return ErrorInfo("InternalError", f"{type(exc).__name__}: {first_line} (a bug in tensorscope's interpreter)")
        except BaseException as failure:  # noqa: BLE001 - a user __str__ that fails or loops
            return ErrorInfo(type(exc).__name__, f"<str() of the exception failed: {type(failure).__name__}>")

    # ------------------------------------------------------------------ statements
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
        if node.value is not None:
            self._assign(node.target, self._eval(node.value, scope), scope)

    def exec_AugAssign(self, node: ast.AugAssign, scope: Scope) -> None:
        """Python's semantics: load the target, call the in-place operator (`__iadd__`, falling
        back to `__add__`), store the result back; so `out += residual` is in place on tensors."""
        op, target = _INPLACE[node.op.__class__], node.target
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
        raise _Break

    def exec_Continue(self, node: ast.Continue, scope: Scope) -> None:
        raise _Continue

    def exec_Return(self, node: ast.Return, scope: Scope) -> None:
        raise _Return(None if node.value is None else self._eval(node.value, scope))

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
            except _Break:
                return
            except _Continue:
                pass

    def exec_For(self, node: ast.For, scope: Scope) -> None:
        iterator = self._iter(self._eval(node.iter, scope))
        while True:
            self._meter.tick()
            item = self._next(iterator)
            if item is _DONE:
                self._exec_block(node.orelse, scope)
                return
            self._assign(node.target, item, scope)
            try:
                self._exec_block(node.body, scope)
            except _Break:
                return
            except _Continue:
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
            self._store(_import_binding(alias, True), module, scope)

    @gateway
    def exec_ImportFrom(self, node: ast.ImportFrom, scope: Scope) -> None:
        if node.level:
            raise ImportError("attempted relative import with no known parent package")
        if node.module == "__future__":
            return
        module = self._sandbox.import_module(node.module)
        for alias in node.names:
            if alias.name == "*":
                for name in public_names(module):
                    self._store(name, self._sandbox.import_from(module, node.module, name), scope)
            else:
                self._store(_import_binding(alias, False), self._sandbox.import_from(module, node.module, alias.name), scope)

    def exec_FunctionDef(self, node: ast.FunctionDef, scope: Scope) -> None:
        decorators = [self._eval(d, scope) for d in node.decorator_list]
        function = self._make_function(node, node.name, scope)
        for decorator in reversed(decorators):
            function = self._call(decorator, (function,), {})
        self._store(node.name, function, scope)

    @gateway
    def _make_function(self, node: ast.FunctionDef | ast.Lambda, name: str, scope: Scope) -> UserFunction:
        defaults = tuple(self._eval(d, scope) for d in node.args.defaults)
        kwdefaults = tuple(_REQUIRED if d is None else self._eval(d, scope) for d in node.args.kw_defaults)
        function = UserFunction(self, node, scope, defaults, kwdefaults, name)
        for declared in function._names.nonlocal_names:
            if self._enclosing_with(declared, scope) is None:
                raise SyntaxError(f"no binding for nonlocal '{declared}' found")
        return function

    def exec_ClassDef(self, node: ast.ClassDef, scope: Scope) -> None:
        decorators = [self._eval(d, scope) for d in node.decorator_list]
        bases = self._eval_arguments(node.bases, scope, None)
        keywords = self._eval_keywords(node.keywords, scope, None)
        cls = self._make_class(node, bases, keywords, scope)
        for decorator in reversed(decorators):
            cls = self._call(decorator, (cls,), {})
        self._store(node.name, cls, scope)

    @gateway
    def _make_class(self, node: ast.ClassDef, bases: tuple[Any, ...], keywords: dict[str, Any], scope: Scope) -> type:
        """What `class` does: resolve bases, prepare the namespace, run the body in it, call the
        metaclass; the class is then registered as a user class (its `_names` are readable)."""
        resolved = types.resolve_bases(bases)
        self._sandbox.check_bases(resolved)
        metaclass, namespace, keywords = types.prepare_class(node.name, resolved, keywords)
        qualname = scope.qualname + node.name
        namespace.update(__module__="__main__", __qualname__=qualname)
        docstring = ast.get_docstring(node, clean=False)
        if docstring is not None:
            namespace["__doc__"] = docstring
        body_scope = Scope(CLASS, namespace, scope, class_name=node.name, qualname=qualname + ".")
        self._exec_block(node.body, body_scope)
        for name, why in _REFUSED_METHODS.items():
            if name in namespace:
                raise TypeError(f"classes may not define {name} in tensorscope ({why})")
        if resolved is not bases:
            namespace["__orig_bases__"] = bases
        self._meter.tick()
        cls = metaclass(node.name, resolved, namespace, **keywords)
        self._sandbox.register_class(cls)
        for value in namespace.values():
            for function in _user_functions_in(value):
                function._owner = cls
        return cls

    # ------------------------------------------------------------------ names
    def _load(self, name: str, scope: Scope) -> Any:
        kind = scope.kind
        if kind == MODULE:
            return self._load_global(name)
        if kind == CLASS:
            name = self._mangle(name, scope)
            if name in scope.names:
                return scope.names[name]
        elif name in scope.local_names:
            value = scope.names.get(name, _DONE)
            return self._unbound_local(name) if value is _DONE else value
        elif name in scope.global_names:
            return self._load_global(name)
        owner = self._enclosing_with(name, scope.parent)
        if owner is None:
            return self._load_global(name)
        value = owner.names.get(name, _DONE)
        return self._unbound_free(name) if value is _DONE else value

    @gateway
    def _load_global(self, name: str) -> Any:
        value = self.namespace.get(name, _DONE)
        if value is _DONE:
            value = self._sandbox.builtins.get(name, _DONE)
        if value is _DONE:
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
            if item is _DONE:
                break
            items.append(item)
        return items

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
            return next(iterator)
        except StopIteration:
            return _DONE

    @gateway
    def _binop(self, op: Callable[[Any, Any], Any], left: Any, right: Any) -> Any:
        check_binop(op, left, right)
        return self._sandbox.checked(op(left, right), "an operator")

    @gateway
    def _unary(self, op: Callable[[Any], Any], value: Any) -> Any:
        return op(value)

    @gateway
    def _compare(self, op: Callable[[Any, Any], Any], left: Any, right: Any) -> Any:
        return op(left, right)

    @gateway
    def _getitem(self, obj: Any, index: Any) -> Any:
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
        self._sandbox.before_call(func, args, kwargs)
        return self._sandbox.checked(func(*args, **kwargs), "a call")

    def _call_from_builtin(self, func: Any, *args: Any) -> Any:
        return self._call(func, args, {})

    def _invoke(self, function: UserFunction, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run a user function: a fresh local scope whose parent is where it was defined."""
        self._meter.tick()
        self._meter.enter()
        try:
            names = function._names
            scope = Scope(FUNCTION, {}, function._scope, local_names=names.local_names,
                          global_names=names.global_names, nonlocal_names=names.nonlocal_names,
                          function=function, class_name=function._scope.class_name,
                          qualname=function.__qualname__ + ".<locals>.")
            self._bind_arguments(function, args, kwargs, scope.names)
            node = function._node
            if isinstance(node, ast.Lambda):
                return self._eval(node.body, scope)
            try:
                self._exec_block(node.body, scope)
            except _Return as result:
                return result.value
            return None
        finally:
            self._meter.leave()

    @gateway
    def _bind_arguments(self, function: UserFunction, args: tuple[Any, ...], kwargs: dict[str, Any],
                        names: dict[str, Any]) -> None:
        """Python's argument binding, with Python's TypeError wording."""
        spec, qualname = function._node.args, function.__qualname__
        positional_only = [a.arg for a in spec.posonlyargs]
        positional = positional_only + [a.arg for a in spec.args]
        keyword_only = [a.arg for a in spec.kwonlyargs]
        if len(args) > len(positional) and spec.vararg is None:
            raise TypeError(self._too_many(qualname, len(positional), len(function._defaults), len(args)))
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
        self._fill_defaults(function, positional, keyword_only, names)
        if spec.kwarg is not None:
            names[spec.kwarg.arg] = extra

    @staticmethod
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
            raise TypeError(f"{function.__qualname__}() missing {_plural(len(missing), 'required positional argument')}: "
                            f"{_name_list(missing)}")
        for name, default in zip(keyword_only, function._kwdefaults, strict=True):
            if name not in names and default is not _REQUIRED:
                names[name] = default
        missing = [n for n in keyword_only if n not in names]
        if missing:
            raise TypeError(f"{function.__qualname__}() missing {_plural(len(missing), 'required keyword-only argument')}: "
                            f"{_name_list(missing)}")

    @staticmethod
    def _too_many(qualname: str, count: int, defaults: int, given: int) -> str:
        takes = f"from {count - defaults} to {count}" if defaults else str(count)
        was = "was" if given == 1 else "were"
        return f"{qualname}() takes {takes} positional argument{'' if takes == '1' else 's'} but {given} {was} given"

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

    # ------------------------------------------------------------------ expressions
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
        return self._binop(_BINOPS[node.op.__class__], left, self._eval(node.right, scope))

    def eval_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Any:
        value = self._eval(node.operand, scope)
        if isinstance(node.op, ast.Not):
            return not self._truth(value)
        return self._unary(_UNARY[node.op.__class__], value)

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
            result = self._compare(_COMPARE[op.__class__], left, right)
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
            where = "Value" if func is None else f"{_callable_name(func)}() argument"
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
        name = _callable_name(func) if func is not None else "class"
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
        return self._eval_arguments(node.elts, scope, None)

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
        return "".join([self._eval(part, scope) for part in node.values])

    def eval_FormattedValue(self, node: ast.FormattedValue, scope: Scope) -> str:
        value = self._eval(node.value, scope)
        spec = "" if node.format_spec is None else self._eval(node.format_spec, scope)
        return self._format(value, node.conversion, spec)

    @gateway
    def _format(self, value: Any, conversion: int, spec: str) -> str:
        if conversion in _CONVERSIONS:
            value = _CONVERSIONS[conversion](value)
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

    def eval_GeneratorExp(self, node: ast.GeneratorExp, scope: Scope) -> Iterator[Any]:
        scopes = self._comprehension(node, scope)
        return (self._eval(node.elt, inner) for inner in scopes)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
                       scope: Scope) -> Iterator[Scope]:
        """The comprehension's own scope, yielded once per item that passes the filters. The first
        iterable is evaluated (and iter() called) right away in the enclosing scope, as in Python."""
        inner = Scope(COMPREHENSION, {}, scope, local_names=_comprehension_targets(node),
                      class_name=scope.class_name, qualname=scope.qualname)
        first = self._iter(self._eval(node.generators[0].iter, scope))
        return self._comprehension_loop(node.generators, 0, first, inner)

    def _comprehension_loop(self, generators: list[ast.comprehension], index: int, iterator: Iterator[Any],
                            scope: Scope) -> Iterator[Scope]:
        generator, last = generators[index], index == len(generators) - 1
        while True:
            self._meter.tick()
            item = self._next(iterator)
            if item is _DONE:
                return
            self._assign(generator.target, item, scope)
            if all(self._truth(self._eval(condition, scope)) for condition in generator.ifs):
                if last:
                    yield scope
                else:
                    nested = self._iter(self._eval(generators[index + 1].iter, scope))
                    yield from self._comprehension_loop(generators, index + 1, nested, scope)


def _user_functions_in(value: Any) -> list[UserFunction]:
    """The user functions behind a class attribute: plain, static/class methods, properties, and
    functions wrapped by decorators such as torch.no_grad() (followed through __wrapped__)."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if isinstance(f, UserFunction)]
    for _ in range(10):
        if isinstance(value, UserFunction):
            return [value]
        value = getattr(value, "__wrapped__", None) if isinstance(value, types.FunctionType) else None
    return []
