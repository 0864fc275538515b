"""Python syntax highlighting for the code input without tree-sitter: Pygments tokens mapped to
the highlight names TextArea themes style (`keyword`, `string`, `number`, ...)."""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any

Highlight = tuple[int, int | None, str]


@cache
def _lexer_and_names() -> tuple[Any, tuple[tuple[Any, str], ...]]:
    """Pygments, imported when the first character is typed rather than before the first paint."""
    from pygments.lexers.python import PythonLexer
    from pygments.token import Comment, Keyword, Name, Number, Operator, String

    names = (
        (Comment, "comment"),
        (String.Doc, "string.documentation"),
        (String, "string"),
        (Number.Float, "float"),
        (Number, "number"),
        (Keyword.Constant, "boolean"),
        (Keyword.Namespace, "include"),
        (Keyword, "keyword"),
        (Operator.Word, "keyword.operator"),
        (Name.Builtin, "function"),
        (Name.Function, "function"),
        (Name.Class, "class"),
        (Name.Decorator, "function"),
    )
    return PythonLexer(), names


def _name_of(token: Any, names: tuple[tuple[Any, str], ...]) -> str | None:
    for kind, name in names:
        if token in kind:
            return name
    return None


def python_highlights(text: str) -> dict[int, list[Highlight]]:
    """Per line, (start byte, end byte, highlight name) for the tokens worth colouring."""
    highlights: dict[int, list[Highlight]] = defaultdict(list)
    if not text:
        return highlights
    from pygments.token import Name, Operator, Token

    lexer, names = _lexer_and_names()
    row, column = 0, 0  # column in bytes, as TextArea expects
    previous_dot = False
    for token, value in lexer.get_tokens(text):
        name = _name_of(token, names)
        if name is None and token in Name and previous_dot:
            name = "method.call"
        previous_dot = token in Token.Punctuation and value == "." or token in Operator and value == "."
        parts = value.split("\n")
        for index, part in enumerate(parts):
            size = len(part.encode("utf-8"))
            if name is not None and size:
                highlights[row].append((column, column + size, name))
            if index < len(parts) - 1:
                row, column = row + 1, 0
            else:
                column += size
    return highlights
