"""In the explorer, a statement that runs too long is stopped (ctrl+c, or its time limit), the
transcript says so in one line, and the tensors defined before it are still there."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.pilot import Pilot

from tensorscope.tui.app import TensorscopeApp
from tensorscope.tui.panes.tensors import TensorsTable
from tensorscope.tui.panes.transcript import Transcript
from tensorscope.worker.client import WorkerSession
from tensorscope.worker.limits import Limits

from .helpers import run_all, settle


def limited(**options: Any) -> WorkerSession:
    return WorkerSession(limits=Limits(time_limit=1.0, memory_bytes=600 << 20), **options)


async def start_running(pilot: Pilot, source: str) -> None:
    app: TensorscopeApp = pilot.app  # type: ignore[assignment]
    app.code_input.load_text(source)
    await pilot.press("enter")
    for _ in range(500):
        await pilot.pause()
        if app.busy:
            break
        await asyncio.sleep(0.01)
    assert app.busy


async def test_ctrl_c_stops_a_running_statement_and_keeps_the_tensors() -> None:
    app = TensorscopeApp(cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(3)", "y = x * 2")
        await start_running(pilot, "torch.zeros(1).expand(10**7, 10**7).sum()")
        await asyncio.sleep(0.3)
        await pilot.press("ctrl+c")
        await settle(pilot)
        error = app.snapshots[-1].error
        assert error is not None and error.type == "KeyboardInterrupt"
        assert error.message.startswith("interrupted after 0.") and error.message.endswith("`torch.zeros(1).expand(10**7, 10**7).sum()`")
        assert app.query_one(TensorsTable).row_count == 2
        transcript = app.query_one(Transcript)
        assert "KeyboardInterrupt: interrupted after" in str(transcript.entries[-1].body)
        await run_all(pilot, "z = y + x")
        assert set(app.snapshots[-1].objects) == {"x", "y", "z"} and app.snapshots[-1].error is None


async def test_a_statement_past_its_time_limit_is_stopped() -> None:
    app = TensorscopeApp(cursor_blink=False, session_factory=limited)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(3)")
        await run_all(pilot, "torch.zeros(1).expand(10**7, 10**7).sum()")
        error = app.snapshots[-1].error
        assert (error.type, error.message) == ("TimeoutError", "interrupted after 1.0 s: `torch.zeros(1).expand(10**7, 10**7).sum()`")
        assert app.query_one(TensorsTable).row_count == 1


async def test_ctrl_c_when_nothing_runs_does_not_stop_anything() -> None:
    app = TensorscopeApp(cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(3)")
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert len(app.snapshots) == 2 and app.snapshots[-1].error is None
