"""SVG snapshots of the explorer (pytest-textual-snapshot). Update with `--snapshot-update` after
looking at the change in snapshot_report.html."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual.pilot import Pilot

from tensorscope.tui.app import TensorscopeApp

from .helpers import run_all, settle
from .test_explorer import SCENARIO

VIEW_CHAIN = ("import torch", "x = torch.arange(6.).view(2, 3)", "xt = x.t()", "col = x[:, 1]",
              "flat = x.view(-1)", "row = x[0].expand(2, 3)", "k = x.clone()", "col.mul_(10)")
LEAF_NORMAL = ("import torch", "w = torch.FloatTensor(10)", "w.requires_grad = True", "w.normal_()")
RESNET = ("import torch", "h = torch.randn(3, requires_grad=True)", "out = h.sigmoid()", "out += 1",
          "out.sum().backward()")
RELU = ("import torch", "t = torch.randn(256, 256)", "r = torch.relu(t)", "del r", "t = torch.relu_(t)")


def app() -> TensorscopeApp:
    return TensorscopeApp(cursor_blink=False, theme="textual-dark")


def running(*sources: str, select: str | None = None,
            focus: str | None = None) -> Callable[[Pilot], Awaitable[None]]:
    async def run_before(pilot: Pilot) -> None:
        await run_all(pilot, *sources)
        explorer: TensorscopeApp = pilot.app  # type: ignore[assignment]
        if select is not None:
            explorer.selected = select
        if focus is not None:
            explorer.query_one(focus).focus()
        await settle(pilot)

    return run_before


def test_a_view_chain_sharing_one_storage(snap_compare) -> None:  # noqa: ANN001 - the fixture
    assert snap_compare(app(), terminal_size=(120, 40), run_before=running(*VIEW_CHAIN, select="col"))


def test_the_leaf_normal_error(snap_compare) -> None:  # noqa: ANN001
    assert snap_compare(app(), terminal_size=(120, 40), run_before=running(*LEAF_NORMAL, select="w"))


def test_the_resnet_inplace_add_at_the_failing_backward(snap_compare) -> None:  # noqa: ANN001
    assert snap_compare(app(), terminal_size=(120, 40), run_before=running(*RESNET))


def test_relu_against_relu_inplace_memory(snap_compare) -> None:  # noqa: ANN001
    assert snap_compare(app(), terminal_size=(120, 40), run_before=running(*RELU, focus="#memory"))


def test_the_80x24_layout(snap_compare) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await running(*RESNET)(pilot)
        explorer: TensorscopeApp = pilot.app  # type: ignore[assignment]
        explorer.detail = "graph"
        await settle(pilot)

    assert snap_compare(app(), terminal_size=(80, 24), run_before=run_before)


def test_a_scenario_at_its_second_step(snap_compare) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)

    explorer = TensorscopeApp(cursor_blink=False, theme="textual-dark", scenario=SCENARIO)
    assert snap_compare(explorer, terminal_size=(120, 40), run_before=run_before)


RELU_CUDA = ("import torch", 't = torch.randn(1024, 1024, device="cuda")', "r = torch.relu(t)", "del r",
             "torch.relu_(t)")


def test_a_view_chain_in_a_light_theme(snap_compare) -> None:  # noqa: ANN001
    explorer = TensorscopeApp(cursor_blink=False, theme="textual-light")
    assert snap_compare(explorer, terminal_size=(120, 40), run_before=running(*VIEW_CHAIN, select="col"))


def test_the_resnet_error_at_200x60(snap_compare) -> None:  # noqa: ANN001
    assert snap_compare(app(), terminal_size=(200, 60), run_before=running(*RESNET))


def test_the_simulated_device_in_the_memory_pane(snap_compare) -> None:  # noqa: ANN001
    assert snap_compare(app(), terminal_size=(120, 40), run_before=running(*RELU_CUDA, select="t"))


def test_reset_asks_before_discarding_the_session(snap_compare) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await running("import torch", "x = torch.ones(3)")(pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()

    assert snap_compare(app(), terminal_size=(100, 30), run_before=run_before)


def test_completion_opens_a_dropdown_under_the_cursor(snap_compare) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await running("import torch", "x = torch.ones(3)")(pilot)
        explorer: TensorscopeApp = pilot.app  # type: ignore[assignment]
        explorer.code_input.load_text("y = x.ad")
        explorer.code_input.move_cursor(explorer.code_input.document.end)
        await pilot.press("tab")
        await pilot.pause()

    assert snap_compare(app(), terminal_size=(100, 30), run_before=run_before)


def test_the_help_of_the_graph_pane(snap_compare) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        explorer: TensorscopeApp = pilot.app  # type: ignore[assignment]
        explorer.query_one("#graph").focus()
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(app(), terminal_size=(100, 30), run_before=run_before)
