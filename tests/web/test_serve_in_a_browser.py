"""`tensorscope serve` in a real headless browser: Debian's chromium driven by Playwright types a
statement into the explorer in the page and sees its row appear; a screenshot of the page is kept
in test-artifacts/ (ignored by git). Skipped where chromium or Playwright is missing."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("TENSORSCOPE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
pytest.importorskip("textual_serve", reason="textual-serve is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists() and shutil.which("chromium") is None,
                                reason="chromium is not installed")

# Every message the page's websocket receives, kept for the test to read (the terminal draws on a
# canvas, so the page's DOM holds no text).
RECORD_MESSAGES = """
(() => {
  const Original = window.WebSocket;
  window.__received = [];
  class Recorded extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (typeof event.data === "string") { window.__received.push(event.data); return; }
        window.__received.push(new TextDecoder("utf-8", {fatal: false}).decode(event.data));
      });
    }
  }
  window.WebSocket = Recorded;
})();
"""
ESCAPES = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("NO_COLOR", None)
    (tmp_path / "data" / "tensorscope").mkdir(parents=True)
    (tmp_path / "data" / "tensorscope" / "explorer_history").touch()  # not a first run: no tour
    process = subprocess.Popen([sys.executable, "-m", "tensorscope", "serve", "--port", str(port)], cwd=tmp_path,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def listening() -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0

    try:
        wait_until(listening, 60, "the server to listen")
        yield f"http://127.0.0.1:{port}/"
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=30)


def test_a_statement_typed_in_the_browser_shows_its_row_and_each_tab_is_its_own_session(server: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(RECORD_MESSAGES)
            requested: list[str] = []
            page.on("request", lambda request: requested.append(request.url))
            page.goto(server)

            def screen() -> str:
                return ESCAPES.sub("", "".join(page.evaluate("window.__received")))

            wait_until(lambda: "Transcript" in screen() and "Input" in screen(), 90, "the explorer to paint")
            page.mouse.click(60, 900 - 45)  # the input, bottom left
            page.wait_for_timeout(300)
            page.keyboard.type("import torch")
            page.keyboard.press("Enter")
            page.keyboard.type("webrow = torch.arange(6.).view(2, 3).t()")
            page.keyboard.press("Enter")
            wait_until(lambda: "webrow = torch.arange" in screen() and "TBackward0" not in screen()
                       and re.search(r"webrow\s+\[3, 2\]", screen()) is not None, 90, "the statement's row")
            time.sleep(0.5)  # the last frame reaches the canvas
            page.screenshot(path=str(ARTIFACTS / "explorer-in-a-browser.png"))

            other = browser.new_page(viewport={"width": 1400, "height": 900})  # a second tab: its own session
            other.add_init_script(RECORD_MESSAGES)
            other.goto(server)

            def other_screen() -> str:
                return ESCAPES.sub("", "".join(other.evaluate("window.__received")))

            wait_until(lambda: "Transcript" in other_screen() and "Input" in other_screen(), 90, "a second explorer")
            other.mouse.click(60, 900 - 45)
            other.wait_for_timeout(300)
            other.keyboard.type("print(dir())")
            other.keyboard.press("Enter")
            wait_until(lambda: "print(dir())" in other_screen() and "[0] >>>" in other_screen(), 90, "the second tab's step")
            assert "webrow" not in other_screen()  # the first tab's names are not here
            origin = server.rstrip("/")
            elsewhere = [url for url in requested if not url.startswith((origin, origin.replace("http", "ws", 1)))]
            assert requested and elsewhere == []  # the page asks nothing of other hosts (no web font)
        finally:
            browser.close()
    assert (ARTIFACTS / "explorer-in-a-browser.png").stat().st_size > 10_000
