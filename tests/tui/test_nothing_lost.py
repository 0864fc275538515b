"""Nothing typed is lost: discarding actions ask first (Enter confirms, escape keeps), undo is
redone with ctrl+y, and the session saved as it goes is offered at the next start."""

from __future__ import annotations

from pathlib import Path

from tensorscope.session import Session
from tensorscope.tui.app import TensorscopeApp
from tensorscope.tui.help import ConfirmScreen
from tensorscope.tui.saved_session import SavedSession, SessionStore

from .helpers import run_all, settle


def app_(**options: object) -> TensorscopeApp:
    return TensorscopeApp(cursor_blink=False, session_factory=Session, **options)  # type: ignore[arg-type]


async def test_reset_asks_first_and_escape_keeps_the_session() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(2)")
        await pilot.press("ctrl+r")
        assert isinstance(app.screen, ConfirmScreen) and "2 statements" in app.screen.detail
        await pilot.press("escape")
        await settle(pilot)
        assert len(app.snapshots) == 2
        await pilot.press("ctrl+r", "enter")
        await settle(pilot)
        assert app.snapshots == []


async def test_the_tour_and_opening_a_file_ask_before_replacing_typed_work(tmp_path: Path) -> None:
    script = tmp_path / "demo.py"
    script.write_text("import torch\ny = torch.zeros(3)\n", encoding="utf-8")
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(2)")
        await pilot.press("ctrl+t")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        assert app.scenario is None and len(app.snapshots) == 2
        app.ask_open_path(str(script))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and "demo.py" in app.screen.question
        await pilot.press("escape")
        await settle(pilot)
        assert app.scenario is None and len(app.snapshots) == 2
        app.ask_open_path(str(script))
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert app.scenario is not None and app.snapshots == []


async def test_an_empty_session_opens_the_tour_without_asking() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen) and app.scenario is not None


async def test_ctrl_y_runs_again_what_ctrl_z_took_back() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(2)", "x.add_(1)")
        app.code_input.focus()
        await pilot.press("ctrl+z")
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert [s.source for s in app.snapshots] == ["import torch"]
        await pilot.press("ctrl+y")
        await settle(pilot)
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert [s.source for s in app.snapshots] == ["import torch", "x = torch.ones(2)", "x.add_(1)"]
        assert app.snapshots[-1].objects["x"].version == 1


async def test_the_session_is_saved_as_it_goes_and_resumed_at_the_next_start(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    first = app_(store=SessionStore(path))
    async with first.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.arange(4.)", "v = x[1:3]", "v.mul_(10)")
        first.code_input.load_text("y = v.sum(")
        await pilot.press("ctrl+q")
    saved = SessionStore(path).load()
    assert saved is not None and saved.statements[-1] == "v.mul_(10)" and saved.draft == "y = v.sum("

    second = app_(store=SessionStore(path))
    async with second.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(second.screen, ConfirmScreen) and "4 statements" in second.screen.detail
        await pilot.press("enter")
        await settle(pilot)
        assert [s.source for s in second.snapshots][-1] == "v.mul_(10)"
        assert second.snapshots[-1].objects["x"].values == [0.0, 10.0, 20.0, 3.0]
        assert second.code_input.text == "y = v.sum("


async def test_starting_afresh_sets_the_old_session_aside(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    SessionStore(path).save(SavedSession(("import torch", "x = torch.ones(2)")))
    app = app_(store=SessionStore(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await settle(pilot)
        assert app.snapshots == [] and not path.exists()
    assert SessionStore(tmp_path / "session.previous.json").load() is not None


async def test_a_resumed_scenario_is_back_at_its_step(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    first = app_(store=SessionStore(path), tour=True)
    async with first.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        marks = list(first.controller.scenario_marks)
    second = app_(store=SessionStore(path))
    async with second.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert second.scenario is not None and second.scenario.title.startswith("Tour")
        assert second.controller.scenario_marks == marks and second.scenario_current == 1


def test_a_broken_or_foreign_session_file_is_not_offered(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    for text in ("{", "[]", '{"format": 1, "statements": [1, 2]}', '{"format": 99, "statements": ["x"]}'):
        path.write_text(text, encoding="utf-8")
        assert SessionStore(path).load() is None
    assert SessionStore(None).load() is None


async def test_keys_wait_while_the_resume_question_is_up(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    SessionStore(path).save(SavedSession(("import torch", "x = torch.ones(2)")))
    app = app_(store=SessionStore(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+t", "ctrl+n", "ctrl+r")  # would open the tour, step, reset
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen) and app.scenario is None
        await pilot.press("enter")
        await settle(pilot)
        assert [s.source for s in app.snapshots] == ["import torch", "x = torch.ones(2)"]


async def test_opening_a_file_from_the_command_line_keeps_the_last_session_aside(tmp_path: Path) -> None:
    from tensorscope.tui.scripts import script_scenario

    path = tmp_path / "session.json"
    SessionStore(path).save(SavedSession(("import torch", "x = torch.ones(2)")))
    app = app_(store=SessionStore(path), scenario=script_scenario("import torch\ny = torch.zeros(3)\n", "demo.py"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert "your last session (2 statements" in "\n".join(app.transcript.notes)
    kept = SessionStore(tmp_path / "session.previous.json").load()
    assert kept is not None and kept.statements == ("import torch", "x = torch.ones(2)")
    assert SessionStore(path).load().statements == ("import torch", "y = torch.zeros(3)")
