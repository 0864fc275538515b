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


class SessionUpdated(Message):
    """A worker changed the session: these are now all its snapshots.

    `ran` is how many of them are new since the previous update (0 after an undo or a reset);
    `failure` is a message for the transcript when the source could not run at all (a SyntaxError).
    """

    def __init__(self, kind: str, payload: object, snapshots: list[Snapshot], ran: int, replaced: bool,
                 failure: str | None = None, source: str | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.payload = payload
        self.snapshots = snapshots
        self.ran = ran
        self.replaced = replaced
        self.failure = failure
        self.source = source
