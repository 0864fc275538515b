"""A pane drawn line by line (Textual's Line API), for content that can be huge.

A 10,000-node graph is 10,000+ lines: rendering them all into one widget on every step would cost
far more than a frame. Here a pane describes its content as `Lines` (how many, how wide, and line
`i` on demand); only the lines on screen are ever built, and each is cached until the content, the
width or the theme changes. Scrolling, in both directions, is the ScrollView's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tensorscope.tui.panes.base import Pane, View

if TYPE_CHECKING:
    from textual.binding import BindingType


class Lines(Protocol):
    """Content as lines built on demand."""

    def __len__(self) -> int: ...

    @property
    def width(self) -> int:
        """Cells of the widest line (an upper bound is fine: the rest is blank)."""
        ...

    def line(self, index: int) -> Content: ...


class TextLines:
    """Lines over one finished Content (a short message)."""

    def __init__(self, content: Content) -> None:
        self._lines = content.split("\n")
        self._width = max((line.cell_length for line in self._lines), default=0)

    def __len__(self) -> int:
        return len(self._lines)

    @property
    def width(self) -> int:
        return self._width

    def line(self, index: int) -> Content:
        return self._lines[index]


class LinesPane(ScrollView, Pane, can_focus=True):
    """A scrolling pane whose lines are built only when they come into view."""

    DEFAULT_CSS = """
    LinesPane { scrollbar-size-vertical: 1; scrollbar-size-horizontal: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        ("up", "scroll_up", "Up"), ("down", "scroll_down", "Down"),
        ("left", "scroll_left", "Left"), ("right", "scroll_right", "Right"),
        ("pageup", "page_up", "Page up"), ("pagedown", "page_down", "Page down"),
        ("home", "scroll_home", "Top"), ("end", "scroll_end", "Bottom"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.border_title = self.PANE_TITLE
        self.lines: Lines = TextLines(Content(""))
        self._key: tuple[object, ...] | None = None
        self._view: View | None = None
        self._cache: dict[int, Strip] = {}

    def render_key(self, view: View) -> tuple[object, ...]:
        """What the lines depend on; they are rebuilt only when it changes."""
        return (id(view.snapshot), view.selected)

    def build_lines(self, view: View) -> Lines:
        raise NotImplementedError

    def show(self, view: View) -> None:
        self._view = view
        key = self.render_key(view)
        if key == self._key:
            return
        self._key = key
        self.lines = self.build_lines(view)
        self._cache.clear()
        self.virtual_size = Size(self.lines.width, len(self.lines))
        self.refresh()

    def invalidate(self) -> None:
        self._key = None

    def notify_style_update(self) -> None:
        """The theme changed: build the visible lines again in its colours."""
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if index >= len(self.lines):
            return Strip.blank(width, style)
        strip = self._cache.get(index)
        if strip is None:
            content = self.lines.line(index)
            strip = Strip(content.render_segments(self.visual_style), content.cell_length)
            self._cache[index] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, style).apply_offsets(scroll_x, index)

    @property
    def plain(self) -> str:
        """Every line as plain text (for tests and tools: this builds them all)."""
        return "\n".join(self.lines.line(index).plain for index in range(len(self.lines)))
