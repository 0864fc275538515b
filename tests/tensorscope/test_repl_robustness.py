"""The REPL survives what a terminal can throw at it: bytes that are not UTF-8, a 200,000-term
line, ctrl+c at the prompt and while a statement runs, and output that would act on the terminal."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading

import pytest

from tensorscope.printable import printable
from tensorscope.repl import (
    Repl,
    _prompt_reader,
    between_prompts,
    ctrl_c_bindings,
    entries,
    needs_more,
    on_ctrl_c,
)
from tensorscope.session import Session
from tensorscope.worker.limits import Limits


def repl_process(stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "tensorscope", "--time-limit", "5", "repl"], input=stdin,
                          capture_output=True, timeout=120)


def test_bytes_that_are_not_utf8_are_a_syntax_error_not_a_traceback() -> None:
    result = repl_process(b"x = 1\ny = '\xff\xfe'\nprint(x, len(y))\nz = \xc3\n")
    out = result.stdout.decode()
    assert result.returncode == 0 and b"Traceback" not in result.stderr
    assert out.splitlines() == ["1 2", "SyntaxError: invalid character '\ufffd' (U+FFFD) (<input>, line 1, column 5)"]


def test_a_200000_term_line_is_refused_in_one_line() -> None:
    line = "x = " + "+".join(["1"] * 200_000) + "\n"
    result = repl_process(line.encode() + b"print('still here')\n")
    out = result.stdout.decode()
    assert result.returncode == 0 and b"Traceback" not in result.stderr
    assert "SyntaxError: too deeply nested to parse" in out and "still here" in out
    assert not needs_more([line.strip()])


def test_ctrl_c_at_the_prompt_drops_the_line() -> None:
    typed = iter(["x = 1", KeyboardInterrupt, "y = (1,", KeyboardInterrupt, "z = 3"])

    def read(_prompt: str) -> str:
        try:
            item = next(typed)
        except StopIteration:
            raise EOFError from None
        if item is KeyboardInterrupt:
            raise KeyboardInterrupt
        return item

    assert list(entries(read)) == ["x = 1", "z = 3"]


class _PromptApp:
    """What on_ctrl_c reads of prompt_toolkit's Application: its future, and exit()."""

    def __init__(self, future: asyncio.Future[str] | None) -> None:
        self.future, self.exits = future, []

    def exit(self, **how: object) -> None:
        self.exits.append(how)


def test_ctrl_c_on_an_open_prompt_drops_the_entry() -> None:
    repl = Repl(lambda text: None, session=Session(cuda=False))
    app = _PromptApp(asyncio.new_event_loop().create_future())
    on_ctrl_c(repl, app)
    assert app.exits == [{"exception": KeyboardInterrupt, "style": "class:aborting"}] and not repl.interrupt_on_entry


def test_ctrl_c_as_the_prompt_closes_on_a_statement_keeps_it_from_running_and_no_later_one() -> None:
    written: list[str] = []
    repl = Repl(written.append, session=Session(cuda=False))
    app = _PromptApp(None)  # the prompt has ended: prompt_toolkit's own binding would raise here
    on_ctrl_c(repl, app)
    assert app.exits == [] and repl.interrupt_on_entry
    repl.handle("x = 1")
    assert written == ["KeyboardInterrupt: ctrl+c as the statement was entered; it did not run\n"]
    assert repl.session.steps == []
    repl.handle("x = 2")
    assert [step.statement.source for step in repl.session.steps] == ["x = 2"]


def test_the_prompt_hands_ctrl_c_to_on_ctrl_c(tmp_path, monkeypatch) -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    repl = Repl(lambda text: None, session=Session(cuda=False))
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        read = _prompt_reader(repl)
        pipe.send_text("x = (1,\x03")
        with pytest.raises(KeyboardInterrupt):
            read(">>> ")
        pipe.send_text("y = 2\r")
        assert read(">>> ") == "y = 2"
    ours = ctrl_c_bindings(repl).bindings  # ctrl+c and the signal prompt_toolkit turns into a key
    assert sorted(str(binding.keys[0]) for binding in ours) == ["Keys.ControlC", "Keys.SIGINT"]
    ours[0].handler(type("Event", (), {"app": _PromptApp(None)})())
    assert repl.interrupt_on_entry


def test_ctrl_c_typed_right_after_enter_is_for_the_statement_and_what_follows_it_is_kept(tmp_path, monkeypatch) -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    repl = Repl(lambda text: None, session=Session(cuda=False))
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        read = _prompt_reader(repl)
        pipe.send_text("y = 2\rlost\x03z = 3\r")  # one read: Enter, then ctrl+c before the prompt closed
        assert read(">>> ") == "y = 2" and repl.interrupt_on_entry
        repl.interrupt_on_entry = False
        assert read(">>> ") == "z = 3" and not repl.interrupt_on_entry


def test_a_signal_between_the_prompt_and_the_run_keeps_the_statement_from_running() -> None:
    written: list[str] = []
    repl = Repl(written.append, session=Session(cuda=False))
    handler_before = signal.getsignal(signal.SIGINT)
    with between_prompts(repl):
        os.kill(os.getpid(), signal.SIGINT)
        repl.handle("x = 1")
    assert signal.getsignal(signal.SIGINT) is handler_before
    assert written == ["KeyboardInterrupt: ctrl+c as the statement was entered; it did not run\n"]


def test_ctrl_c_stops_the_running_statement_and_the_session_goes_on() -> None:
    written: list[str] = []
    handler_before = signal.getsignal(signal.SIGINT)  # Python's, or SIG_IGN when started in the background
    repl = Repl(written.append, limits=Limits(memory_bytes=600 << 20))
    try:
        repl.handle("import torch\nx = torch.ones(2)")
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        repl.handle("torch.zeros(1).expand(10**7, 10**7).sum()")
        timer.join()
        repl.handle("print(x)")
    finally:
        repl.session.close()
    text = "".join(written)
    assert "KeyboardInterrupt: interrupted after 0." in text and "`torch.zeros(1).expand(10**7, 10**7).sum()`" in text
    assert text.rstrip().endswith("tensor([1., 1.])")
    assert signal.getsignal(signal.SIGINT) is handler_before  # put back afterwards


def test_printed_control_characters_are_shown_escaped() -> None:
    written: list[str] = []
    repl = Repl(written.append, session=Session())
    repl.handle("print('\\x1b[2J clear', '\\udc80', '\\u202e')")
    repl.handle("raise ValueError('\\x1b]0;title\\x07')")
    text = "".join(written)
    assert "\x1b" not in text and "\udc80" not in text and "\u202e" not in text
    assert "\\x1b[2J clear \\udc80 \\u202e" in text
    assert "ValueError: \\x1b]0;title\\x07" in text


def test_printable_keeps_newlines_and_tabs_and_escapes_the_rest() -> None:
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable("\x1b[31mred\r\x00\x7f\x9b") == "\\x1b[31mred\\r\\x00\\x7f\\x9b"
    assert printable("caf\u00e9 \u4e2d") == "caf\u00e9 \u4e2d"


def test_a_pasted_class_with_blank_lines_in_it_is_told_how_to_run_whole() -> None:
    written: list[str] = []
    repl = Repl(written.append, session=Session(cuda=False))
    repl.handle("    def forward(self, x):\n        return x")
    assert written == ["IndentationError: unexpected indent (<input>, line 1, column 4)\n",
                       "  why: this line is indented but no block is open. Here, as in Python's REPL, a blank line "
                       "ends a block,\n       so code with blank lines inside its blocks runs whole with "
                       "`tensorscope replay FILE` (`-` reads standard input).\n"]
