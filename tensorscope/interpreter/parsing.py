"""Parsing: user text to top-level statements, with Python's own SyntaxError wording.

`ast.parse` accepts a few constructs that Python's compiler rejects ('return' outside function,
...); they are found here, so a statement fails as it would in Python, before it runs.
"""

from __future__ import annotations

import ast
import re

from tensorscope.interpreter.results import ErrorInfo, Statement, UserError
from tensorscope.sandbox import gateway

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
    tree = parse_module(source, filename)
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


def parse_module(source: str, filename: str, line_offset: int = 0) -> ast.Module:
    """ast.parse plus the checks Python's compiler adds ('return' outside function, ...)."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        lineno = None if exc.lineno is None else exc.lineno + line_offset
        raise UserError(ErrorInfo(type(exc).__name__, _syntax_message(exc.msg, filename, lineno, exc.offset))) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, nesting too deep
        message = str(exc) if isinstance(exc, ValueError) else "too deeply nested to parse"
        raise UserError(ErrorInfo("SyntaxError", f"{message or 'cannot be parsed'} ({filename})")) from None
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
    stack: list[tuple[ast.AST, bool, bool, str | None]] = [(node, False, False, None) for node in tree.body]
    while stack:
        node, in_function, in_loop, comprehension = stack.pop()
        message = _placement_error(node, in_function, in_loop, comprehension)
        if message:
            found.append((node, message))
        if type(node) in _COMPREHENSIONS:
            stack.extend(_comprehension_children(node, in_function, in_loop, comprehension))
            continue
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            comprehension = None
        for slot, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if isinstance(child, ast.Starred) and not _starred_allowed(node, slot):
                    found.append((child, "can't use starred expression here"))
                if isinstance(child, ast.AST):
                    stack.append((child, *_child_context(node, slot, in_function, in_loop), comprehension))
    return min(found, key=lambda f: (f[0].lineno, f[0].col_offset)) if found else None


_COMPREHENSIONS = {ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
                   ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression"}


def _comprehension_children(node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, in_function: bool,
                            in_loop: bool, outer: str | None) -> list[tuple[ast.AST, bool, bool, str | None]]:
    """A comprehension's parts run in its own scope, except its first iterable (the enclosing one's)."""
    kind = _COMPREHENSIONS[type(node)]
    inner: list[ast.AST] = [getattr(node, slot) for slot in ("elt", "key", "value") if hasattr(node, slot)]
    for i, generator in enumerate(node.generators):
        inner += [generator.target, *generator.ifs] + ([generator.iter] if i else [])
    return [(child, in_function, in_loop, kind) for child in inner] + [
        (node.generators[0].iter, in_function, in_loop, outer)]


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


def _placement_error(node: ast.AST, in_function: bool, in_loop: bool, comprehension: str | None) -> str | None:
    if isinstance(node, ast.Return) and not in_function:
        return "'return' outside function"
    if isinstance(node, (ast.Yield, ast.YieldFrom)) and comprehension:
        return f"'yield' inside {comprehension}"
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
        names = parameters(node.args)
        repeated = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if repeated is not None:
            return f"duplicate argument '{repeated}' in function definition"
    return None


def parameters(args: ast.arguments) -> list[str]:
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


_UNSUPPORTED = {
    ast.AsyncFunctionDef: "async functions", ast.Await: "await", ast.AsyncFor: "async for",
    ast.AsyncWith: "async with", ast.Match: "match statements", ast.TryStar: "except*",
}


_YIELD_HOLDERS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)


@gateway
def check_supported(tree: ast.AST) -> None:
    """Refuse what the evaluator does not do; a yield must be a statement or the whole value of an
    assignment or a return (`yield v`, `x = yield v`, `return (yield v)`, `yield from g`)."""
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            kind = type(child)
            if kind in _UNSUPPORTED:
                raise NotImplementedError(f"tensorscope does not support {_UNSUPPORTED[kind]}")
            if (kind is ast.Yield or kind is ast.YieldFrom) and not (
                    isinstance(node, _YIELD_HOLDERS) and node.value is child):
                raise NotImplementedError("tensorscope supports yield as a statement or as the whole value of an "
                                          "assignment or a return (x = yield v), not inside another expression")
