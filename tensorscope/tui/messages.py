"""Messages the panes and the session controller send the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from tensorscope.snapshot import Snapshot
    from tensorscope.tui.controller import Update



class StatementSubmitted(Message):
    """The user entered source (one statement or a block) to run."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source


class TensorSelected(Message):
    """A pane selected a named object; every pane follows."""

    def __init__(self, name: str | None) -> None:
        super().__init__()
        self.name = name


class StepChosen(Message):
    """Show the snapshot after step `index` (time travel); -1 is the latest."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class PaddleStep:
    """The Paddle side of scenario step `index`: the snapshots of its statements, or why it could not run."""

    __slots__ = ("index", "problem", "snapshots")

    def __init__(self, index: int, snapshots: list[Snapshot] | None, problem: str | None = None) -> None:
        self.index = index
        self.snapshots = snapshots
        self.problem = problem


class SessionUpdated(Message):
    """A job of the controller finished: its Update, to apply on the app's thread."""

    def __init__(self, update: Update) -> None:
        super().__init__()
        self.update = update
