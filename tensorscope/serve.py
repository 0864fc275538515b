"""`tensorscope serve`: the explorer in a web browser, through textual-serve.

textual-serve starts one process per browser tab, running the command it was given with its
terminal in the page; here that command is the explorer itself (`tensorscope --browser-tab`),
so every tab gets its own explorer and so its own worker process, under the limits `serve` was
given. A tab keeps no saved session (tabs would offer each other's work) and the server listens
on the loopback address unless told otherwise.
"""

from __future__ import annotations

import ipaddress
import shlex
import sys

from tensorscope.worker.limits import Limits


def tab_command(limits: Limits, cuda: bool) -> str:
    """The shell command textual-serve runs for each browser tab."""
    parts = [sys.executable, "-m", "tensorscope", "--time-limit", f"{limits.time_limit:g}",
             "--memory-limit", str(limits.memory_bytes), "--browser-tab"]
    if not cuda:
        parts.append("--no-cuda")
    return shlex.join(parts)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(host: str, port: int, limits: Limits, cuda: bool) -> int:
    """Serve until interrupted (ctrl+c); the exit status for the command."""
    try:
        from textual_serve.server import Server
    except ImportError:
        print("tensorscope: serve needs textual-serve (pip install textual-serve)", file=sys.stderr)
        return 1
    if not is_loopback(host):
        print(f"tensorscope: listening on {host}: anyone who reaches it can run statements in a worker",
              file=sys.stderr)
    Server(tab_command(limits, cuda), host=host, port=port, title="tensorscope").serve()
    return 0
