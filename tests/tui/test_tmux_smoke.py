"""Smoke tests: the real explorer (and REPL) in a real terminal (tmux): it starts, takes a typed
statement, shows it, stops a runaway statement on ctrl+c with the earlier tensors kept, and quits.
Skipped when tmux is not installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

# A tmux server of the tests' own: another server's global options (a default size, a resized
# window) cannot leak into these screens, and nothing of the user's tmux is touched.
TMUX = ["tmux", "-L", f"tensorscope-tests-{os.getpid()}"]


@pytest.fixture(scope="module", autouse=True)
def _own_tmux_server() -> Iterator[None]:
    subprocess.run([*TMUX, "new-session", "-d", "-s", "keeper"], check=True)  # the server outlives each test
    yield
    subprocess.run([*TMUX, "kill-server"], capture_output=True)


def explorer_command() -> list[str]:
    """`tensorscope` itself once the CLI opens the explorer; the launch hook until then."""
    cli = (ROOT / "tensorscope" / "cli.py").read_text(encoding="utf-8")
    if "open_explorer" in cli:
        return [sys.executable, "-m", "tensorscope"]
    return [sys.executable, "-c", "from tensorscope.tui.launch import open_explorer; "
                                  "raise SystemExit(open_explorer())"]


def tmux(*args: str) -> str:
    return subprocess.run([*TMUX, *args], check=True, capture_output=True, text=True).stdout


def wait_for(read: Callable[[], str], wanted: Callable[[str], bool], seconds: float = 30.0) -> str:
    deadline = time.monotonic() + seconds
    screen = ""
    while time.monotonic() < deadline:
        screen = read()
        if wanted(screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"the screen never showed what was expected:\n{screen}")


def test_the_explorer_runs_in_a_terminal(tmp_path: Path) -> None:
    session = f"tensorscope-smoke-{uuid.uuid4().hex[:8]}"
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    command = " ".join(f"{k}={v}" for k, v in env.items()) + " " + " ".join(
        f"'{part}'" for part in explorer_command())
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", "-c", str(ROOT),
         f"env -u NO_COLOR -u TEXTUAL_THEME -u COLUMNS -u LINES {command}; sleep 30")

    subprocess.run([*TMUX, "resize-window", "-t", session, "-x", "120", "-y", "40"], capture_output=True)

    def screen() -> str:
        return tmux("capture-pane", "-p", "-t", session)

    try:
        first = wait_for(screen, lambda s: "Transcript" in s and "Input" in s)
        assert "Tour" in first  # a first run (no history yet) opens the tour
        tmux("send-keys", "-t", session, "-l", "import torch")
        tmux("send-keys", "-t", session, "Enter")
        tmux("send-keys", "-t", session, "-l", "smoke = torch.arange(6.).view(2, 3).t()")
        tmux("send-keys", "-t", session, "Enter")
        # the transcript entry and the table row, with x.t()'s shape and stride
        wait_for(screen, lambda s: "[1] >>> smoke =" in s and "[3, 2]" in s and "(1, 3)" in s)
        tmux("send-keys", "-t", session, "C-q")
        wait_for(screen, lambda s: "Transcript" not in s, 15)
        history = tmp_path / "data" / "tensorscope" / "explorer_history"
        assert "smoke = torch.arange" in history.read_text(encoding="utf-8")
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)


def start(tmp_path: Path, command: list[str], size: tuple[int, int] = (120, 40)) -> tuple[str, Callable[[], str]]:
    session = f"tensorscope-smoke-{uuid.uuid4().hex[:8]}"
    (tmp_path / "data" / "tensorscope").mkdir(parents=True, exist_ok=True)
    (tmp_path / "data" / "tensorscope" / "explorer_history").touch()  # not a first run: no tour
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    line = " ".join(f"{k}={v}" for k, v in env.items()) + " " + " ".join(f"'{part}'" for part in command)
    tmux("new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), "-c", str(ROOT),
         f"env -u NO_COLOR -u TEXTUAL_THEME -u COLUMNS -u LINES {line}; sleep 30")
    subprocess.run([*TMUX, "resize-window", "-t", session, "-x", str(size[0]), "-y", str(size[1])], capture_output=True)
    return session, lambda: tmux("capture-pane", "-p", "-t", session)


def type_line(session: str, text: str) -> None:
    tmux("send-keys", "-t", session, "-l", text)
    tmux("send-keys", "-t", session, "Enter")


@pytest.mark.parametrize("runaway", ["while True: pass", "torch.zeros(1).expand(10**7, 10**7).sum()"])
def test_ctrl_c_stops_a_runaway_statement_in_the_explorer(tmp_path: Path, runaway: str) -> None:
    session, screen = start(tmp_path, explorer_command())
    try:
        wait_for(screen, lambda s: "Transcript" in s and "Input" in s)
        type_line(session, "import torch")
        type_line(session, "kept = torch.arange(6.)")
        wait_for(screen, lambda s: "[1] >>> kept =" in s and "[6]" in s)
        type_line(session, runaway)
        wait_for(screen, lambda s: "running" in s)
        started = time.monotonic()
        tmux("send-keys", "-t", session, "C-c")
        shown = wait_for(screen, lambda s: "KeyboardInterrupt" in s or "endless loop" in s, 10)
        assert time.monotonic() - started < 2.0
        assert "kept" in shown and "[6]" in shown  # the earlier tensor is still in the table
        type_line(session, "more = kept * 2")
        wait_for(screen, lambda s: ">>> more =" in s and "more" in s)
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)


def test_ctrl_c_stops_a_runaway_statement_in_the_repl(tmp_path: Path) -> None:
    session, screen = start(tmp_path, [sys.executable, "-m", "tensorscope", "repl"], (100, 30))
    try:
        wait_for(screen, lambda s: ">>>" in s)
        type_line(session, "import torch")
        type_line(session, "kept = torch.arange(6.)")
        type_line(session, "torch.zeros(1).expand(10**7, 10**7).sum()")
        time.sleep(0.5)
        started = time.monotonic()
        tmux("send-keys", "-t", session, "C-c")
        # (a ctrl+c that lands as the prompt closes, on a loaded machine, keeps the statement from starting)
        wait_for(screen, lambda s: "KeyboardInterrupt: interrupted after" in s or "it did not run" in s, 10)
        assert time.monotonic() - started < 2.0
        type_line(session, "print(kept.sum())")
        wait_for(screen, lambda s: "tensor(15.)" in s)
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)


if os.environ.get("TENSORSCOPE_SMOKE_DEBUG"):  # pragma: no cover - a hand-run aid
    print(explorer_command())
