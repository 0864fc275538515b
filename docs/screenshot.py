"""Make docs/explorer.svg, the README's picture of the explorer: `python docs/screenshot.py`.

The session is the README's story (views of one storage, then `out += 1` breaking a backward),
typed into the explorer headless at 140x42, with the first tensor selected in the Inspector."""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

STATEMENTS = ["import torch", "x = torch.arange(6.).view(2, 3)", "xt = x.t()", "col = x[:, 1]",
              "h = torch.randn(3, requires_grad=True)", "out = h.sigmoid()", "out += 1", "out.sum().backward()"]
PICTURE = Path(__file__).with_name("explorer.svg")


async def take(size: tuple[int, int]) -> None:
    from tensorscope.explain import explain
    from tensorscope.tui.app import TensorscopeApp

    app = TensorscopeApp(explain=explain, cursor_blink=False)
    async with app.run_test(size=size) as pilot:
        for statement in STATEMENTS:
            app.run_source(statement)
            while app.controller.busy:
                await pilot.pause(0.02)
        await pilot.pause(0.5)
        next(widget for widget in app.query("*") if type(widget).__name__ == "TensorsTable").focus()
        await pilot.pause(0.5)
        app.save_screenshot(str(PICTURE))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as data:  # no saved session, history or first-run tour of yours
        os.environ["XDG_DATA_HOME"] = data
        (Path(data) / "tensorscope").mkdir()
        (Path(data) / "tensorscope" / "explorer_history").touch()
        asyncio.run(take((140, 42)))
    print(f"wrote {PICTURE}")
