"""The storage map: each storage as a strip of its elements, each view's elements in its colour.

One block per storage: a header (label, dtype, elements, bytes, the version counter its tensors
share), then the strip: a row of element indices, a row of values, and one row per object living
in the storage with the elements it covers marked in its colour. Strips wrap to the pane's width;
storages too large to draw element by element are summarised (each cell stands for a range).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from tensorscope.tui.format import (
    MUTED,
    Styled,
    fmt_bytes,
    fmt_number,
    fmt_shape,
    fmt_tuple,
    order_viewers,
    storage_values,
    view_colours,
)
from tensorscope.tui.panes.base import TextPane, View

if TYPE_CHECKING:
    from tensorscope.snapshot import ObjectInfo, Snapshot

MAX_ROWS_PER_STORAGE = 4  # wrapped strip lines before a storage is summarised instead
MAX_CELL = 6
MAX_STORAGES = 16  # drawn at once; the selected tensor's storage is always among them


def covered_set(info: ObjectInfo, storage_numel: int) -> set[int] | None:
    """The storage elements an object covers, when known element by element."""
    if info.elements is not None:
        return set(info.elements)
    if info.kind == "ndarray" and info.numel == storage_numel:
        return set(range(storage_numel))  # an array over its whole buffer
    return None


def label_order(label: str) -> tuple[bool, int]:
    """Named memory (S…) before memory only modules or the graph hold (G…); S2 before S10."""
    digits = label.lstrip("SG")
    return (not label.startswith("S"), int(digits) if digits.isdigit() else 0)


def _versions(snapshot: Snapshot, names: list[str]) -> str:
    versions = sorted({snapshot.objects[n].version for n in names if snapshot.objects[n].kind == "tensor"})
    if not versions:
        return ""
    if len(versions) == 1:
        return f"version {versions[0]}"
    return "versions " + "/".join(str(v) for v in versions)


def render_storage(snapshot: Snapshot, label: str, selected: str | None, width: int,
                   colours: dict[str, str]) -> Styled:
    storage = snapshot.storages[label]
    names = order_viewers(snapshot, label)
    text = Styled()
    shared = "shared by " + ", ".join(names) if len(names) > 1 else "only " + names[0] if names else ""
    text.append(f"{label}", "bold")
    text.append(f" {storage.dtype} · {storage.numel} el · {fmt_bytes(storage.nbytes)}\n", MUTED)
    version = _versions(snapshot, names)
    if version:
        text.append("  ")
        text.append(f" {version} ", "reverse")
    text.append(f" {shared}\n", f"italic {MUTED}")
    label_width = min(max((len(n) for n in names), default=1), 12) + 1
    numel = max(storage.numel, 0)
    values = storage_values(snapshot, label)
    cell = max([len(fmt_number(v)) for v in values.values()] + [len(str(max(numel - 1, 0)))]) + 1
    cell = min(max(cell, 3), MAX_CELL + 1)
    per_line = max((width - label_width - 2) // cell, 1)
    lines_needed = -(-numel // per_line) if numel else 1
    sets = {name: covered_set(snapshot.objects[name], numel) for name in names}
    if numel and lines_needed <= MAX_ROWS_PER_STORAGE and all(s is not None for s in sets.values()):
        for start in range(0, numel, per_line):
            stop = min(start + per_line, numel)
            text.append(" " * (label_width + 2))
            for i in range(start, stop):
                text.append(str(i).rjust(cell - 1) + " ", MUTED)
            text.append("\n")
            if values:
                text.append(" " * (label_width + 2))
                for i in range(start, stop):
                    shown = fmt_number(values[i]) if i in values else "?"
                    text.append(shown[: cell - 1].rjust(cell - 1) + " ")
                text.append("\n")
            for name in names:
                _viewer_row(text, name, selected, label_width, colours[name])
                covered = sets[name] or set()
                for i in range(start, stop):
                    if i in covered:
                        text.append("█" * (cell - 1), colours[name])
                        text.append(" ")
                    else:
                        text.append("·".rjust(cell - 1) + " ", MUTED)
                text.append("\n")
    else:
        buckets = max(min(width - label_width - 2, 64), 8)
        span = max(-(-numel // buckets), 1)
        buckets = max(-(-numel // span), 1)
        text.append(" " * (label_width + 2))
        text.append(f"elements 0…{numel - 1}, " + ("one cell per element\n" if span == 1 else
                                                    f"one cell ≈ {span} elements\n"), MUTED)
        for name in names:
            info = snapshot.objects[name]
            _viewer_row(text, name, selected, label_width, colours[name])
            first, last = info.covered
            covered = sets[name]
            for b in range(buckets):
                lo, hi = b * span, min((b + 1) * span, numel) - 1
                if covered is not None:
                    hit = any(i in covered for i in range(lo, hi + 1))
                else:
                    hit = first <= hi and last >= lo and last >= first
                text.append("█" if hit else "·", colours[name] if hit else MUTED)
            text.append("\n")
    for name in names:
        info = snapshot.objects[name]
        style = f"bold {colours[name]}" if name == selected else colours[name]
        text.append("  ■ ", colours[name])
        text.append(name, style)
        geometry = _geometry(info)
        if len(name) + len(geometry) + 5 > width:
            geometry = _geometry(info, short=True)
        text.append(" " + geometry, MUTED)
        text.append("\n")
    return text


def _viewer_row(text: Styled, name: str, selected: str | None, width: int, colour: str) -> None:
    marker = "▶ " if name == selected else "  "
    shown = name if len(name) < width else name[: width - 2] + "…"
    style = f"bold reverse {colour}" if name == selected else colour
    text.append(marker, "bold")
    text.append(shown, style)
    text.append(" " * (width - len(shown)))


def _geometry(info: ObjectInfo, short: bool = False) -> str:
    if info.kind == "ndarray":
        return f"{fmt_shape(info.shape)} numpy array"
    if short:
        return (f"{fmt_shape(info.shape)} {fmt_tuple(info.stride)} +{info.storage_offset} "
                + ("view" if info.is_view else "owner"))
    parts = [fmt_shape(info.shape), f"stride {fmt_tuple(info.stride)}", f"offset {info.storage_offset}",
             "view" if info.is_view else "owner"]
    if 0 in info.stride and info.numel > 1:
        parts.append("(stride 0 repeats)")
    return " ".join(parts)


def render_storage_map(snapshot: Snapshot | None, selected: str | None, width: int) -> Content:
    if snapshot is None or not snapshot.storages:
        return Content.styled("No tensors yet. Try:  x = torch.arange(6.).view(2, 3);  v = x.t()", MUTED)
    colours = view_colours(snapshot)
    mine = snapshot.objects[selected].storage if selected in snapshot.objects else None
    labels = sorted(snapshot.storages, key=lambda label: (label != mine, label_order(label)))
    out = Styled()
    for index, label in enumerate(labels[:MAX_STORAGES]):
        if index:
            out.append("\n")
        out.append_text(render_storage(snapshot, label, selected, width, colours))
    if len(labels) > MAX_STORAGES:
        hidden = len(labels) - MAX_STORAGES
        out.append(f"\n… {hidden} more storage{'s' if hidden > 1 else ''}: select a tensor to bring its "
                   "storage to the top", f"italic {MUTED}")
    return out.rstrip().content()


class StorageMap(TextPane):
    """Storages as strips of elements; the selected tensor's storage comes first."""

    PANE_TITLE = "Storage map"
    HELP = """\
## Storage map

Every block is one **storage**: the flat memory tensors live in. The first row numbers its
elements, the second shows what they hold, and every tensor (or numpy array) living in it gets a
row with the elements it covers marked in **its colour**.

- `x.t()`, `x[:, 1]`, `x.view(-1)` and `x.expand(...)` are rows over **the same strip**: the same
  memory seen differently (stride and offset are listed under the strip).
- `x.clone()` is **a new strip**: new memory.
- The reversed **version** on the header is the counter the tensors of the storage share: an
  in-place op through any of them bumps it, and a saved tensor that recorded an older version makes
  backward fail.
- Storages too large to draw element by element are summarised: one cell stands for a range.
"""

    def render_key(self, view: View) -> tuple[object, ...]:
        return (id(view.snapshot), view.selected, self.text_width)

    def render_view(self, view: View) -> Content:
        return render_storage_map(view.snapshot, view.selected, self.text_width)
