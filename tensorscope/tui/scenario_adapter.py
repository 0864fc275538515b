"""A YAML scenario (`tensorscope.scenario`, issue 5) as the ScenarioView's protocol.

Its `setup` becomes a first step of its own; each step's expectations are checked, when the step
has run, by `tensorscope.scenario.check_expectations` on the state after its last statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tensorscope.tui.scripts import ScriptStep

if TYPE_CHECKING:
    from tensorscope.scenario import Check, Scenario
    from tensorscope.session import SessionOptions
    from tensorscope.snapshot import Snapshot


def describe(check: Check) -> str:
    text = f"{check.key}: {check.expected!r}"
    return text if check.passed else f"{text}, got {check.actual!r}"


class YamlScenario:
    """ScenarioLike over a loaded Scenario, with `check` and the Session options it needs."""

    def __init__(self, scenario: Scenario) -> None:
        from tensorscope.scenario import session_options

        self.scenario = scenario
        self.title = scenario.title
        self.summary = scenario.summary
        steps: list[ScriptStep] = []
        if scenario.setup.strip():
            steps.append(ScriptStep(code=scenario.setup, say="*Setup*"))
        self.offset = len(steps)
        steps.extend(ScriptStep(code=step.code, say=step.say) for step in scenario.steps)
        self.steps: Sequence[ScriptStep] = tuple(steps)
        self.session_options: SessionOptions = session_options(scenario)

    def check(self, index: int, snapshots: Sequence[Snapshot]) -> list[tuple[str, bool]]:
        """The expectations of step `index`, given the snapshots of its statements."""
        from tensorscope.scenario import check_expectations

        position = index - self.offset
        if position < 0 or not snapshots:
            return []
        expect = self.scenario.steps[position].expect
        if not expect:
            return []
        final = step_final(snapshots)
        return [(describe(check), check.passed) for check in check_expectations(final, expect)]

    @property
    def has_paddle(self) -> bool:
        """Every step also gives Paddle code: the explorer can compare the two dialects."""
        return self.scenario.has_paddle

    def paddle_code(self, index: int) -> str:
        """The Paddle code of step `index` (the setup is step 0 when there is one)."""
        position = index - self.offset
        if position < 0:
            return self.scenario.paddle_setup
        return self.scenario.steps[position].paddle

    def is_setup(self, index: int) -> bool:
        return index < self.offset


def step_final(snapshots: Sequence[Snapshot]) -> Snapshot:
    """A step as expectations (and `compare`) see it: the state after its last statement, with
    everything its statements printed and warned, and the first error any of them raised."""
    printed = [s.output for s in snapshots if s.output is not None]
    return replace(snapshots[-1], output="\n".join(printed) if printed else None,
                   warnings=tuple(w for s in snapshots for w in s.warnings),
                   error=next((s.error for s in snapshots if s.error is not None), None))


def load_yaml(path: Path) -> YamlScenario:
    """What the explorer's "open" uses for `.yaml` files; raises ScenarioError with its line."""
    from tensorscope.scenario import load

    return YamlScenario(load(path))
