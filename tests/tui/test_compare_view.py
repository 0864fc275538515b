"""The Compare pane: a scenario told in both dialects, side by side, with what differs."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from tensorscope.tui.app import TensorscopeApp
from tensorscope.tui.panes.compare import ComparePane
from tensorscope.tui.scenario_adapter import load_yaml

from .helpers import settle

PLUS_EQUALS = Path(__file__).resolve().parents[2] / "scenarios" / "paddle_vs_torch_plus_equals.yaml"


def explorer() -> TensorscopeApp:
    return TensorscopeApp(cursor_blink=False, theme="textual-dark", scenario=load_yaml(PLUS_EQUALS))


async def to_step_2(pilot: Pilot) -> None:
    """The setup is a step of its own, then the scenario's steps 1 and 2."""
    await settle(pilot)
    for _ in range(3):
        await pilot.press("ctrl+n")
        await settle(pilot)


async def test_the_compare_pane_shows_where_plus_equals_differs() -> None:
    app = explorer()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(ComparePane)
        assert pane.display and app.detail == "compare"  # a scenario in both dialects opens split
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        # numbered as the scenario pane numbers steps: the setup is step 1 of 3
        assert "step 2 of 3" in pane.plain and "same in both dialects" in pane.plain
        assert "step 2 of 3" in app.query_one("#scenario").plain
        await pilot.press("ctrl+n")
        await settle(pilot)
        text = pane.plain
        assert "step 3 of 3" in text
        assert "x's version: torch 1, paddle 0" in text
        assert "x and y share memory in torch; in paddle they are separate copies" in text
        assert "same in both dialects" not in text
        await pilot.press("ctrl+b")  # back to step 1: the pane follows
        await settle(pilot)
        assert "same in both dialects" in pane.plain
        await pilot.press("f2")  # hides the split view: the four detail panes are back
        await pilot.pause()
        assert not pane.display and app.detail == "storage"
        await pilot.press("f2")
        await pilot.pause()
        assert pane.display


async def test_the_compare_key_is_hidden_without_paddle_code() -> None:
    app = TensorscopeApp(cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.query_one(ComparePane).display
        assert app.check_action("show_compare", ()) is False
        await pilot.press("f2")
        await pilot.pause()
        assert app.detail == "storage"


async def test_the_paddle_side_runs_in_the_worker_after_an_undo_too() -> None:
    app = explorer()
    async with app.run_test(size=(120, 40)) as pilot:
        await to_step_2(pilot)
        app.action_reset()
        await settle(pilot)
        await to_step_2(pilot)
        assert "x's version: torch 1, paddle 0" in app.query_one(ComparePane).plain


def test_the_compare_view_at_step_2(snap_compare) -> None:  # noqa: ANN001 - the fixture
    assert snap_compare(explorer(), terminal_size=(120, 40), run_before=to_step_2)


async def test_f3_to_f6_leave_the_compare_view_for_the_pane_they_name() -> None:
    app = explorer()
    async with app.run_test(size=(160, 48)) as pilot:
        await to_step_2(pilot)
        assert app.query_one(ComparePane).display
        await pilot.press("f4")
        await pilot.pause()
        assert not app.query_one(ComparePane).display and app.query_one("#graph").display
        assert app.focused is app.query_one("#graph")
