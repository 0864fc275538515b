"""Hints read from the snapshots alone: which detail pane a step or an error is about (brought
forward in a narrow terminal), and a fallback explanation under an error.

`tensorscope.explain` tells an error's full story (the command line wires it in through
`TensorscopeApp(explain=...)`); `stale_hint` covers the two failures the tour shows without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tensorscope.snapshot import Snapshot



#: A pane named in a step's narration; failing that, a word that points at one.
PANE_NAMES: tuple[tuple[str, str], ...] = (
    ("autograd graph", "graph"), ("storage map", "storage"), ("memory pane", "memory"),
    ("inspector", "inspector"), ("compare pane", "compare"),
)
PANE_WORDS: tuple[tuple[str, str], ...] = (
    ("live and peak", "memory"), ("saved tensor", "graph"), ("storage", "storage"), ("graph", "graph"),
    ("memory", "memory"),
)


def pane_for_step(say: str) -> str | None:
    """The detail pane a scenario step's narration names first (or, naming none, points at)."""
    text = say.lower()
    for words in (PANE_NAMES, PANE_WORDS):
        found = [(text.find(word), pane) for word, pane in words if word in text]
        if found:
            return min(found)[1]
    return None


def pane_for_error(snapshots: list[Snapshot]) -> str | None:
    """The detail pane that shows why the last statement failed."""
    error = snapshots[-1].error if snapshots else None
    if error is None:
        return None
    message = error.message
    if "modified by an inplace operation" in message or "backward through the graph a second time" in message:
        return "graph"
    if "out of memory" in message.lower() or error.type == "MemoryError":
        return "memory"
    if "leaf Variable" in message or "view" in message:
        return "inspector"
    return None


def stale_hint(snapshots: list[Snapshot]) -> str | None:
    if not snapshots or snapshots[-1].error is None:
        return None
    last = snapshots[-1]
    message = last.error.message
    if "modified by an inplace operation" in message:
        before = snapshots[-2] if len(snapshots) > 1 else last
        stale = before.stale_saved() or last.stale_saved()
        if not stale:
            return "A tensor saved for backward was changed in place after it was saved."
        node, saved = stale[0]
        who = f" ({', '.join(saved.names)})" if saved.names else ""
        return (f"{node.name} saved its {saved.field}{who} at version {saved.saved_version}; an in-place "
                f"op moved it to version {saved.current_version}. Use the out-of-place form "
                f"(x = x + 1 rather than x += 1) or clone() before changing it.")
    if "leaf Variable that requires grad" in message:
        return ("A leaf that requires grad cannot change in place while autograd records: initialise it "
                "inside `with torch.no_grad():` (or through .data).")
    return None
