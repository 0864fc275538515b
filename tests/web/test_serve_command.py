"""What `tensorscope serve` starts for each browser tab, and where it listens."""

from __future__ import annotations

import shlex
import socket
import sys

import pytest

from tensorscope.cli import build_parser, main
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


def test_a_port_in_use_an_unknown_host_or_a_bad_port_is_said_in_one_line(capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 1
        assert capsys.readouterr().err == f"tensorscope: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert main(["serve", "--host", "no-such-host.invalid", "--port", "8123"]) == 1
    assert capsys.readouterr().err.startswith("tensorscope: cannot listen on no-such-host.invalid: ")
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--port", "99999"])
    assert exited.value.code == 2 and "'99999' is outside 1..65535" in capsys.readouterr().err
