"""The autograd graph as an indented tree that stays readable in a narrow terminal.

A node with one input continues in the same column (`↓`); a node with several branches (`├─`,
`└─`). A node reached twice is printed once and referred to afterwards. Under each node its saved
tensors: the version each was saved at and the version it is at now; a stale one (an in-place op
changed it since) is highlighted, as the failure backward will hit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content

from tensorscope.tui.format import ERROR, MUTED, STALE, SUCCESS, Styled, fmt_shape
from tensorscope.tui.panes.base import View
from tensorscope.tui.panes.lines import LinesPane

if TYPE_CHECKING:
    from tensorscope.snapshot import NodeInfo, SavedInfo, Snapshot

OUTPUTS = "$text-primary"
LEAF = SUCCESS


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


def _node_label(node: NodeInfo, selected: str | None) -> Styled:
    mine = selected is not None and (selected in node.outputs or node.variable == selected)
    text = Styled(node.name, "bold underline" if mine else "bold")
    if node.outputs:
        text.append(" → " + ", ".join(node.outputs), OUTPUTS)
    if node.name == "AccumulateGrad":
        text.append(" ← " + (node.variable or "an unnamed leaf"), LEAF)
    text.append(f"  {node.id}", MUTED)
    return text


def saved_line(saved: SavedInfo) -> Styled:
    text = Styled()
    who = f" = {', '.join(saved.names)}" if saved.names else ""
    if saved.released:
        text.append(f"saved {saved.field}{who}: released after backward (its memory is freed)", MUTED)
        return text
    what = f"{saved.field}{who} {fmt_shape(saved.shape)}"
    if saved.stale:  # STALE and its versions first: they must show however narrow the pane
        text.append(f"✗ STALE (saved at v{saved.saved_version}, now v{saved.current_version}): {what}", STALE)
    else:
        text.append(f"saved {what} at v{saved.saved_version}", MUTED)
        text.append(" ✓", SUCCESS)
    return text


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the tree: the guide drawn before it, and the node (or one of its saved tensors)."""

    prefix: str
    node: NodeInfo
    saved: int = -1  # index into node.saved; -1 for the node itself
    again: bool = False  # a node drawn earlier, referred to


class GraphLines:
    """The tree as lines built on demand: walking 10,000 nodes costs a list of rows, and only the
    rows on screen become text."""

    def __init__(self, snapshot: Snapshot | None, selected: str | None) -> None:
        self.snapshot = snapshot
        self.selected = selected
        self.rows: list[Row] = []
        self.heading = Styled("No autograd graph yet.", MUTED)
        self._width = len(self.heading.plain)
        self.empty = snapshot is None or not snapshot.graph
        self.nodes = 0
        if snapshot is not None and snapshot.graph:
            self._walk(snapshot, selected)

    def _walk(self, snapshot: Snapshot, selected: str | None) -> None:
        by_id = {node.id: node for node in snapshot.graph}
        roots, heading = roots_of(snapshot, selected)
        stale = len(snapshot.stale_saved())
        self.heading = Styled()
        if stale:
            self.heading.append(f"{stale} stale saved tensor{'s' if stale > 1 else ''} · ", f"bold {ERROR}")
        self.heading.append(heading, MUTED)
        self.nodes = len(snapshot.graph)
        width = len(self.heading.plain)
        seen: set[str] = set()
        rows = self.rows
        append = rows.append
        continuation = {"├─ ": "│  ", "└─ ": "   "}
        # an explicit stack keeps 10,000-node chains clear of Python's recursion limit
        stack: list[tuple[str, str, str]] = [(root.id, "", "") for root in reversed(roots)]
        while stack:
            node_id, guide, connector = stack.pop()
            node = by_id.get(node_id)
            if node is None:
                continue
            prefix = guide + connector
            label = len(prefix) + len(node.name) + len(node_id) + 16
            if node_id in seen:
                append(Row(prefix, node, again=True))
                width = max(width, label)
                continue
            seen.add(node_id)
            append(Row(prefix, node))
            if node.outputs or node.variable:
                label += sum(len(name) + 2 for name in node.outputs) + len(node.variable or "")
            width = max(width, label)
            cont = guide + continuation.get(connector, "")
            for index, saved in enumerate(node.saved):
                append(Row(cont + "  ", node, index))
                width = max(width, len(cont) + 60 + len(saved.field) + sum(len(n) + 2 for n in saved.names))
            children = [child for child, _ in node.next if child is not None]
            if len(children) == 1:
                stack.append((children[0], cont, "↓ "))
            else:
                for index in range(len(children) - 1, -1, -1):
                    stack.append((children[index], cont, "└─ " if index == len(children) - 1 else "├─ "))
        self._width = width

    def __len__(self) -> int:
        return len(self.rows) + 1 + (2 if self.empty else 0)

    @property
    def width(self) -> int:
        return self._width

    def line(self, index: int) -> Content:
        if index == 0:
            return self.heading.content()
        if self.empty:  # short lines: this pane does not wrap
            return Content.styled(("Tensors made with", "requires_grad=True record one.")[index - 1], MUTED)
        row = self.rows[index - 1]
        text = Styled(row.prefix, MUTED)
        if row.again:
            text.append(f"{row.node.name}  {row.node.id} (shown above)", MUTED)
        elif row.saved < 0:
            text.append_text(_node_label(row.node, self.selected))
        else:
            text.append_text(saved_line(row.node.saved[row.saved]))
        return text.content()


def render_graph(snapshot: Snapshot | None, selected: str | None) -> str:
    """The whole tree as plain text (the pane builds only the lines on screen)."""
    lines = GraphLines(snapshot, selected)
    return "\n".join(lines.line(index).plain for index in range(len(lines)))


class GraphPane(LinesPane):
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

With a tensor selected in the Tensors pane, only the graph behind it is shown. Long graphs scroll
(up/down, page up/down, home/end; left/right for deep ones): only what is on screen is drawn, so a
10,000-node graph stays quick.
"""

    def build_lines(self, view: View) -> GraphLines:
        lines = GraphLines(view.snapshot, view.selected)
        self.border_subtitle = f"{lines.nodes} node{'s' if lines.nodes != 1 else ''}" if lines.nodes else ""
        return lines
