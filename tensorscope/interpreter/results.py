"""What the interpreter hands back: statements, outcomes and errors, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field


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
