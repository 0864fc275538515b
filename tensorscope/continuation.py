"""Where a typed statement ends (the REPL's `...` prompt, the explorer's Enter): parsed with
Python's own parser into an AST only (as ast.parse does; nothing that could run is made), told to
say "incomplete input" where more lines could finish the text rather than raise its SyntaxError."""

from __future__ import annotations

import ast
import codeop
from typing import Literal

_PARSE_ALLOWING_MORE = ast.PyCF_ONLY_AST | codeop.PyCF_DONT_IMPLY_DEDENT | codeop.PyCF_ALLOW_INCOMPLETE_INPUT
_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef, ast.AsyncFor,
             ast.AsyncWith, ast.AsyncFunctionDef, ast.Match, ast.TryStar)

State = Literal["complete", "block", "incomplete", "invalid"]


def parse_state(text: str) -> State:
    """`incomplete`: an open bracket, string, block header or `\\`; `invalid`: no line could mend it
    (`def f(:`), or too deep to parse (the worker says so); `block`: complete, and a compound
    statement over several lines, which stays open until a blank line (a one-line `for ...: x`
    runs at once); else `complete`."""
    try:
        tree = compile(text, "<input>", "exec", _PARSE_ALLOWING_MORE)
    except SyntaxError as exc:
        return "incomplete" if exc.msg == "incomplete input" else "invalid"
    except (ValueError, RecursionError, MemoryError):  # null bytes, nesting too deep
        return "invalid"
    return "block" if "\n" in text.strip() and tree.body and isinstance(tree.body[0], _COMPOUND) else "complete"
