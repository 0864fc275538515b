"""The transcript: each statement with what it printed, or its error in red and the explanation,
and what it changed (versions, sharing, stale saved tensors). Click an entry to look back at it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tensorscope.printable import printable
from tensorscope.tui.format import ACCENT, ERROR, MUTED, NOTE, WARNING, Styled, highlight_code
from tensorscope.tui.messages import StepChosen
from tensorscope.tui.panes.base import Pane

if TYPE_CHECKING:
    from tensorscope.snapshot import Snapshot

Explain = Callable[[list["Snapshot"]], "str | None"]

MAX_ENTRIES = 50  # statements kept on screen; a long session would otherwise slow every layout

ERROR_STYLE = f"bold {ERROR}"
EXPLANATION_STYLE = f"italic {ACCENT}"


SOURCE_LINES = 40  # of a statement echoed in the transcript; a pasted script or a 100,000-element
SOURCE_CHARACTERS = 4000  # literal would bury the result under itself and take seconds to lay out


def shown_source(source: str) -> tuple[str, str]:
    """The part of a statement the transcript echoes, and what was left out (`""`: nothing)."""
    lines = source.split("\n")
    shown = "\n".join(lines[:SOURCE_LINES])
    if len(shown) > SOURCE_CHARACTERS:
        shown = shown[:SOURCE_CHARACTERS]
        if "\n" in shown:
            shown = shown[:shown.rindex("\n")]
    if shown == source:
        return source, ""
    more_lines = source.count("\n") - shown.count("\n")
    return shown, (f"{len(source) - len(shown):,} more characters" if more_lines == 0 else
                   f"{more_lines:,} more line{'s' if more_lines > 1 else ''}, {len(source) - len(shown):,} characters")


def render_entry(snapshot: Snapshot, previous: Snapshot | None, explanation: str | None) -> Content:
    from tensorscope.report import changes  # report imports the snapshot module, and so the engine

    text = Styled()
    shown, hidden = shown_source(snapshot.source)
    lines = highlight_code(printable(shown)).split("\n")
    for index, line in enumerate(lines):
        text.append(f"[{snapshot.step}] >>> " if index == 0 else " " * (len(str(snapshot.step)) + 3) + "... ",
                    MUTED)
        text.append_text(line)
        text.append("\n")
    if hidden:
        text.append(f"    … {hidden} (up in the input brings back the whole statement)\n", MUTED)
    if snapshot.output is not None:
        for line in printable(snapshot.output).splitlines():
            text.append("    " + line + "\n")
    for warning in snapshot.warnings:
        text.append(f"    warning: {printable(warning)}\n", WARNING)
    if snapshot.error is not None:
        text.append(f"    {snapshot.error.type}: {printable(snapshot.error.message)}\n", ERROR_STYLE)
        if explanation:
            for line in printable(explanation).strip().splitlines():
                text.append(f"    ↳ {line}\n", EXPLANATION_STYLE)
    for note in changes(previous, snapshot):
        text.append(f"    • {note}\n", WARNING if not note.startswith("stale") else ERROR_STYLE)
    return text.rstrip().content()


class StepEntry(Static):
    """One statement in the transcript; clicking it shows the state after it."""

    def __init__(self, index: int, source: str, body: Content) -> None:
        super().__init__(body, classes="entry")
        self.body = body
        self.index = index
        self.source = source

    def on_click(self) -> None:
        self.post_message(StepChosen(self.index))


class Transcript(VerticalScroll, Pane, can_focus=True):
    """Statements so far, newest at the bottom."""

    PANE_TITLE = "Transcript"
    HELP = """\
## Transcript

Each statement you ran, numbered, with what it printed. An error shows in **red**, followed by
its explanation (`↳`) when one is known. The `•` lines say what the statement changed: versions
that moved, memory that became shared, saved tensors that went stale (a later backward through
them will fail).

