"""Inspector: the selected tensor's values and grad, its base, its views, its place in the graph."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from tensorscope.printable import printable
from tensorscope.tui.format import (
    ERROR,
    MUTED,
    WARNING,
    Styled,
    fmt_bytes,
    fmt_shape,
    fmt_tuple,
    format_values,
    order_viewers,
)
from tensorscope.tui.panes.base import TextPane, View
from tensorscope.tui.panes.tensors import changes_of

if TYPE_CHECKING:
    from tensorscope.snapshot import ObjectInfo, Snapshot


def _base_of(snapshot: Snapshot, info: ObjectInfo) -> str:
    if not info.is_view:
        return "none (it owns its storage)" if info.kind == "tensor" else "-"
    owners = [n for n in order_viewers(snapshot, info.storage)
              if n != info.name and not snapshot.objects[n].is_view]
    if owners:
        return f"{owners[0]} (the named tensor owning {info.storage})"
    return f"an unnamed tensor owning {info.storage}"


def graph_places(snapshot: Snapshot, name: str) -> list[Styled]:
    places: list[Styled] = []
    for node in snapshot.graph:
        if name in node.outputs:
            places.append(Styled(f"its grad_fn: {node.name} ({node.id})"))
        if node.variable == name:
            places.append(Styled(f"a leaf: {node.name} ({node.id}) accumulates its .grad"))
        for saved in node.saved:
            if name in saved.names:
                line = Styled(f"saved by {node.name} as {saved.field} at v{saved.saved_version}")
                if saved.stale:
                    line.append(f", now v{saved.current_version}: STALE", f"bold {ERROR}")
                places.append(line)
    return places


def render_inspector(snapshot: Snapshot | None, selected: str | None,
                     previous: Snapshot | None = None) -> Content:
    if snapshot is None or selected is None or selected not in snapshot.objects:
        return Content.styled("Select a tensor in the Tensors pane (tab to it, then up/down) to inspect it.",
                              MUTED)
    info = snapshot.objects[selected]
    text = Styled()
    text.append(info.name, "bold")
    text.append(f"  {'Parameter' if info.is_parameter else info.kind} {info.dtype} {fmt_shape(info.shape)}"
                f" · {info.numel} el · {fmt_bytes(info.nbytes)} · {info.device}\n", MUTED)
    change = changes_of(previous, snapshot).get(info.name) if previous is not None else None
    if change:
        text.append(f"this step: {change}\n", f"bold {WARNING}")
    if info.kind == "tensor":
        text.append(f"stride {fmt_tuple(info.stride)}  offset {info.storage_offset}  version {info.version}\n")
        fn = info.grad_fn or ("(leaf)" if info.is_leaf else "-")
        text.append(f"requires_grad {info.requires_grad}  is_leaf {info.is_leaf}  grad_fn {fn}\n")
    text.append(f"storage {info.storage}", "bold")
    others = [n for n in order_viewers(snapshot, info.storage) if n != info.name]
    text.append(f"  shared with {', '.join(others)}\n" if others else "  not shared\n")
    text.append(f"_base  {_base_of(snapshot, info)}\n")
    views = [n for n in others if snapshot.objects[n].is_view]
    if views:
        text.append(f"views  {', '.join(views)}\n")
    text.append("values\n", "bold")
    if info.values is not None:
        for line in format_values(info.values):
            text.append("  " + line + "\n")
    elif info.summary:
        for line in printable(info.summary).splitlines()[:12]:
            text.append("  " + line + "\n")
    if info.kind == "tensor":
        text.append("grad", "bold")
        if info.grad is None:
            text.append("  None\n", MUTED)
        else:
            text.append(f"  (storage {info.grad_storage})\n", MUTED)
            for line in format_values(info.grad):
                text.append("  " + line + "\n")
        places = graph_places(snapshot, info.name)
        text.append("in the graph", "bold")
        text.append("\n" if places else "  nowhere\n", MUTED)
        for place in places:
            text.append("  ")
            text.append_text(place)
            text.append("\n")
    return text.rstrip().content()


class InspectorPane(TextPane):
    """Everything about the selected tensor."""

    PANE_TITLE = "Inspector"
    HELP = """\
## Inspector

The tensor selected in the Tensors pane: its geometry (shape, stride, storage offset), version,
autograd flags, values and `.grad` (large tensors are summarised), its storage and who else lives
in it, its `_base` (the tensor owning the memory it views) and its views, and where it sits in
the autograd graph: whose `grad_fn` it is, which node saved it and whether that saved copy is stale.
"""

    def render_view(self, view: View) -> Content:
        return render_inspector(view.snapshot, view.selected, view.previous)
