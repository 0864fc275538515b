"""What `tensorscope serve` starts for each browser tab, and where it listens."""

from __future__ import annotations

import shlex
import sys

from tensorscope.cli import build_parser
from tensorscope.serve import is_loopback, tab_command
from tensorscope.worker.limits import Limits


def test_each_tab_runs_the_explorer_with_the_limits_and_no_saved_session() -> None:
    command = shlex.split(tab_command(Limits(memory_bytes=1 << 30, time_limit=3.0), cuda=False))
    assert command[:3] == [sys.executable, "-m", "tensorscope"]
    assert command[3:] == ["--time-limit", "3", "--memory-limit", str(1 << 30), "--browser-tab", "--no-cuda"]
    args = build_parser().parse_args(command[3:])
    assert args.command is None and args.browser_tab and args.no_cuda and args.time_limit == 3.0


def test_serve_listens_on_this_machine_unless_told_otherwise() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000) and is_loopback(args.host)
    assert is_loopback("localhost") and is_loopback("::1") and not is_loopback("0.0.0.0")
