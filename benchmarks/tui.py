"""Explorer speed, headless, each figure beside its target (issue 15): start to first paint, F1,
the repaint after one step with 200 named tensors and a 1,000-node graph, the big panes (1,000
named tensors, a 10,000-node graph) and a 200,000-term paste.

Run by hand: `python benchmarks/tui.py`. Figures are printed, never asserted; each is the best of a
few runs, since a busy machine only ever makes them slower.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

NAMED = 200
CHAIN = 999  # multiplications: with the leaf's AccumulateGrad, 1,000 nodes
BIG_NAMED = 1000
BIG_CHAIN = 9999  # 10,000 nodes


async def wait_for(condition: Callable[[], bool], seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the explorer did not get there in time")
        await asyncio.sleep(0.001)


def first_paint_child() -> None:
    """Runs in a fresh process: report seconds from process start to the first painted frame."""
    started = float(os.environ["TENSORSCOPE_BENCH_T0"])
    from tensorscope.tui.app import TensorscopeApp

    class Probe(TensorscopeApp):
        def on_mount(self) -> None:
            super().on_mount()
            self.call_after_refresh(self.painted)

        def painted(self) -> None:
            self.first_paint = time.time() - started

    async def main() -> None:
        app = Probe(cursor_blink=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(lambda: hasattr(app, "first_paint"))
            painted = app.first_paint
            app.run_source("import torch")
            await wait_for(lambda: len(app.snapshots) == 1 and not app.controller.busy)  # the worker answered
            await pilot.pause()
            ready = time.time() - started
        print(f"{painted:.3f} {ready:.3f}")

    asyncio.run(main())


def first_paint() -> tuple[float, float]:
    runs = []
    for _ in range(3):
        env = dict(os.environ, TENSORSCOPE_BENCH_T0=repr(time.time()))
        out = subprocess.run([sys.executable, __file__, "--first-paint-child"], env=env, check=True,
                             capture_output=True, text=True).stdout.split()
        runs.append((float(out[0]), float(out[1])))
    return min(r[0] for r in runs), min(r[1] for r in runs)


def source_of(named: int, chain: int) -> str:
    lines = ["import torch", "a = torch.ones(2, requires_grad=True)", "y = a"]
    lines.append(f"for i in range({chain}):\n    y = y * 1.0001")
    lines.extend(f"t{i:04d} = torch.full((2,), {i}.0)" for i in range(named - 2))
    return "\n".join(lines)


async def step_repaint(named: int, chain: int, size: tuple[int, int] = (120, 40)) -> dict[str, float]:
    """One step's update of every pane and the repaint of the screen, with in-process snapshots
    (what the panes cost, apart from the worker's round trip, which benchmarks/replay.py measures)."""
    from tensorscope.session import Session
    from tensorscope.tui.app import TensorscopeApp
    from tensorscope.tui.controller import Job, Update
    from tensorscope.tui.messages import SessionUpdated

    session = Session()
    session.run(source_of(named, chain))
    session.run("z = y + 1")
    snapshots = [step.snapshot for step in session.steps]
    assert len(snapshots[-1].objects) >= named and len(snapshots[-1].graph) >= chain + 1
    app = TensorscopeApp(cursor_blink=False, session_factory=Session)
    figures: dict[str, float] = {}
    async with app.run_test(size=size) as pilot:
        await wait_for(lambda: not app.controller.busy)
        timings = []
        for index in range(5):
            job = Job("run", "z = y + 1")
            shown = snapshots[:-1] if index % 2 else snapshots  # alternate, so every pane has news
            event = SessionUpdated(Update(job, list(shown), 1, False))
            app.selected = None if index % 2 else "y"
            await pilot.pause()
            app.controller.current_job = job
            started = time.perf_counter()
            app._session_updated(event)
            handled = time.perf_counter()
            app.screen._refresh_layout(app.size)  # layout, then paint what changed (here: every pane)
            painted = time.perf_counter()
            timings.append((handled - started, painted - handled))
            await pilot.pause()
        figures["panes updated"] = min(t[0] for t in timings)
        figures["layout + repaint"] = min(t[1] for t in timings)
        figures["step repaint total"] = min(t[0] + t[1] for t in timings)
        table, graph = app.query_one("#tensors"), app.query_one("#graph")
        scrolls = []
        for move in (lambda: table.action_cursor_to(-1), lambda: table.action_cursor_to(0),
                     lambda: graph.action_scroll_end(), lambda: graph.action_page_up()):
            await pilot.pause()
            started = time.perf_counter()
            move()
            app.screen._refresh_layout(app.size)
            scrolls.append(time.perf_counter() - started)
        figures["scroll the table or the graph to its end and back (worst)"] = max(scrolls)
    return figures


async def help_opens() -> float:
    from tensorscope.session import Session
    from tensorscope.tui.app import TensorscopeApp
    from tensorscope.tui.help import HelpScreen

    app = TensorscopeApp(cursor_blink=False, session_factory=Session)
    best = float("inf")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await asyncio.sleep(0.5)  # what a person does before pressing F1: the warm-up has run
        for _ in range(3):
            started = time.perf_counter()
            app.action_help()
            await wait_for(lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted)
            app.screen._refresh_layout(app.size)
            best = min(best, time.perf_counter() - started)
            await pilot.press("escape")
            await pilot.pause()
    return best


async def paste_and_run() -> tuple[float, float]:
    from textual import events

    from tensorscope.tui.app import TensorscopeApp

    line = "x = " + "+".join(["1"] * 200_000)
    app = TensorscopeApp(cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(lambda: app.controller.session is not None and not app.controller.busy)
        started = time.perf_counter()
        app.code_input.post_message(events.Paste(line))
        await wait_for(lambda: app.code_input.held is not None)
        app.screen._refresh_layout(app.size)
        pasted = time.perf_counter() - started
        notes = len(app.transcript.notes)
        started = time.perf_counter()
        await pilot.press("enter")
        await wait_for(lambda: len(app.transcript.notes) > notes and not app.controller.busy)
        ran = time.perf_counter() - started
    return pasted, ran


def main() -> None:
    paint, ready = first_paint()
    print(f"start to first paint (process start, headless 120x40): {paint * 1000:.0f} ms   target < 500 ms")
    print(f"start to the first statement's result (the worker up):  {ready * 1000:.0f} ms")
    print(f"F1 help open: {asyncio.run(help_opens()) * 1000:.1f} ms   target < 100 ms")
    for named, chain, target in ((NAMED, CHAIN, "   target < 30 ms"), (BIG_NAMED, BIG_CHAIN, "")):
        figures = asyncio.run(step_repaint(named, chain))
        print(f"one step with {named} named tensors and a {chain + 1}-node graph:")
        for name, value in figures.items():
            print(f"  {name}: {value * 1000:.1f} ms{target if name == 'step repaint total' else ''}")
    pasted, ran = asyncio.run(paste_and_run())
    print(f"a 200,000-term line pasted into the input: {pasted * 1000:.0f} ms to show it, "
          f"{ran * 1000:.0f} ms from Enter to its one-line error")


if __name__ == "__main__":
    if "--first-paint-child" in sys.argv:
        first_paint_child()
    else:
        main()
