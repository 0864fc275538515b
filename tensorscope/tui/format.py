"""Small text helpers shared by the panes: styled text, bytes, shapes, values and the colours
of views.

Every style is a theme variable (`$text-error`, `$text-warning`, `$view-0` …), never a fixed
colour: Textual resolves them when it paints, so each built-in theme, light ones included, gets
colours that read on its own background, and a theme switch repaints in the new ones.
"""

from __future__ import annotations

import colorsys
import itertools
from typing import TYPE_CHECKING, Any

from textual.content import Content

from tensorscope.printable import printable

if TYPE_CHECKING:
    from tensorscope.snapshot import ObjectInfo, Snapshot

# ------------------------------------------------------------------ the theme's roles
ERROR = "$text-error"
WARNING = "$text-warning"
SUCCESS = "$text-success"
ACCENT = "$text-accent"
PRIMARY = "$text-primary"
MUTED = "$text-muted"
NOTE = f"italic {WARNING}"  # what the explorer itself says in the transcript
HINT = f"italic {PRIMARY}"  # which key does what next
STALE = f"bold {ERROR} on $error-muted"  # a saved tensor an in-place op changed since

#: Hues of the colours views of one storage get, in order (base first, then views by name).
VIEW_HUES: tuple[int, ...] = (200, 35, 125, 330, 270, 55, 170, 0, 230, 20)
VIEW_COLOURS: tuple[str, ...] = tuple(f"$view-{index}" for index in range(len(VIEW_HUES)))


def view_colour_variables(dark: bool) -> dict[str, str]:
    """`view-0` … as CSS variables: distinct hues, light on a dark theme and dark on a light one,
    so each reads on the theme's background."""
    lightness, saturation = (0.70, 0.75) if dark else (0.36, 0.80)
    variables = {}
    for index, hue in enumerate(VIEW_HUES):
        red, green, blue = colorsys.hls_to_rgb(hue / 360, lightness, saturation)
        variables[f"view-{index}"] = f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"
    return variables


class Styled:
    """Text built piece by piece, each piece with a style of theme variables; `content()` is what
    a widget shows, `plain` what tests and tools read."""

    __slots__ = ("parts",)

    def __init__(self, text: str = "", style: str = "") -> None:
        self.parts: list[tuple[str, str] | Content] = [(text, style)] if text else []

    def append(self, text: str, style: str = "") -> Styled:
        if text:
            self.parts.append((text, style))
        return self

    def append_text(self, other: Styled | Content) -> Styled:
        if isinstance(other, Styled):
            self.parts.extend(other.parts)
        else:
            self.parts.append(other)
        return self

    def rstrip(self) -> Styled:
        """Drop trailing white space (a pane's body ends with its last line, not a blank one)."""
        while self.parts:
            last = self.parts[-1]
            text = last.plain if isinstance(last, Content) else last[0]
            stripped = text.rstrip()
            if stripped == text:
                break
            if not stripped:
                self.parts.pop()
                continue
            self.parts[-1] = last.rstrip() if isinstance(last, Content) else (stripped, last[1])
            break
        return self

    @property
    def plain(self) -> str:
        return "".join(part.plain if isinstance(part, Content) else part[0] for part in self.parts)

    def content(self) -> Content:
        return Content.assemble(*self.parts)

    def __str__(self) -> str:
        return self.plain


def highlight_code(code: str) -> Content:
    """Python in the theme's syntax colours (Textual's own highlighter)."""
    from textual.highlight import highlight

    return highlight(code, language="python").rstrip()


def shorten_middle(text: str, width: int) -> str:
    """`bn.num_b…tracked`: long names keep their start and their end, which tell them apart."""
    if len(text) <= width:
        return text
    if width <= 1:
        return text[:width]
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + "…" + text[len(text) - tail:]


def fmt_bytes(count: int) -> str:
    """`812 B`, `3.9 KiB`, `382.0 MiB`."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{count} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} B"  # pragma: no cover - the loop always returns


def fmt_compact(count: int) -> str:
    """`812B`, `3.9K`, `382M`: bytes in at most 5 cells, for columns of figures."""
    value = float(count)
    for unit in ("B", "K", "M", "G"):
        if abs(value) < 1024 or unit == "T":
            if unit == "B":
                return f"{count}B"
            return f"{value:.1f}{unit}" if abs(value) < 10 else f"{value:.0f}{unit}"
        value /= 1024
    return f"{value:.1f}T" if abs(value) < 10 else f"{value:.0f}T"


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
