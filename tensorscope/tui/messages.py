"""Messages the panes and the app's workers send each other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from tensorscope.snapshot import Snapshot



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
    """A worker changed the session: these are now all its snapshots.

    `ran` is how many of them are new since the previous update (0 after an undo or a reset);
    `failure` is a message for the transcript when the source could not run at all (a SyntaxError);
    `paddle` is the Paddle side of a scenario step, when the scenario gives one.
    """

    def __init__(self, kind: str, payload: object, snapshots: list[Snapshot], ran: int, replaced: bool,
                 failure: str | None = None, source: str | None = None,
                 paddle: PaddleStep | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.payload = payload
        self.snapshots = snapshots
        self.ran = ran
        self.replaced = replaced
        self.failure = failure
        self.source = source
        self.paddle = paddle
