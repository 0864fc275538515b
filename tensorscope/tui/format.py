"""Small text helpers shared by the panes: bytes, shapes, values and the colours of views."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from tensorscope.printable import printable

if TYPE_CHECKING:
    from tensorscope.snapshot import ObjectInfo, Snapshot


#: Colours given to the objects living in one storage, in order (base first, then views by name).
VIEW_COLOURS: tuple[str, ...] = (
    "#4fc3f7", "#ffb74d", "#81c784", "#f06292", "#ba68c8", "#fff176", "#4db6ac", "#e57373",
    "#9fa8da", "#a1887f",
)


def fmt_bytes(count: int) -> str:
    """`812 B`, `3.9 KiB`, `382.0 MiB`."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{count} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} B"  # pragma: no cover - the loop always returns


def fmt_delta(count: int) -> str:
    if count == 0:
        return "±0 B"
    return ("+" if count > 0 else "-") + fmt_bytes(abs(count))


def fmt_shape(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def fmt_tuple(values: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(n) for n in values) + ("," if len(values) == 1 else "") + ")"


def fmt_number(value: Any) -> str:
    """A compact cell for one element: ints as they are, floats with 4 significant digits."""
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, float):
        if value == int(value) and abs(value) < 1e6:
            return f"{int(value)}."
        return f"{value:.4g}"
    return printable(str(value))


def order_viewers(snapshot: Snapshot, label: str) -> list[str]:
    """The objects in one storage: those that are not views first (the owner), then views."""
    storage = snapshot.storages.get(label)
    if storage is None:
        return []
    objects = snapshot.objects
    return sorted(storage.viewers, key=lambda name: (objects[name].is_view, name))


def view_colours(snapshot: Snapshot) -> dict[str, str]:
    """A colour per named object, distinct within each storage."""
    colours: dict[str, str] = {}
    for label in snapshot.storages:
        for index, name in enumerate(order_viewers(snapshot, label)):
            colours[name] = VIEW_COLOURS[index % len(VIEW_COLOURS)]
    return colours


def flat_values(values: Any) -> list[Any]:
    """Nested lists in row-major order as one list (a 0-d value becomes a list of one)."""
    if not isinstance(values, list):
        return [values]
    out: list[Any] = []
    stack = [iter(values)]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
        elif isinstance(item, list):
            stack.append(iter(item))
        else:
            out.append(item)
    return out


_END = object()


def storage_values(snapshot: Snapshot, label: str) -> dict[int, Any]:
    """What each storage element holds, as far as the named tensors living there show it."""
    found: dict[int, Any] = {}
    storage = snapshot.storages.get(label)
    if storage is None:
        return found
    for name in order_viewers(snapshot, label):
        info = snapshot.objects[name]
        if info.values is None:
            continue
        flat = flat_values(info.values)
        if info.kind == "ndarray" or not info.stride and info.shape:
            if len(flat) == storage.numel:  # a whole buffer seen as an array
                found.update(enumerate(flat))
            continue
        for position, value in zip(positions(info), flat):
            found.setdefault(position, value)
        if len(found) >= storage.numel:
            break
    return found


def positions(info: ObjectInfo) -> list[int]:
    """The storage element behind each logical element of a tensor, in row-major order."""
    if not info.shape:
        return [info.storage_offset]
    ranges = [range(n) for n in info.shape]
    return [info.storage_offset + sum(i * s for i, s in zip(index, info.stride))
            for index in itertools.product(*ranges)]


def format_values(values: Any, limit_lines: int = 12) -> list[str]:
    """Nested lists as aligned rows of numbers (matrices as matrices), cut after `limit_lines`."""
    if not isinstance(values, list):
        return [fmt_number(values)]
    depth = 0
    probe: Any = values
    while isinstance(probe, list) and probe:
        depth += 1
        probe = probe[0]
    cells = [fmt_number(v) for v in flat_values(values)]
    width = max((len(c) for c in cells), default=1)
    rows: list[str] = []

    def walk(item: Any, level: int, indent: str) -> None:
        if len(rows) > limit_lines:
            return
        if level == depth - 1 or not item or not isinstance(item[0], list):
            rows.append(indent + "[" + " ".join(fmt_number(v).rjust(width) for v in item) + "]")
            return
        for sub in item:
            walk(sub, level + 1, indent + " ")

    walk(values, 0, "")
    if len(rows) > limit_lines:
        rows = rows[:limit_lines] + ["…"]
    return rows
