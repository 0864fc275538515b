"""Compare: the current scenario step in PyTorch and in Paddle, side by side, and what differs.

The differences are `tensorscope.compare.differences` over the state after the step in each
dialect; the Paddle side runs in a second Session in the app's worker, never on the UI thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content

from tensorscope.tui.format import ERROR, MUTED, SUCCESS, WARNING, Styled, highlight_code
from tensorscope.tui.panes.base import TextPane, View


@dataclass(frozen=True)
class CompareState:
    """What the pane shows: one step's code in both dialects and how they differ.

    `found` is None while the Paddle side has not run yet (or could not run: `problem` says why).
    """

    title: str
    torch_code: str
    paddle_code: str
    found: Sequence[str] | None = None
    problem: str | None = None
    setup: bool = False
    waiting: str = "running the paddle side…"


def side_by_side(left: str, right: str, width: int) -> Styled:
    """Two pieces of code in columns of half the width each (long lines cut with `…`)."""
    column = max((width - 3) // 2, 8)
    left_lines = highlight_code(left.rstrip()).split("\n") if left.strip() else []
    right_lines = highlight_code(right.rstrip()).split("\n") if right.strip() else []
    out = Styled()
    out.append("torch".ljust(column), "bold $text-error")
    out.append(" │ ", MUTED)
    out.append("paddle\n", "bold $text-primary")
    for index in range(max(len(left_lines), len(right_lines), 1)):
        cell = left_lines[index] if index < len(left_lines) else Content("")
        if cell.cell_length > column:
            cell = cell[: column - 1] + Content("…")
        out.append_text(cell)
        out.append(" " * (column - cell.cell_length))
        out.append(" │ ", MUTED)
        if index < len(right_lines):
            other = right_lines[index]
            out.append_text(other[: column - 1] + Content("…") if other.cell_length > column else other)
        out.append("\n")
    return out


def render_compare(state: CompareState | None, width: int = 80) -> Content:
    if state is None:
        return Content.styled("Open a scenario that gives its steps in both dialects (torch: and paddle:), "
                              "e.g. scenarios/paddle_vs_torch_plus_equals.yaml, then ctrl+n.", MUTED)
    body = Styled(state.title + "\n", "bold")
    body.append_text(side_by_side(state.torch_code, state.paddle_code, width))
    if state.problem is not None:
        body.append(state.problem, f"bold {ERROR}")
    elif state.found is None:
        body.append(state.waiting, f"italic {MUTED}")
    elif state.setup:
        body.append("the setup of each dialect (nothing to compare yet)", MUTED)
    elif not state.found:
        body.append("same in both dialects", f"bold {SUCCESS}")
    else:
        body.append(f"{len(state.found)} difference(s)\n", f"bold {WARNING}")
        for line in state.found:
            body.append("  • ", WARNING)
            body.append(line + "\n")
    return body.rstrip().content()


class ComparePane(TextPane):
    """The step in view, told in both dialects, with the differences in plain words."""

    PANE_TITLE = "Compare torch | paddle"
    HELP = """\
## Compare

For a scenario that gives each step in both dialects (`torch:` and `paddle:` code), the step in
view side by side: the PyTorch code on the left, the Paddle code on the right, and below them
where the two dialects part ways after that step: storage sharing, versions, leaf and
requires-grad flags, values, gradients, errors, printed output (or *same in both dialects*).

The Paddle code runs in a second session next to the PyTorch one. **F2** (or *Compare torch and
paddle* in ctrl+p) shows or hides this pane; **ctrl+n** / **ctrl+b** move through the steps.
"""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: CompareState | None = None

    def set_state(self, state: CompareState | None) -> None:
        self.state = state
        self.invalidate()
        self.show(self._view or View())

    def render_key(self, view: View) -> tuple[object, ...]:
        return (self.state, self.text_width)

    def render_view(self, view: View) -> Content:
        return render_compare(self.state, self.text_width)
