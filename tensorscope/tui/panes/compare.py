"""Compare: the current scenario step in PyTorch and in Paddle, side by side, and what differs.

The differences are `tensorscope.compare.differences` over the state after the step in each
dialect; the Paddle side runs in a second Session in the app's worker, never on the UI thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tensorscope.tui.panes.base import TextPane, View
from tensorscope.tui.panes.transcript import highlight_code


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


def render_compare(state: CompareState | None) -> RenderableType:
    if state is None:
        return Text("Open a scenario that gives its steps in both dialects (torch: and paddle:), "
                    "e.g. scenarios/paddle_vs_torch_plus_equals.yaml, then ctrl+n.", style="dim")
    table = Table(box=None, expand=True, padding=(0, 1), show_edge=False)
    table.add_column("torch", ratio=1, style="", header_style="bold #ee4c2c")
    table.add_column("paddle", ratio=1, style="", header_style="bold #2932e1")
    table.add_row(highlight_code(state.torch_code.rstrip()), highlight_code(state.paddle_code.rstrip()))
    head = Text(state.title, style="bold")
    parts: list[RenderableType] = [head, table]
    body = Text()
    if state.problem is not None:
        body.append(state.problem, style="bold red")
    elif state.found is None:
        body.append(state.waiting, style="italic dim")
    elif state.setup:
        body.append("the setup of each dialect (nothing to compare yet)", style="dim")
    elif not state.found:
        body.append("same in both dialects", style="bold green")
    else:
        body.append(f"{len(state.found)} difference(s)\n", style="bold yellow")
        for line in state.found:
            body.append("  • ", style="yellow")
            body.append(line + "\n")
        body.rstrip()
    parts.append(body)
    return Group(*parts)


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

    def render_view(self, view: View) -> RenderableType:
        return render_compare(self.state)
