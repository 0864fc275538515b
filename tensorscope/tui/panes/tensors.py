"""Tensors: a table of every named tensor, array and parameter, with what changed marked.

The table is drawn line by line (Textual's Line API): a step with 1,000 names costs a list of rows,
and only the rows on screen become text. Its columns follow the pane's width by priority, as
htop's and k9s's do: name, version, storage, device and grad_fn stay; offset, stride and dtype go
first, then leaf, requires_grad and shape; a long name is shortened in the middle. Column widths
follow what the rows hold now, so after a reset the table is as narrow as its content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tensorscope.tui.format import (
    MUTED,
    WARNING,
    Styled,
    fmt_shape,
    fmt_tuple,
    shorten_middle,
    view_colours,
)
from tensorscope.tui.messages import TensorSelected
from tensorscope.tui.panes.base import Pane, View

if TYPE_CHECKING:
    from tensorscope.snapshot import ObjectInfo, Snapshot


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    drop: int  # 0: always kept; higher numbers go first when the pane is narrow
    shortest: int = 0  # how far a kept column may be shortened (in the middle)


COLUMNS: tuple[Column, ...] = (
    Column("mark", " ", 0),
    Column("name", "name", 0, shortest=6),
    Column("shape", "shape", 4),
    Column("version", "ver", 0),
    Column("storage", "stor", 0),
    Column("device", "device", 0),
    Column("requires_grad", "req_grad", 5),
    Column("is_leaf", "leaf", 6),
    Column("grad_fn", "grad_fn", 0, shortest=8),
    Column("dtype", "dtype", 7),
    Column("stride", "stride", 8),
    Column("offset", "off", 9),
)
GAP = 2  # cells between columns
NAME_WIDTH = 24  # names longer than this are shortened in the middle unless the pane has room
MARK_STYLE = f"bold {WARNING}"
HEADER_STYLE = f"bold {MUTED}"
CURSOR_STYLE = "$block-cursor-foreground on $block-cursor-background"
ZEBRA_STYLE = "on $boost"

Cells = dict[str, tuple[str, str]]  # column key -> (text, style)


def changes_of(previous: Snapshot | None, snapshot: Snapshot) -> dict[str, str]:
    """What moved for each name in the last step: new, version, shared, grad_fn."""
    marks: dict[str, str] = {}
    before = previous.objects if previous is not None else {}
    for name, info in snapshot.objects.items():
        prev = before.get(name)
        if prev is None:
            marks[name] = "new"
            continue
        reasons = []
        if prev.storage != info.storage:
            reasons.append("new storage")
        elif prev.version != info.version:
            reasons.append(f"version {prev.version}→{info.version}")
        sharing_now = len(snapshot.storages[info.storage].viewers)
        sharing_then = len(previous.storages[prev.storage].viewers) if previous is not None else 0
        if sharing_now > 1 and (prev.storage != info.storage or sharing_now > sharing_then):
            reasons.append("now shared")
        if prev.grad_fn != info.grad_fn:
            reasons.append("grad_fn changed")
        if prev.grad != info.grad:
            reasons.append("grad changed")
        if reasons:
            marks[name] = ", ".join(reasons)
    return marks


def row_cells(info: ObjectInfo, mark: str | None, colour: str) -> Cells:
    cells: Cells = {
        "mark": ("+" if mark == "new" else "●" if mark else " ", MARK_STYLE),
        "name": (info.name, colour),
        "shape": (fmt_shape(info.shape), ""),
        "storage": (info.storage, ""),
        "device": (info.device, "" if info.device == "cpu" else "bold"),
        "dtype": (info.dtype, ""),
    }
    if info.kind == "ndarray":
        cells.update(stride=("-", MUTED), offset=("-", MUTED), version=("-", MUTED), requires_grad=("-", MUTED),
                     is_leaf=("-", MUTED), grad_fn=("numpy", MUTED))
        return cells
    cells.update(
        stride=(fmt_tuple(info.stride), ""), offset=(str(info.storage_offset), ""),
        version=(str(info.version), MARK_STYLE if mark and "version" in mark else ""),
        requires_grad=("✓" if info.requires_grad else "", ""), is_leaf=("✓" if info.is_leaf else "", ""),
        grad_fn=(info.grad_fn or "", ""))
    return cells


def layout(rows: list[Cells], available: int, devices: bool) -> list[tuple[Column, int]]:
    """The columns that fit in `available` cells, with their widths: the lowest-priority columns
    are dropped until the rest fit, then names and grad_fns are shortened in the middle."""
    natural = {column.key: max([len(column.label)] + [len(row[column.key][0]) for row in rows])
               for column in COLUMNS}
    wanted = [column for column in COLUMNS if devices or column.key != "device"]
    widths = dict(natural)
    widths["name"] = min(widths["name"], NAME_WIDTH)

    def total(columns: list[Column]) -> int:
        return sum(widths[c.key] for c in columns) + GAP * (len(columns) - 1)

    while total(wanted) > available and any(c.drop for c in wanted):
        wanted.remove(max(wanted, key=lambda c: c.drop))
    for key in ("name", "grad_fn"):
        excess = total(wanted) - available
        if excess > 0:
            shortest = next(c.shortest for c in COLUMNS if c.key == key)
            widths[key] = max(widths[key] - excess, min(shortest, natural[key]))
    spare = available - total(wanted)
    if spare > 0 and natural["name"] > widths["name"]:
        widths["name"] += min(spare, natural["name"] - widths["name"])
    return [(column, widths[column.key]) for column in wanted]


class TensorsTable(ScrollView, Pane, can_focus=True):
    """Every named object; moving the cursor selects a tensor in every pane."""

    PANE_TITLE = "Tensors"
    HELP = """\
