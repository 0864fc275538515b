"""Memory: live and peak bytes now, a per-step timeline, and the bytes each storage holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from tensorscope.tui.format import fmt_bytes, fmt_delta
from tensorscope.tui.panes.base import TextPane, View

if TYPE_CHECKING:
    from tensorscope.snapshot import Snapshot

BLOCKS = " ▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[int], width: int) -> str:
    """One character per value (the last `width` values), scaled to the largest."""
    shown = list(values)[-width:] if width > 0 else []
    top = max(shown, default=0)
    if top <= 0:
        return BLOCKS[1] * len(shown)
    return "".join(BLOCKS[max(1, round(v / top * (len(BLOCKS) - 1)))] if v else BLOCKS[0] for v in shown)


def render_memory(history: Sequence[Snapshot], width: int) -> Text:
    if not history:
        return Text("Memory appears after the first statement.", style="dim")
    now = history[-1].memory
    before = history[-2].memory.allocated_bytes if len(history) > 1 else 0
    text = Text()
    text.append("live ", style="dim")
    text.append(fmt_bytes(now.allocated_bytes), style="bold")
    text.append(f"  {fmt_delta(now.allocated_bytes - before)}",
                style="green" if now.allocated_bytes <= before else "yellow")
    text.append("\npeak ", style="dim")
    text.append(fmt_bytes(now.peak_bytes), style="bold")
    extra = now.peak_bytes - now.allocated_bytes
    if extra > 0:
        text.append(f"  ({fmt_bytes(extra)} above live: freed temporaries)", style="dim")
    text.append("\n")
    if now.cuda:
        cuda = now.cuda
        text.append("cuda ", style="dim")
        text.append(f"allocated {fmt_bytes(cuda.get('allocated', 0))}", style="bold")
        text.append(f" · max {fmt_bytes(cuda.get('max_allocated', 0))}"
                    f" · reserved {fmt_bytes(cuda.get('reserved', 0))}\n", style="dim")
    spark_width = max(width - 7, 4)
    text.append("steps  ", style="dim")
    text.append(sparkline([s.memory.allocated_bytes for s in history], spark_width), style="#4fc3f7")
    text.append("\n")
    if len(history) > spark_width:
        text.append(f"       last {spark_width} of {len(history)} steps\n", style="dim")
    by_storage = sorted(now.by_storage.items(), key=lambda item: (-item[1], item[0]))
    if by_storage:
        text.append("by storage\n", style="dim")
        top = by_storage[0][1] or 1
        label_width = max(len(label) for label, _ in by_storage[:12])
        bar_width = max(min(width // 3, width - label_width - 26), 3)
        viewers = history[-1].storages
        for label, nbytes in by_storage[:12]:
            bar = max(1, round(nbytes / top * bar_width)) if nbytes else 0
            text.append(label.ljust(label_width) + " ", style="bold" if label.startswith("S") else "dim")
            text.append("█" * bar, style="#ffb74d" if label.startswith("S") else "#9e9e9e")
            text.append(" " + fmt_bytes(nbytes))
            names = viewers[label].viewers if label in viewers else ()
            if names:
                room = max(width - label_width - bar - len(fmt_bytes(nbytes)) - 4, 1)
                shown = ", ".join(names)
                text.append(" " + (shown if len(shown) <= room else shown[: room - 1] + "…"), style="dim")
            elif label.startswith("G"):
                text.append(" graph/grad", style="dim")
            text.append("\n")
        if len(by_storage) > 12:
            rest = sum(n for _, n in by_storage[12:])
            text.append(f"… {len(by_storage) - 12} more storages, {fmt_bytes(rest)}\n", style="dim")
    return text


class MemoryPane(TextPane):
    """Live/peak bytes, the per-step timeline and bytes by storage."""

    PANE_TITLE = "Memory"
    HELP = """\
## Memory

- **live**: bytes of every storage still reachable: from a name, a `.grad`, or a tensor the
  autograd graph saved for backward. The figure after it is the change since the step before.
- **peak**: the most that was live at once since the session started. A peak above live means a
  statement made temporaries that are gone again.
- **steps**: live bytes after each step so far (a sparkline). Compare `y = torch.relu(x)` (a new
  storage, live doubles) with `torch.relu_(x)` (in place: nothing new).
- **cuda** (when a statement used `device="cuda"`): the simulated device's allocator, as
  `torch.cuda.memory_allocated()`, `max_memory_allocated()` and `memory_reserved()` report it.
- **by storage**: the bytes of each storage. `S…` storages have names; `G…` ones are only held by
  the graph or by a `.grad`.
"""

    def render_key(self, view: View) -> tuple[object, ...]:
        return (id(view.snapshot), view.index, self.text_width)

    def render_view(self, view: View) -> Text:
        return render_memory(view.history, self.text_width)
