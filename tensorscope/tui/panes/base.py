"""What every pane shares: a HELP text, a title, and `show()` that re-renders only on change."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from tensorscope.snapshot import Snapshot


class View:
    """What the panes are shown: every snapshot so far, which one is in view, the selected name."""

    __slots__ = ("index", "selected", "snapshots")

    def __init__(self, snapshots: Sequence[Snapshot] = (), index: int = -1,
                 selected: str | None = None) -> None:
        self.snapshots = tuple(snapshots)
        self.index = index if index >= 0 else len(self.snapshots) - 1
        self.selected = selected

    @property
    def snapshot(self) -> Snapshot | None:
        return self.snapshots[self.index] if 0 <= self.index < len(self.snapshots) else None

    @property
    def previous(self) -> Snapshot | None:
        return self.snapshots[self.index - 1] if 1 <= self.index < len(self.snapshots) else None

    @property
    def history(self) -> tuple[Snapshot, ...]:
        """The snapshots up to and including the one in view."""
        return self.snapshots[: self.index + 1]


class Pane:
    """Mixin for panes: `HELP` (markdown shown on F1) and `PANE_TITLE` (the border title)."""

    HELP: ClassVar[str] = ""
    PANE_TITLE: ClassVar[str] = ""


class TextPane(VerticalScroll, Pane, can_focus=True):
    """A scrolling pane whose body is one Static, re-rendered when its inputs change."""

    DEFAULT_CSS = """
    TextPane { scrollbar-size-vertical: 1; }
    TextPane > Static { width: 100%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self._body = Static("", classes="pane-body")
        self._key: tuple[object, ...] | None = None
        self._view: View | None = None
        self.rendered: Content = Content("")
        self.border_title = self.PANE_TITLE

    def compose(self) -> ComposeResult:
        yield self._body

    def render_key(self, view: View) -> tuple[object, ...]:
        """What the pane's rendering depends on; rendering is skipped while it stays the same."""
        return (id(view.snapshot), view.selected)

    def show(self, view: View) -> None:
        self._view = view
        key = self.render_key(view)
        if key == self._key:
            return
        self._key = key
        self.rendered = self.render_view(view)
        self._body.update(self.rendered)

    @property
    def plain(self) -> str:
        """What the pane shows, as plain text (for tests and tools)."""
        return self.rendered.plain

    def invalidate(self) -> None:
        self._key = None

    def on_resize(self) -> None:
        if self._view is not None:
            self.show(self._view)

    @property
    def text_width(self) -> int:
        """Columns available to the body (at least 20, so a pane never renders to nothing)."""
        return max(self.scrollable_content_region.width, 20)

    def render_view(self, view: View) -> Content:
        raise NotImplementedError
