"""Run a program in CPython itself, as tensorscope's REPL runs it, to compare what both print.

Each top-level statement runs in turn; an expression statement echoes repr(value) unless it is
None, as Python's interactive prompt does (and as tensorscope does). The programs are our own test
code, so exec is fine here (and only in tests: the application never execs user code).
"""

from __future__ import annotations

import ast
import contextlib
import io
import textwrap


def python_output(source: str, namespace: dict | None = None) -> str | None:
    """What CPython prints running source statement by statement, joined as `Session.ok` joins
    tensorscope's outputs (None when nothing was printed)."""
    namespace = {"__name__": "__main__"} if namespace is None else namespace
    printed = []
    for node in ast.parse(textwrap.dedent(source)).body:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            if isinstance(node, ast.Expr):
                value = eval(compile(ast.Expression(node.value), "<program>", "eval", dont_inherit=True), namespace)  # noqa: S307
                if value is not None:
                    print(repr(value))
            else:
                exec(compile(ast.Module([node], []), "<program>", "exec", dont_inherit=True), namespace)  # noqa: S102
        text = buffer.getvalue().removesuffix("\n")
        if buffer.getvalue():
            printed.append(text)
    return "\n".join(printed) if printed else None
