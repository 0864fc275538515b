"""The REPL survives what a terminal can throw at it: bytes that are not UTF-8, a 200,000-term
line, ctrl+c at the prompt and while a statement runs, and output that would act on the terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from tensorscope.printable import printable
from tensorscope.repl import Repl, entries, needs_more
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
