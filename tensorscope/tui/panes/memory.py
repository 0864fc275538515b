"""Memory: host and simulated-device bytes now, a timeline of the steps labelled with their
statements (what PyTorch's memory_viz shows, in the terminal), and the bytes each storage holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.content import Content

from tensorscope.printable import printable, shorten
from tensorscope.tui.format import (
    ACCENT,
    MUTED,
    PRIMARY,
    SUCCESS,
    WARNING,
    Styled,
    fmt_bytes,
    fmt_compact,
    fmt_delta,
    shorten_middle,
)
from tensorscope.tui.panes.base import TextPane, View

if TYPE_CHECKING:
    from tensorscope.snapshot import MemoryInfo, Snapshot

BLOCKS = " ▁▂▃▄▅▆▇█"
TIMELINE_STEPS = 12  # steps the timeline lists, the latest last
STORAGE_ROWS = 12  # storages listed per place (host, cuda)
HOST = PRIMARY
DEVICE = ACCENT
RESERVED = MUTED


def sparkline(values: Sequence[int], width: int) -> str:
    """One character per value (the last `width` values), scaled to the largest."""
    shown = list(values)[-width:] if width > 0 else []
    top = max(shown, default=0)
    if top <= 0:
        return BLOCKS[1] * len(shown)
    return "".join(BLOCKS[max(1, round(v / top * (len(BLOCKS) - 1)))] if v else BLOCKS[0] for v in shown)


def device_allocated(memory: MemoryInfo) -> int:
    return memory.cuda.get("allocated", 0) if memory.cuda else 0


def device_reserved(memory: MemoryInfo) -> int:
    return memory.cuda.get("reserved", 0) if memory.cuda else 0


def _figures(text: Styled, history: Sequence[Snapshot]) -> None:
    now = history[-1].memory
    before = history[-2].memory if len(history) > 1 else None
    text.append("host ", MUTED)
    text.append(f"live {fmt_bytes(now.allocated_bytes)}", f"bold {HOST}")
    change = now.allocated_bytes - (before.allocated_bytes if before else 0)
    text.append(f" {fmt_delta(change)}", SUCCESS if change <= 0 else WARNING)
    text.append(f" · peak {fmt_bytes(now.peak_bytes)}", MUTED)
    text.append("\n")
    if now.cuda:
        allocated = device_allocated(now)
        change = allocated - (device_allocated(before) if before else 0)
        text.append("cuda ", MUTED)
        text.append(f"allocated {fmt_bytes(allocated)}", f"bold {DEVICE}")
        text.append(f" {fmt_delta(change)}", SUCCESS if change <= 0 else WARNING)
        text.append(f" · reserved {fmt_bytes(device_reserved(now))}"
                    f" · max {fmt_bytes(now.cuda.get('max_allocated', 0))}\n", MUTED)


def _timeline(text: Styled, history: Sequence[Snapshot], width: int, rows: int = TIMELINE_STEPS) -> None:
    """Each of the last `rows` steps on a line: its number and statement, a bar of what was live
    after it (the device's allocated bytes, with its reserved bytes beyond, when the session used it)."""
    device = any(s.memory.cuda for s in history)
    shown = history[-max(rows, 1):]
    if len(history) > len(shown):
        text.append(f"{len(history) - len(shown)} earlier steps ", MUTED)
        levels = [device_allocated(s.memory) if device else s.memory.allocated_bytes for s in history]
        text.append(sparkline(levels, max(width - 20, 4)), DEVICE if device else HOST)
        text.append("\n")
    figure_width = 11 if device else 5
    number_width = len(str(shown[-1].step)) + 3
    bar_width = max(min(width // 5, 24), 4)
    label_width = max(min(width - number_width - figure_width - bar_width - 3, 48), 8)
    if device:
        top = max(max(device_reserved(s.memory), device_allocated(s.memory)) for s in shown) or 1
    else:
        top = max(s.memory.allocated_bytes for s in shown) or 1
    text.append("timeline", "bold")
    text.append("  █ allocated ░ reserved" if device else "  █ live on the host", MUTED)
    text.append("\n")
    for snap in shown:
        memory = snap.memory
        source = printable(snap.source.splitlines()[0] if snap.source else "")
        text.append(f"[{snap.step}]".ljust(number_width), MUTED)
        text.append(shorten(source, label_width).ljust(label_width) + " ")
        if device:
            used, held = device_allocated(memory), device_reserved(memory)
            solid = round(used / top * bar_width)
            solid = max(solid, 1) if used else 0
            spare = max(round(held / top * bar_width) - solid, 0)
            text.append("█" * solid, DEVICE)
            text.append("░" * spare, RESERVED)
            text.append(" " * (bar_width - solid - spare + 1))
            text.append(f"{fmt_compact(used)}/{fmt_compact(held)}", MUTED)
        else:
            live = memory.allocated_bytes
            solid = max(round(live / top * bar_width), 1) if live else 0
            text.append("█" * solid, HOST)
            text.append(" " * (bar_width - solid + 1))
            text.append(fmt_compact(live), MUTED)
        text.append("\n")


def _storages(text: Styled, snapshot: Snapshot, width: int) -> None:
    memory = snapshot.memory
    places = [("cuda", DEVICE, memory.device_by_storage), ("host", HOST, memory.by_storage)]
    rows = [(place, style, label, nbytes) for place, style, table in places
            for label, nbytes in sorted(table.items(), key=lambda item: (-item[1], item[0]))[:STORAGE_ROWS]]
    if not rows:
        return
    text.append("by storage\n", "bold")
    top = max(nbytes for *_, nbytes in rows) or 1
    label_width = max(len(label) for _, _, label, _ in rows)
    bar_width = max(min(width // 3, width - label_width - 26), 3)
    for place, style, label, nbytes in rows:
        bar = max(1, round(nbytes / top * bar_width)) if nbytes else 0
        text.append(f"{place} ", MUTED)
        text.append(label.ljust(label_width) + " ", "bold" if label.startswith("S") else MUTED)
        text.append("█" * bar, style if label.startswith("S") else MUTED)
        size = fmt_bytes(nbytes)
        text.append(" " + size)
        storage = snapshot.storages.get(label)
        names = storage.viewers if storage is not None else ()
        room = max(width - 5 - label_width - bar - len(size) - 3, 1)
        if names:
            text.append(" " + shorten_middle(", ".join(names), room), MUTED)
        elif label.startswith("G"):
            text.append(" " + shorten_middle("graph/grad", room), MUTED)
        text.append("\n")
    for place, table in (("cuda", memory.device_by_storage), ("host", memory.by_storage)):
        if len(table) > STORAGE_ROWS:
            rest = sorted(table.values(), reverse=True)[STORAGE_ROWS:]
            text.append(f"… {len(rest)} more {place} storages, {fmt_bytes(sum(rest))}\n", MUTED)


def render_memory(history: Sequence[Snapshot], width: int, height: int = 40) -> Content:
    """`height` is the pane's: the timeline lists as many steps as leave room for the figures and
    the largest storages, so the latest step is on screen without scrolling."""
    if not history:
        return Content.styled("Memory appears after the first statement.", MUTED)
    text = Styled()
    _figures(text, history)
    figures = text.plain.count("\n")
    storages = len(history[-1].memory.by_storage) + len(history[-1].memory.device_by_storage)
    room = height - figures - 3 - min(storages, 3)  # timeline heading, earlier steps, storage heading
    _timeline(text, history, width, min(TIMELINE_STEPS, max(room, 3)))
    _storages(text, history[-1], width)
    return text.rstrip().content()


class MemoryPane(TextPane):
    """Host and device bytes, the timeline of steps and bytes by storage."""

    PANE_TITLE = "Memory"
    HELP = """\
## Memory

- **host**: `live` is the bytes of every host storage still reachable: from a name, a `.grad`,
  or a tensor the autograd graph saved for backward; the figure after it is the change since the
  step before; `peak` the most that was live at once. A peak above live means a statement made
  temporaries that are gone again.
- **cuda** (once a statement used `device="cuda"`): the simulated device's caching allocator, as
  `torch.cuda.memory_allocated()`, `memory_reserved()` and `max_memory_allocated()` report it.
  Reserved is what the allocator holds from the device (whole 2 MiB / 20 MiB segments), allocated
  what tensors use of it.
- **timeline**: the last steps, each labelled with its statement, and a bar of what was live
  after it: on the device, allocated (█) and reserved beyond it (░); on the host, live bytes.
  Compare `y = torch.relu(x)` (a new storage: the bar grows) with `torch.relu_(x)` (in place:
  nothing new).
- **by storage**: the bytes of each storage, device ones first. `S…` storages have names;
  `G…` ones are only held by the graph or by a `.grad`.

`tensorscope replay FILE --memory-snapshot OUT.pickle` writes the device's history for PyTorch's
own `python -m torch.cuda._memory_viz trace_plot OUT.pickle -o OUT.html`, each allocation labelled
with the file, line and statement that made it.
"""

    def render_key(self, view: View) -> tuple[object, ...]:
        return (id(view.snapshot), view.index, self.text_width, self.scrollable_content_region.height)

    def render_view(self, view: View) -> Content:
        return render_memory(view.history, self.text_width, self.scrollable_content_region.height or 40)