## Tensors

Every named tensor, numpy array and module parameter after the step in view: **ver** (the
version counter, bumped by every in-place op on that memory), **stor** (the storage: same label =
same memory), **device** (once a tensor lives on the simulated `cuda` device), **grad_fn**, then
shape, **req_grad** (`requires_grad`), leaf (`is_leaf`), dtype, stride and storage offset.

When the pane is narrow the last columns make room first (offset, stride, dtype, leaf,
req_grad, shape); long names are shortened in the middle (`bn.num_b…tracked`). The Inspector shows
everything about the selected tensor.

A mark in the first column shows what the last step changed: `+` a new name, `●` a version that
moved, memory that became shared, a grad_fn or grad that changed (the Transcript says which).

Move with up/down, page up/down, home/end (or click): the row you are on is **selected** in every
other pane: the storage map puts its storage first, the graph shows what is behind it, the
inspector shows its values.
"""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "cursor_to(0)", "First", show=False),
        Binding("end", "cursor_to(-1)", "Last", show=False),
    ]
    DEFAULT_CSS = "TensorsTable { scrollbar-size-vertical: 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.border_title = self.PANE_TITLE
        self.names: list[str] = []
        self.rows: list[Cells] = []
        self.cursor_row = 0
        self.show_cursor = False
        self._devices = False
        self._snapshot_id: int | None = None
        self._selected: str | None = None
        self._columns: list[tuple[Column, int]] = []
        self._columns_for: tuple[int, int] | None = None  # (rows identity, width) they were laid out for
        self._cache: dict[int, Strip] = {}

    # ------------------------------------------------------------------ reading
    @property
    def row_count(self) -> int:
        return len(self.rows)

    def get_row_at(self, index: int) -> list[str]:
        """Row `index` as the columns shown now show it (long names shortened)."""
        return [shorten_middle(self.rows[index][column.key][0], width) for column, width in self.columns()]

    @property
    def column_labels(self) -> list[str]:
        return [column.label for column, _ in self.columns()]

    @property
    def plain(self) -> str:
        return "\n".join(self.line(index).plain for index in range(len(self.rows) + 1))

    # ------------------------------------------------------------------ showing a view
    def show(self, view: View) -> None:
        snapshot = view.snapshot
        if snapshot is None:
            if self.rows or self._snapshot_id is not None:
                self._fill([], [])
            self._snapshot_id = None
            self.border_subtitle = ""
            return
        if id(snapshot) != self._snapshot_id:
            self._snapshot_id = id(snapshot)
            marks = changes_of(view.previous, snapshot)
            colours = view_colours(snapshot)
            names = list(snapshot.objects)
            self._devices = any(info.device != "cpu" for info in snapshot.objects.values())
            self._fill(names, [row_cells(snapshot.objects[name], marks.get(name), colours.get(name, ""))
                               for name in names])
            self._selected = None  # the rows moved: place the cursor again
        if view.selected != self._selected or self.cursor_name() != view.selected:
            self._selected = view.selected
            self._move_to(view.selected)
        self._set_show_cursor(view.selected in self.names or self.has_focus)
        count = len(snapshot.objects)
        self.border_subtitle = f"{count} named" if count else ""

    def _fill(self, names: list[str], rows: list[Cells]) -> None:
        self.names, self.rows = names, rows
        self._columns_for = None
        self.cursor_row = min(self.cursor_row, max(len(rows) - 1, 0))
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(rows) + 1)
        self.refresh()

    def columns(self) -> list[tuple[Column, int]]:
        width = self.scrollable_content_region.width or self.size.width or 80
        key = (id(self.rows), width)
        if self._columns_for != key:
            self._columns = layout(self.rows, max(width - 2, 20), self._devices)  # a cell of margin
            self._columns_for = key
            self._cache.clear()
        return self._columns

    def on_resize(self) -> None:
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(self.rows) + 1)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    # ------------------------------------------------------------------ drawing
    def line(self, index: int) -> Content:
        """Line 0 is the header, line i the row i - 1."""
        text = Styled(" ")
        for number, (column, width) in enumerate(self.columns()):
            if number:
                text.append(" " * GAP)
            if index == 0:
                text.append(column.label.ljust(width), HEADER_STYLE)
            else:
                cell, style = self.rows[index - 1][column.key]
                text.append(shorten_middle(cell, width).ljust(width), style)
        content = text.content()
        if index == 0:
            return content
        row = index - 1
        if self.show_cursor and row == self.cursor_row:
            return content.stylize(CURSOR_STYLE)  # over the cells' own colours, as DataTable's cursor
        if row % 2:
            return content.stylize_before(ZEBRA_STYLE)
        return content

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        style = self.rich_style
        index = 0 if y == 0 else self.scroll_offset.y + y
        if index > len(self.rows):
            return Strip.blank(width, style)
        strip = self._cache.get(index)
        if strip is None:
            content = self.line(index)
            if index and (self.show_cursor and index - 1 == self.cursor_row or (index - 1) % 2):
                content = content.extend_style(max(width - content.cell_length, 0))
            strip = Strip(content.render_segments(self.visual_style), content.cell_length)
            self._cache[index] = strip
        return strip.crop_extend(0, width, style)

    # ------------------------------------------------------------------ the cursor
    def cursor_name(self) -> str | None:
        if not self.names or not 0 <= self.cursor_row < len(self.names):
            return None
        return self.names[self.cursor_row]

    def _set_show_cursor(self, shown: bool) -> None:
        if shown != self.show_cursor:
            self.show_cursor = shown
            self._redraw_row(self.cursor_row)

    def _redraw_row(self, row: int) -> None:
        self._cache.pop(row + 1, None)
        self.refresh()

    def _move_to(self, name: str | None) -> None:
        if name is None or name not in self.names:
            return
        self._set_cursor(self.names.index(name))

    def _set_cursor(self, row: int) -> None:
        row = max(0, min(row, len(self.rows) - 1))
        if row != self.cursor_row:
            self._redraw_row(self.cursor_row)
            self.cursor_row = row
            self._redraw_row(row)
        visible = max(self.scrollable_content_region.height - 1, 1)
        top = self.scroll_offset.y
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + visible:
            self.scroll_to(y=row - visible + 1, animate=False, immediate=True)

    def _choose(self, row: int) -> None:
        """The user moved the cursor: select its row in every pane."""
        if not self.rows:
            return
        self._set_cursor(row)
        name = self.cursor_name()
        if name is not None and name != self._selected:
            self._selected = name
            self.post_message(TensorSelected(name))

    def action_cursor(self, delta: int) -> None:
        self._choose(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self._choose(self.cursor_row + direction * max(self.scrollable_content_region.height - 2, 1))

    def action_cursor_to(self, row: int) -> None:
        self._choose(row if row >= 0 else len(self.rows) - 1)

    def on_focus(self) -> None:
        self._set_show_cursor(bool(self.rows))
        self._choose(self.cursor_row)

    def on_blur(self) -> None:
        self._set_show_cursor(self._selected in self.names)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        self.focus()
        self._choose(self.scroll_offset.y + offset.y - 1)
