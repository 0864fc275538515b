"""The autograd graph as an indented tree that stays readable in a narrow terminal.

A node with one input continues in the same column (`↓`); a node with several branches (`├─`,
`└─`). A node reached twice is printed once and referred to afterwards. Under each node its saved
tensors: the version each was saved at and the version it is at now; a stale one (an in-place op
changed it since) is highlighted, as the failure backward will hit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from tensorscope.tui.format import fmt_shape
from tensorscope.tui.panes.base import TextPane, View

if TYPE_CHECKING:
    from tensorscope.snapshot import NodeInfo, SavedInfo, Snapshot

MAX_LINES = 200

STALE_STYLE = "bold #ffffff on #b71c1c"


def roots_of(snapshot: Snapshot, selected: str | None) -> tuple[list[NodeInfo], str]:
    """The nodes to draw from, and a heading saying which graph this is."""
    graph = snapshot.graph
    if selected is not None:
        mine = [node for node in graph if selected in node.outputs]
        if mine:
            return mine, f"graph behind {selected}"
    pointed = {child for node in graph for child, _ in node.next if child is not None}
    roots = [node for node in graph if node.id not in pointed]
    return roots, "graphs of the named tensors"


def _node_label(node: NodeInfo, selected: str | None) -> Text:
    mine = selected is not None and (selected in node.outputs or node.variable == selected)
    text = Text(node.name, style="bold underline" if mine else "bold")
    if node.outputs:
        text.append(" → " + ", ".join(node.outputs), style="cyan")
    if node.name == "AccumulateGrad":
        text.append(" ← " + (node.variable or "an unnamed leaf"), style="green")
    text.append(f"  {node.id}", style="dim")
    return text


def saved_line(saved: SavedInfo) -> Text:
    text = Text()
    who = f" = {', '.join(saved.names)}" if saved.names else ""
    what = f"saved {saved.field}{who} {fmt_shape(saved.shape)}"
    if saved.released:
        text.append(f"{what} released after backward", style="dim")
    elif saved.stale:
        text.append(f"✗ {what} at v{saved.saved_version}, now v{saved.current_version}: STALE",
                    style=STALE_STYLE)
    else:
        text.append(f"{what} at v{saved.saved_version}", style="dim")
        text.append(" ✓", style="green")
    return text


def render_graph(snapshot: Snapshot | None, selected: str | None, limit: int = MAX_LINES) -> Text:
    if snapshot is None or not snapshot.graph:
        return Text("No autograd graph yet: tensors made with requires_grad=True record one.",
                    style="dim")
    by_id = {node.id: node for node in snapshot.graph}
    roots, heading = roots_of(snapshot, selected)
    stale = len(snapshot.stale_saved())
    out = Text()
    out.append(f"{heading} · {len(snapshot.graph)} nodes", style="dim")
    if stale:
        out.append(f" · {stale} stale saved tensor{'s' if stale > 1 else ''}", style="bold red")
    out.append("\n")
    seen: set[str] = set()
    lines = 0

    def emit(guide: str, connector: str, body: Text) -> bool:
        nonlocal lines
        if lines >= limit:
            return False
        out.append(guide + connector, style="dim")
        out.append_text(body)
        out.append("\n")
        lines += 1
        return True

    # an explicit stack keeps 1,000-node chains clear of Python's recursion limit
    stack: list[tuple[str, str, str]] = [(root.id, "", "") for root in reversed(roots)]
    while stack:
        node_id, guide, connector = stack.pop()
        node = by_id.get(node_id)
        if node is None:
            continue
        if node_id in seen:
            if not emit(guide, connector, Text(f"{node.name}  {node_id} (shown above)", style="dim")):
                break
            continue
        seen.add(node_id)
        if not emit(guide, connector, _node_label(node, selected)):
            break
        cont = guide + {"├─ ": "│  ", "└─ ": "   "}.get(connector, "")
        for saved in node.saved:
            emit(cont + "  ", "", saved_line(saved))
        children = [child for child, _ in node.next if child is not None]
        if len(children) == 1:
            stack.append((children[0], cont, "↓ "))
        else:
            for index in range(len(children) - 1, -1, -1):
                stack.append((children[index], cont, "└─ " if index == len(children) - 1 else "├─ "))
    if lines >= limit:
        out.append(f"… {len(snapshot.graph) - len(seen)} more nodes not drawn\n", style="dim")
    return out


class GraphPane(TextPane):
    """The autograd graph behind the selected tensor, or behind every named output."""

    PANE_TITLE = "Autograd graph"
    HELP = """\
## Autograd graph

The graph backward will walk, drawn as a tree from the output down to the leaves: each node by its
PyTorch name (`MulBackward0`, `AccumulateGrad` …). `→ y` names the tensor whose `grad_fn` the node
is, `← w` the leaf an `AccumulateGrad` writes `.grad` into.

`↓` continues a chain (a node with one input); `├─`/`└─` are branches. A node reached twice is
drawn once.

Under a node, its **saved tensors**: what the forward pass kept for the backward pass, with the
version it had then. A saved tensor whose version moved since (an in-place op such as `+=`,
`relu_`, `mul_`) is **STALE** and shown in red: `backward()` through that node fails with
"one of the variables needed for gradient computation has been modified by an inplace operation".

With a tensor selected in the Tensors pane, only the graph behind it is shown.
"""

    def render_view(self, view: View) -> Text:
        return render_graph(view.snapshot, view.selected)
