"""Tensors: a table of every named tensor, array and parameter, with what changed marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import DataTable

from tensorscope.tui.format import fmt_shape, fmt_tuple, view_colours
from tensorscope.tui.messages import TensorSelected
from tensorscope.tui.panes.base import Pane, View

if TYPE_CHECKING:
    from tensorscope.snapshot import ObjectInfo, Snapshot

COLUMNS: tuple[tuple[str, str], ...] = (
    ("mark", " "), ("name", "name"), ("shape", "shape"), ("stride", "stride"), ("offset", "off"),
    ("dtype", "dtype"), ("storage", "stor"), ("version", "ver"), ("requires_grad", "grad"),
    ("is_leaf", "leaf"), ("grad_fn", "grad_fn"),
)


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


def row_cells(info: ObjectInfo, mark: str | None, colour: str) -> tuple[Text | str, ...]:
    mark_cell = Text("+" if mark == "new" else "●" if mark else " ", style="bold yellow")
    name = Text(info.name, style=colour)
    if info.kind == "ndarray":
        return (mark_cell, name, fmt_shape(info.shape), "-", "-", info.dtype, info.storage, "-", "-", "-",
                Text("numpy", style="dim"))
    version = Text(str(info.version), style="bold yellow" if mark and "version" in mark else "")
    return (mark_cell, name, fmt_shape(info.shape), fmt_tuple(info.stride), str(info.storage_offset),
            info.dtype, info.storage, version, "✓" if info.requires_grad else "",
            "✓" if info.is_leaf else "", info.grad_fn or "")


class TensorsTable(DataTable[Text | str], Pane):
    """Every named object; moving the cursor selects a tensor in every pane."""

    PANE_TITLE = "Tensors"
    HELP = """\
## Tensors

Every named tensor, numpy array and module parameter after the step in view: shape, stride,
storage offset, dtype, **storage** (same label = same memory), **version** (bumped by every in-place
op on that memory), requires_grad, is_leaf and grad_fn.

A mark in the first column shows what the last step changed: `+` a new name, `●` a version that
moved, memory that became shared, a grad_fn or grad that changed (the Transcript says which).

Move with up/down (or click): the row you are on is **selected** in every other pane: the storage
map puts its storage first, the graph shows what is behind it, the inspector shows its values.
"""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane", cursor_type="row", zebra_stripes=True)
        self.border_title = self.PANE_TITLE
        self._rows: dict[str, tuple[object, ...]] = {}
        self._order: list[str] = []
        self._snapshot_id: int | None = None
        self._selected: str | None = None

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    def show(self, view: View) -> None:
        snapshot = view.snapshot
        if snapshot is None:
            if self._order:
                self.clear()
                self._rows, self._order = {}, []
            self._snapshot_id = None
            return
        if id(snapshot) != self._snapshot_id:
            self._snapshot_id = id(snapshot)
            self._fill(snapshot, view.previous)
        if view.selected != self._selected or self._cursor_name() != view.selected:
            self._selected = view.selected
            self._move_to(view.selected)
        self.show_cursor = view.selected in self._rows or self.has_focus
        self.border_subtitle = f"{len(snapshot.objects)} named"

    def _fill(self, snapshot: Snapshot, previous: Snapshot | None) -> None:
        marks = changes_of(previous, snapshot)
        colours = view_colours(snapshot)
        rows = {name: row_cells(info, marks.get(name), colours.get(name, ""))
                for name, info in snapshot.objects.items()}
        order = list(rows)
        if order == self._order:
            for name, cells in rows.items():
                old = self._rows[name]
                for (key, _), cell, before in zip(COLUMNS, cells, old):
                    if cell != before:
                        self.update_cell(name, key, cell)
        else:
            self.clear()
            for name, cells in rows.items():
                self.add_row(*cells, key=name)
        self._rows, self._order = rows, order
        self._measure_now()
        self._selected = None  # the cursor may have moved: place it again

    def _measure_now(self) -> None:
        """Size the columns now rather than on idle (what DataTable._on_idle does), so a screen
        captured right after a step shows whole cells."""
        if self._updated_cells:
            updated = self._updated_cells.copy()
            self._updated_cells.clear()
            self._update_column_widths(updated)
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            new_rows = self._new_rows.copy()
            self._new_rows.clear()
            self._update_dimensions(new_rows)

    def _cursor_name(self) -> str | None:
        if not self._order or not 0 <= self.cursor_row < len(self._order):
            return None
        return self._order[self.cursor_row]

    def _move_to(self, name: str | None) -> None:
        if name is None or name not in self._rows:
            return
        index = self._order.index(name)
        if index != self.cursor_row:
            self.move_cursor(row=index, animate=False)

    def on_focus(self) -> None:
        self.show_cursor = True
        name = self._cursor_name()
        if name is not None and name != self._selected:
            self._selected = name
            self.post_message(TensorSelected(name))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key is None or event.row_key.value is None or not self.has_focus:
            return  # the app moved the cursor, not the user
        name = str(event.row_key.value)
        if name == self._cursor_name() and name != self._selected:
            self._selected = name
            self.post_message(TensorSelected(name))