**Click** a statement (or use ctrl+b / ctrl+n) to look at the state after it: every pane shows that
step, and the title says so. ctrl+g goes back to the latest step.
"""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.border_title = self.PANE_TITLE
        self.entries: list[StepEntry] = []
        self.notes: list[str] = []
        self._pending: Static | None = None
        self._viewed: int | None = None
        self._trimmed = 0  # steps before the first mounted entry
        self._trimmed_note: Static | None = None

    def on_mount(self) -> None:
        self.anchor()  # stay at the newest entry while entries arrive, until the user scrolls up

    def _follow(self) -> None:
        if self._viewed is None:
            self.anchor()
            self.scroll_end(animate=False, immediate=True)

    def sync(self, snapshots: Sequence[Snapshot], explain: Explain | None) -> None:
        """Make the entries match the snapshots: keep those whose statement is unchanged, mount the
        new ones, and keep at most MAX_ENTRIES mounted (older ones stay reachable with ctrl+b)."""
        keep: list[StepEntry] = []
        broken = False
        for entry in self.entries:
            broken = broken or entry.index >= len(snapshots) or snapshots[entry.index].source != entry.source
            if broken:
                entry.remove()
            else:
                keep.append(entry)
        self._trimmed = min(self._trimmed, len(snapshots))
        start = keep[-1].index + 1 if keep else self._trimmed
        start = max(start, len(snapshots) - MAX_ENTRIES)
        if not keep:
            self._trimmed = start
        self.entries = keep
        new: list[StepEntry] = []
        for index in range(start, len(snapshots)):
            snapshot = snapshots[index]
            previous = snapshots[index - 1] if index else None
            explanation = None
            if snapshot.error is not None and explain is not None:
                try:
                    explanation = explain(list(snapshots[: index + 1]))
                except Exception as exc:  # an explainer bug must not take the app down
                    explanation = f"(no explanation: {type(exc).__name__})"
            new.append(StepEntry(index, snapshot.source, render_entry(snapshot, previous, explanation)))
        self.entries.extend(new)
        if new:
            if self._pending is not None:
                self.mount_all(new, before=self._pending)
            else:
                self.mount_all(new)
        excess = len(self.entries) - MAX_ENTRIES
        if excess > 0:
            for entry in self.entries[:excess]:
                entry.remove()
            del self.entries[:excess]
            self._trimmed = self.entries[0].index
        self._show_trimmed()
        self.mark_viewed(None)  # a new step shows the latest: no entry stays marked as viewed
        self._follow()

    def _show_trimmed(self) -> None:
        hidden = self.entries[0].index if self.entries else self._trimmed
        if hidden <= 0:
            if self._trimmed_note is not None:
                self._trimmed_note.remove()
                self._trimmed_note = None
            return
        text = Content.styled(f"… {hidden} earlier statement{'s' if hidden > 1 else ''} (ctrl+b reaches them)",
                              f"italic {MUTED}")
        if self._trimmed_note is None:
            self._trimmed_note = Static(text, classes="note")
            self.mount(self._trimmed_note, before=0)
        else:
            self._trimmed_note.update(text)

    def note(self, message: str, style: str = NOTE) -> None:
        """A line that is not a step: a syntax error, `undid ...`, `saved ...`."""
        widget = Static(Content.styled(printable(message), style), classes="note")
        self.notes.append(message)
        if self._pending is not None:
            self.mount(widget, before=self._pending)
        else:
            self.mount(widget)
        self._follow()

    def set_pending(self, what: str | None) -> None:
        if what is None:
            if self._pending is not None:
                self._pending.remove()
                self._pending = None
            return
        label = Styled("… running ", f"bold italic {ACCENT}")
        label.append(printable(what.splitlines()[0][:60]) if what.strip() else "", "italic")
        if self._pending is None:
            self._pending = Static(label.content(), classes="pending")
            self.mount(self._pending)
        else:
            self._pending.update(label.content())
        self._follow()

    def mark_viewed(self, index: int | None) -> None:
        """Highlight the entry in view (None: the latest, no highlight)."""
        if index == self._viewed:
            return
        shown = None
        for entry in self.entries:
            entry.set_class(entry.index == index, "-viewed")
            if entry.index == index:
                shown = entry
        self._viewed = index
        if shown is not None:
            self.anchor(False)
            self.scroll_to_widget(shown, animate=False)
        else:
            self._follow()
