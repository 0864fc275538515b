"""Explorer speed, headless: start to first paint, and one step with 200 named tensors and a
1,000-node autograd graph.

Run by hand: `python benchmarks/tui.py`. Targets (issue 6): first paint under 1 s from process
start; the repaint after a step with 200 named tensors and a 1,000-node graph under 50 ms. Figures
are printed, never asserted.
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


def big_source() -> str:
    lines = ["import torch", "a = torch.ones(2, requires_grad=True)", "y = a"]
    lines.append(f"for i in range({CHAIN}):\n    y = y * 1.0001")
    lines.extend(f"t{i:03d} = torch.full((2,), {i}.0)" for i in range(NAMED - 2))
    return "\n".join(lines)


async def step_repaint() -> dict[str, float]:
    from tensorscope.tui.app import TensorscopeApp
    from tensorscope.tui.controller import Job, Update
    from tensorscope.tui.messages import SessionUpdated

    app = TensorscopeApp(cursor_blink=False)
    figures: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(lambda: app.controller.session is not None and not app.controller.busy)
        app.run_source(big_source())
        await wait_for(lambda: not app.controller.busy, 600)
        await pilot.pause()
        session = app.controller.session
        assert session is not None
        started = time.perf_counter()
        step = session.run("z = y + 1")[0]
        figures["engine + snapshot of the step, through the worker"] = time.perf_counter() - started
        snap = step.snapshot
        assert len(snap.objects) >= NAMED and len(snap.graph) >= 1000, (len(snap.objects), len(snap.graph))
        snapshots = [s.snapshot for s in session.steps]
        timings = []
        for index in range(5):
            job = Job("run", "z = y + 1")
            event = SessionUpdated(Update(job, snapshots, 1, False))
            app.selected = None if index % 2 else "y"  # alternate so every pane re-renders
            await pilot.pause()
            app.controller.current_job = job
            started = time.perf_counter()
            app._session_updated(event)
            handled = time.perf_counter()
            app.screen._refresh_layout(app.size)  # layout, then paint what changed (here: all panes)
            painted = time.perf_counter()
            timings.append((handled - started, painted - handled))
            app.query_one("#transcript").entries[-1].remove()
            app.query_one("#transcript").entries.pop()
            await pilot.pause()
        figures["panes updated (tensors, storage map, graph, memory, inspector, transcript)"] = min(
            t[0] for t in timings)
        figures["layout + repaint of the screen"] = min(t[1] for t in timings)
        figures["step repaint total"] = min(t[0] + t[1] for t in timings)
        figures["named objects"] = len(snap.objects)
        figures["graph nodes"] = len(snap.graph)
    return figures


def main() -> None:
    paint, ready = first_paint()
    print(f"start to first paint (process start, headless 120x40): {paint * 1000:.0f} ms   target < 1000 ms")
    print(f"start to the first statement's result (the worker up):  {ready * 1000:.0f} ms")
    figures = asyncio.run(step_repaint())
    print(f"one step with {figures.pop('named objects'):.0f} named tensors and "
          f"{figures.pop('graph nodes'):.0f} graph nodes:")
    for name, value in figures.items():
        target = "   target < 50 ms" if name == "step repaint total" else ""
        print(f"  {name}: {value * 1000:.1f} ms{target}")


if __name__ == "__main__":
    if "--first-paint-child" in sys.argv:
        first_paint_child()
    else:
        main()
