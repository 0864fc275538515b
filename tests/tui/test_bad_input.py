"""Bad input in the explorer never yields a traceback: a 200,000-term line is a one-line syntax
error, and what user code prints is shown with control characters escaped."""

from __future__ import annotations

from tensorscope.tui.app import TensorscopeApp
from tensorscope.tui.panes.code_input import needs_more
from tensorscope.tui.panes.transcript import Transcript

from .helpers import run_all, settle

LONG = "x = " + "+".join(["1"] * 200_000)


def test_the_input_does_not_parse_itself_to_death() -> None:
    assert not needs_more(LONG)
    assert not needs_more("x = 1\0")


async def test_a_200000_term_line_is_a_one_line_syntax_error() -> None:
    app = TensorscopeApp(cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_source(LONG)
        await settle(pilot)
        notes = app.query_one(Transcript).notes
        assert notes[-2].startswith(">>> x = 1+1+1") and len(notes[-2]) < 210 and notes[-2].endswith("…")
        assert notes[-1].startswith("SyntaxError: too deeply nested to parse")
        await run_all(pilot, "import torch", "y = torch.ones(2)")
        assert "y" in app.snapshots[-1].objects


async def test_printed_escape_sequences_are_shown_escaped() -> None:
    app = TensorscopeApp(cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "print('\\x1b[2J\\x1b]0;owned\\x07', '\\udc80')", "raise ValueError('\\x1b[31m')")
        entries = app.query_one(Transcript).entries
        printed, raised = entries[-2].body.plain, entries[-1].body.plain
        assert "\x1b" not in printed + raised and "\udc80" not in printed
        assert "\\x1b[2J\\x1b]0;owned\\x07 \\udc80" in printed
        assert "ValueError: \\x1b[31m" in raised


async def test_a_huge_paste_is_held_not_laid_out_and_enter_runs_it() -> None:
    from textual import events

    app = TensorscopeApp(cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        field = app.code_input
        field.focus()
        field.post_message(events.Paste(LONG))
        await pilot.pause()
        assert field.held == LONG and field.text == ""  # the text area lays out nothing
        assert "400,003-character" in str(field.placeholder)
        await pilot.press("x")  # typing does not edit (or drop) what is held
        assert field.held == LONG
        await pilot.press("enter")
        await settle(pilot)
        assert field.held is None and app.query_one(Transcript).notes[-1].startswith("SyntaxError")
        field.post_message(events.Paste(LONG))
        await pilot.pause()
        await pilot.press("escape")
        assert field.held is None and "Enter runs it" in str(field.placeholder)
        await pilot.press("up")  # dropped, not lost: the history has it
        assert field.held == LONG


def test_enter_runs_a_line_no_continuation_could_mend_so_its_error_shows_at_once() -> None:
    assert not needs_more("def f(:")
    assert not needs_more("x = 1 +")
    assert needs_more("def f(x):") and needs_more("y = torch.tensor([1,") and needs_more("x = 1 + \\")
    assert needs_more("for i in range(3):  # each") and not needs_more("with torch.no_grad(): x.add_(1)")
    assert not needs_more("while True: pass")  # a one-line block runs at once (ctrl+c stops it)
    assert needs_more("    y = x * 2")  # an indented snippet: a block until an empty line
    assert needs_more("class A:\n    x = 1\n\n    y = 2") and not needs_more("class A:\n    x = 1\n")
    assert not needs_more("import torch\n\nx = torch.ones(2)")  # a pasted script runs whole


async def test_a_file_the_explorer_cannot_open_is_said_in_one_line(tmp_path) -> None:  # noqa: ANN001
    from tensorscope.session import Session
    from tensorscope.tui.scenario_adapter import load_yaml

    (tmp_path / "junk.py").write_bytes(b"\xb4\x00\xff")
    (tmp_path / "bad.yaml").write_text("steps: [1, 2\n", encoding="utf-8")
    app = TensorscopeApp(cursor_blink=False, session_factory=Session, scenario_loader=load_yaml)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for name in ("junk.py", "bad.yaml", "missing.py", "."):
            app.open_path(str(tmp_path / name))
        await settle(pilot)
        assert app.transcript.notes[-4:] == [
            f"cannot open {tmp_path}/junk.py: not UTF-8 text (byte 0xb4 at line 1, column 1)",
            f"cannot open {tmp_path}/bad.yaml: {tmp_path}/bad.yaml:2:1: not valid YAML: expected ',' or ']', "
            "but got '<stream end>'",
            f"cannot open {tmp_path}/missing.py: no such file",
            f"cannot open {tmp_path}: is a directory, not a script",
        ]
        assert app.scenario is None


async def test_saving_over_a_file_asks_first_and_escape_keeps_it(tmp_path) -> None:  # noqa: ANN001
    from tensorscope.session import Session
    from tensorscope.tui.help import ConfirmScreen

    mine = tmp_path / "train.py"
    mine.write_text("my training script\n", encoding="utf-8")
    app = TensorscopeApp(cursor_blink=False, session_factory=Session)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(2)")
        app.save_script(str(mine))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.question == "Replace train.py?"
        await pilot.press("escape")
        await pilot.pause()
        assert mine.read_text(encoding="utf-8") == "my training script\n"
        app.save_script(str(mine))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert mine.read_text(encoding="utf-8") == "import torch\nx = torch.ones(2)\n"


async def test_the_open_prompt_takes_a_bundled_scenario_by_its_name() -> None:
    from tensorscope.session import Session
    from tensorscope.tui.scenario_adapter import load_yaml

    app = TensorscopeApp(cursor_blink=False, session_factory=Session, scenario_loader=load_yaml)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_path("resnet_plus_equals_trap")
        await settle(pilot)
        assert app.scenario is not None and app.scenario.title.startswith("The `+=` trap")
