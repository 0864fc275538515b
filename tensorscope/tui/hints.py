"""A fallback explanation under an error, read from the snapshots alone.

The lead's explain module (issue 5) tells the full story; until it is wired in through
`TensorscopeApp(explain=...)`, this covers the two failures the tour shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tensorscope.snapshot import Snapshot



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
