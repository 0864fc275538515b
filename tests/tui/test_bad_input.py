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
    assert needs_more("for i in range(3):  # each") and needs_more("with torch.no_grad(): x.add_(1)")
    assert needs_more("    y = x * 2")  # an indented snippet: a block until an empty line
    assert needs_more("class A:\n    x = 1\n\n    y = 2") and not needs_more("class A:\n    x = 1\n")
    assert not needs_more("import torch\n\nx = torch.ones(2)")  # a pasted script runs whole
