"""Scenario mode: the narration of the current step, its code, and its expectations.

The pane renders anything shaped like `ScenarioLike` (title, summary, steps with code, `say`
markdown and expectation results); the app keeps which step is current. A YAML scenario or a
`.py` script (see `tensorscope.tui.scripts`) both fit the protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from rich.console import Group, RenderableType
from rich.text import Text

from tensorscope.tui.panes.base import TextPane, View
from tensorscope.tui.panes.transcript import highlight_code


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


def render_scenario(scenario: ScenarioLike, current: int, ran: int,
                    results: Sequence[tuple[str, bool]] | None = None) -> RenderableType:
    """`current` is the step in view (-1: before the first), `ran` how many steps have run."""
    from rich.markdown import Markdown  # markdown-it is slow to import: not before a scenario opens

    steps = scenario.steps
    head = Text()
    head.append(scenario.title, style="bold")
    position = f"step {current + 1} of {len(steps)}" if current >= 0 else f"{len(steps)} steps"
    head.append(f"  {position}", style="dim")
    parts: list[RenderableType] = [head]
    if current < 0:
        if scenario.summary:
            parts.append(Markdown(scenario.summary))
        parts.append(Text("ctrl+n runs the first step.", style="italic #4fc3f7"))
        return Group(*parts)
    step = steps[current]
    if step.say:
        parts.append(Markdown(step.say))
    if step.code.strip():
        code = Text()
        for line in highlight_code(step.code.rstrip()).split("\n"):
            code.append("  ")
            code.append_text(line)
            code.append("\n")
        code.rstrip()
        parts.append(code)
    shown = step.results if results is None else results
    if shown:
        checks = Text()
        for text, passed in shown:
            checks.append("  ✓ " if passed else "  ✗ ", style="bold green" if passed else "bold red")
            checks.append(text + "\n", style="" if passed else "red")
        checks.rstrip()
        parts.append(checks)
    hint = Text(style="italic #4fc3f7")
    if current + 1 < len(steps):
        hint.append("ctrl+n next step · ctrl+b back · ctrl+g run to the end")
    else:
        hint.append("the last step · ctrl+b back")
    if ran > current + 1:
        hint.append(f" · looking back: {ran} of {len(steps)} steps have run", style="italic yellow")
    parts.append(hint)
    return Group(*parts)


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

    def set_state(self, scenario: ScenarioLike | None, current: int, ran: int,
                  results: Sequence[tuple[str, bool]] | None = None) -> None:
        self.scenario, self.current, self.ran, self.results = scenario, current, ran, results
        self.display = scenario is not None
        if scenario is not None:
            self.border_title = f"Scenario: {scenario.title}"
        self.invalidate()
        self.show(View())

    def render_key(self, view: View) -> tuple[object, ...]:
        return (id(self.scenario), self.current, self.ran, id(self.results), self.text_width)

    def render_view(self, view: View) -> RenderableType:
        if self.scenario is None:
            return Text("")
        return render_scenario(self.scenario, self.current, self.ran, self.results)
