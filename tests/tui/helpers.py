"""Driving the explorer: type a statement (set the input, press Enter) and wait for the worker."""

from __future__ import annotations

import asyncio

from textual.pilot import Pilot

from tensorscope.tui.app import TensorscopeApp


async def settle(pilot: Pilot) -> None:
    """Wait until the session's queue is empty and every message has been handled (jobs run in
    worker processes: allow them real time, up to a minute)."""
    app: TensorscopeApp = pilot.app  # type: ignore[assignment]
    for _ in range(6000):
        await pilot.pause()
        if not app.controller.busy and not app.controller.jobs:
            break
        await asyncio.sleep(0.01)
    await pilot.pause()


async def type_statement(pilot: Pilot, source: str) -> None:
    app: TensorscopeApp = pilot.app  # type: ignore[assignment]
    app.code_input.focus()
    app.code_input.load_text(source)
    await pilot.press("enter")
    await settle(pilot)


async def run_all(pilot: Pilot, *sources: str) -> None:
    """Run several statements as one entry (faster than typing them one by one)."""
    await type_statement(pilot, "\n".join(sources))
