"""`tensorscope serve`: the explorer in a web browser, through textual-serve.

textual-serve starts one process per browser tab, running the command it was given with its
terminal in the page; here that command is the explorer itself (`tensorscope --browser-tab`),
so every tab gets its own explorer and so its own worker process, under the limits `serve` was
given. A tab keeps no saved session (tabs would offer each other's work) and the server listens
on the loopback address unless told otherwise. The page asks for nothing beyond the server: its
template is textual-serve's own without the web font it links from a font CDN (the terminal
falls back to the local monospace font), so it works offline and tells no third party it ran.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
import socket
import sys
import tempfile
from pathlib import Path

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


THIRD_PARTY_STYLESHEET = re.compile(r"<link\b[^>]*\bhref=\"https?://[^\"]*\"[^>]*>\s*", re.IGNORECASE)


def offline_templates(folder: str) -> str:
    """Write textual-serve's page template, minus stylesheets linked from other hosts, into
    `folder`; return the folder (textual-serve's `templates_path`)."""
    import textual_serve

    original = Path(textual_serve.__file__).parent / "templates" / "app_index.html"
    page = THIRD_PARTY_STYLESHEET.sub("", original.read_text(encoding="utf-8"))
    (Path(folder) / "app_index.html").write_text(page, encoding="utf-8")
    return folder


def listen_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port (an unknown host, a port in use), found before
    textual-serve prints that it serves there; None when it can."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        return f"cannot listen on {host}: {getattr(exc, 'strerror', None) or exc}"
    for family, kind, protocol, _, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server's own socket
            try:
                probe.bind(address)
            except OSError as exc:
                return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def serve(host: str, port: int, limits: Limits, cuda: bool) -> int:
    """Serve until interrupted (ctrl+c); the exit status for the command."""
    try:
        from textual_serve.server import Server
    except ImportError:
        print("tensorscope: serve needs textual-serve (pip install textual-serve)", file=sys.stderr)
        return 1
    problem = listen_problem(host, port)
    if problem is not None:
        print(f"tensorscope: {problem}", file=sys.stderr)
        return 1
    if not is_loopback(host):
        print(f"tensorscope: listening on {host}: anyone who reaches it can run statements in a worker",
              file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="tensorscope-serve-") as folder:
        try:
            Server(tab_command(limits, cuda), host=host, port=port, title="tensorscope",
                   templates_path=offline_templates(folder)).serve()
        except OSError as exc:  # taken between the check above and the server's own bind
            print(f"tensorscope: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    return 0
