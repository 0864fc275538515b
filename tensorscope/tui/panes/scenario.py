"""Scenario mode: the narration of the current step, its code, and its expectations.

The pane renders anything shaped like `ScenarioLike` (title, summary, steps with code, `say`
markdown and expectation results); the app keeps which step is current. A YAML scenario or a
`.py` script (see `tensorscope.tui.scripts`) both fit the protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from textual.content import Content

from tensorscope.tui.format import ERROR, HINT, MUTED, SUCCESS, WARNING, Styled, highlight_code
from tensorscope.tui.markdown import render as render_markdown
from tensorscope.tui.panes.base import TextPane, View


@runtime_checkable
class ScenarioStepLike(Protocol):
    """One step: the code it runs, what to say about it, how its expectations came out."""

    @property
    def code(self) -> str: ...

    @property
    def say(self) -> str: ...

    @property
    def results(self) -> Sequence[tuple[str, bool]]: ...


@runtime_checkable
class ScenarioLike(Protocol):
    @property
    def title(self) -> str: ...

    @property
    def summary(self) -> str: ...

    @property
    def steps(self) -> Sequence[ScenarioStepLike]: ...


def statement_span(first: int, last: int) -> str:
    """`[4]` or `[4]–[6]`: the transcript's numbers of a scenario step's statements."""
    return f"[{first}]" if first == last else f"[{first}]–[{last}]"


def render_scenario(scenario: ScenarioLike, current: int, ran: int,
                    results: Sequence[tuple[str, bool]] | None = None,
                    statements: tuple[int, int] | None = None) -> Content:
    """`current` is the step in view (-1: before the first), `ran` how many steps have run,
    `statements` the transcript numbers of the step's first and last statement once it ran."""
    steps = scenario.steps
    text = Styled()
    text.append(scenario.title, "bold")
    position = f"step {current + 1} of {len(steps)}" if current >= 0 else f"{len(steps)} steps"
    text.append(f"  {position}", MUTED)
    if statements is not None and statements[1] >= statements[0]:
        text.append(f" · statements {statement_span(*statements)}", MUTED)
    text.append("\n")
    if current < 0:
        if scenario.summary:
            text.append_text(render_markdown(scenario.summary))
            text.append("\n")
        text.append("ctrl+n runs the first step.", HINT)
        return text.content()
    step = steps[current]
    if step.say:
        text.append_text(render_markdown(step.say))
        text.append("\n")
    if step.code.strip():
        for line in highlight_code(step.code.rstrip()).split("\n"):
            text.append("  ")
            text.append_text(line)
            text.append("\n")
    shown = step.results if results is None else results
    for check, passed in shown or ():
        text.append("  ✓ " if passed else "  ✗ ", f"bold {SUCCESS}" if passed else f"bold {ERROR}")
        text.append(check + "\n", "" if passed else ERROR)
    if current + 1 < len(steps):
        text.append("ctrl+n next step · ctrl+b back · ctrl+g run to the end", HINT)
    else:
        text.append("the last step · ctrl+b back", HINT)
    if ran > current + 1:
        text.append(f" · looking back: {ran} of {len(steps)} steps have run", f"italic {WARNING}")
    return text.content()


class ScenarioView(TextPane):
    """The scenario (or script, or the tour) being stepped through."""

    PANE_TITLE = "Scenario"
    HELP = """\
## Scenario

A scenario (or a script, or the tour) is a sequence of steps, each with a little narration and the
code it runs. **ctrl+n** runs the next step (or moves forward again after looking back),
**ctrl+b** goes back one step (time travel: the panes show the state after that step), **ctrl+g**
runs every remaining step. Expectations of a step show as ✓ (held) or ✗ (did not).

You can type your own statements at any point; they run after the steps so far.
"""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.scenario: ScenarioLike | None = None
        self.current = -1
        self.ran = 0
        self.results: Sequence[tuple[str, bool]] | None = None
        self.statements: tuple[int, int] | None = None

    def set_state(self, scenario: ScenarioLike | None, current: int, ran: int,
                  results: Sequence[tuple[str, bool]] | None = None,
                  statements: tuple[int, int] | None = None) -> None:
        self.scenario, self.current, self.ran, self.results = scenario, current, ran, results
        self.statements = statements
        self.display = scenario is not None
        if scenario is not None:
            self.border_title = f"Scenario: {scenario.title}"
        self.invalidate()
        self.show(View())

    def render_key(self, view: View) -> tuple[object, ...]:
        return (id(self.scenario), self.current, self.ran, id(self.results), self.statements)

    def render_view(self, view: View) -> Content:
        if self.scenario is None:
            return Content("")
        return render_scenario(self.scenario, self.current, self.ran, self.results, self.statements)
