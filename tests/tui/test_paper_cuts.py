"""The paper cuts a new user met, each with the test that keeps it fixed."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from tensorscope import cli
from tensorscope.session import Session
from tensorscope.tui.app import TensorscopeApp
from tensorscope.tui.panes.graph import render_graph
from tensorscope.tui.panes.scenario import ScenarioView
from tensorscope.tui.panes.storage_map import render_storage_map
from tensorscope.tui.panes.tensors import TensorsTable
from tensorscope.tui.panes.transcript import Transcript

from .helpers import run_all, settle
from .test_explorer import SCENARIO

CUDA_SCRIPT = 'import torch\nprint(torch.cuda.is_available())\nx = torch.ones(1000, device="cuda")\ny = x * 2\n'


def app_() -> TensorscopeApp:
    return TensorscopeApp(cursor_blink=False, session_factory=Session)


def test_no_cuda_before_the_command_is_honoured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.py"
    script.write_text('import torch\nprint(torch.cuda.is_available())\n', encoding="utf-8")
    assert cli.main(["--no-cuda", "replay", str(script), "--json"]) == 0  # README's own spelling
    assert json.loads(capsys.readouterr().out.splitlines()[1])["output"] == "False"
    assert cli.main(["replay", "--no-cuda", str(script), "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[1])["output"] == "False"


def test_names_printed_by_list_are_accepted_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # outside the repository
    assert cli.main(["list"]) == 0
    name = capsys.readouterr().out.split()[0]
    for spelling in (name, f"{name}.yaml", f"scenarios/{name}.yaml"):
        assert cli.resolve_file(spelling).endswith(f"scenarios/{name}.yaml")
    assert cli.main(["replay", "scenarios/no_such_story.yaml"]) == 1
    assert capsys.readouterr().err == ("tensorscope: scenarios/no_such_story.yaml: no such file (a bundled "
                                       "scenario can be named as `tensorscope list` prints it)\n")


def test_the_json_trace_carries_the_explanation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "resnet.py"
    script.write_text("import torch\nh = torch.randn(3, requires_grad=True)\nout = h.sigmoid()\nout += 1\n"
                      "out.sum().backward()\n", encoding="utf-8")
    assert cli.main(["replay", str(script), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["explanation"] for r in records[:-1]] == [None] * 4
    assert "SigmoidBackward0" in records[-1]["explanation"] and "`out += 1`" in records[-1]["explanation"]


def test_memory_snapshot_frames_name_the_file_line_and_statement(tmp_path: Path) -> None:
    script = tmp_path / "device.py"
    script.write_text(CUDA_SCRIPT, encoding="utf-8")
    out = tmp_path / "mem.pickle"
    assert cli.main(["replay", str(script), "--memory-snapshot", str(out)]) == 0
    trace = pickle.loads(out.read_bytes())["device_traces"][-1]  # our own file, written by this test
    frames = {(f["filename"], f["line"], f["name"]) for entry in trace for f in entry["frames"]}
    assert (str(script), 3, 'x = torch.ones(1000, device="cuda")') in frames
    assert (str(script), 4, "y = x * 2") in frames


async def test_saving_as_a_scenario_writes_a_scenario(tmp_path: Path) -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(2)", "x.add_(1)")
        app.action_save_scenario()
        await pilot.pause()
        assert app.screen.query_one("#prompt-input").value == "tensorscope_session.yaml"
        app.save_script(str(tmp_path / "mine.yaml"))
    text = (tmp_path / "mine.yaml").read_text(encoding="utf-8")
    assert text.startswith("title: A recorded session") and "version:\n      x: 1" in text


async def test_the_palette_offers_no_broken_screenshot_and_no_package_code() -> None:
    from tensorscope.tui.palette import ExplorerCommands

    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        commands = {title: help_text for title, help_text, _ in ExplorerCommands(app.screen)._commands()}
        assert not [t for t in commands if t.endswith(".py")]
        # a bundled scenario by the name `tensorscope list` prints, told by its title
        assert commands["Open resnet_plus_equals_trap"] == (
            "The `+=` trap: adding in place to a tensor that backward needs")
        system = [command.title for command in app.get_system_commands(app.screen)]
        assert "Screenshot" not in system and "Theme" in system or "Change theme" in system


async def test_one_numbering_for_statements_in_every_pane() -> None:
    app = TensorscopeApp(cursor_blink=False, session_factory=Session, scenario=SCENARIO)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        scenario = app.query_one(ScenarioView).plain
        assert "step 2 of 3 · statements [2]" in scenario  # step 1 ran [0]–[1]
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert "step 1 of 3 · statements [0]–[1]" in app.query_one(ScenarioView).plain
        assert "after [1]" in str(app.query_one(TensorsTable).border_title)


async def test_no_entry_stays_marked_after_looking_back() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(2)", "y = x + 1")
        await pilot.press("ctrl+b")
        await pilot.pause()
        entries = app.query_one(Transcript).entries
        assert [e.has_class("-viewed") for e in entries] == [False, True, False]
        await run_all(pilot, "z = y * 2")  # a new statement: back at the latest
        assert not any(e.has_class("-viewed") for e in app.query_one(Transcript).entries)


def test_a_released_saved_tensor_has_no_empty_shape() -> None:
    session = Session()
    session.run("import torch\nh = torch.randn(3, requires_grad=True)\nout = h.sigmoid()\nout.sum().backward()")
    graph = render_graph(session.last, None)
    assert "saved result: released after backward" in graph and "[]" not in graph


def test_a_storage_drawn_in_ranges_says_one_cell_per_element_when_it_is_one() -> None:
    session = Session()
    session.run("import torch\ntorch.manual_seed(0)\nx = torch.randn(40)\ny = torch.zeros(5000)")
    text = render_storage_map(session.last, None, 60).plain
    assert "one cell per element" in text and "≈ 1 elements" not in text and "one cell ≈ 90 elements" in text


async def test_the_tensors_table_keeps_its_key_columns_and_follows_a_reset() -> None:
    app = app_()
    async with app.run_test(size=(80, 24)) as pilot:
        await run_all(pilot, "import torch", "bn_num_batches_tracked_and_more = torch.ones(3, requires_grad=True)",
                      "y = (bn_num_batches_tracked_and_more * 2).t()")
        table = app.query_one(TensorsTable)
        labels = table.column_labels
        assert {"name", "ver", "stor", "grad_fn"} <= set(labels) and "dtype" not in labels and "grad" not in labels
        names = [row[1] for row in (table.get_row_at(0), table.get_row_at(1))]
        assert names[0].startswith("bn_num") and "…" in names[0] and names[0].endswith("more")
        assert table.get_row_at(1)[labels.index("grad_fn")] == "TBackward0"
        await pilot.resize_terminal(200, 60)
        await pilot.pause()
        assert {"req_grad", "dtype", "stride", "off"} <= set(table.column_labels)
        assert table.get_row_at(0)[1] == "bn_num_batches_tracked_and_more"
        assert table.border_subtitle == "2 named"
        await pilot.press("ctrl+r", "enter")
        await settle(pilot)
        assert table.row_count == 0 and table.border_subtitle == ""
        await run_all(pilot, "import torch", "a = torch.ones(1)")
        assert table.get_row_at(0)[1] == "a" and table.plain.splitlines()[0].startswith("    name  shape")


async def test_the_device_is_a_column_once_a_tensor_lives_there() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "h = torch.ones(2)")
        assert "device" not in app.query_one(TensorsTable).column_labels
        await run_all(pilot, 'd = torch.ones(2, device="cuda")')
        table = app.query_one(TensorsTable)
        column = table.column_labels.index("device")
        assert [table.get_row_at(i)[column] for i in range(2)] == ["cuda:0", "cpu"]


def test_columns_go_by_priority_as_the_pane_narrows() -> None:
    from tensorscope.tui.panes.tensors import COLUMNS, layout, row_cells

    session = Session()
    session.run("import torch\nweights_of_a_rather_long_layer_name = torch.ones(3, requires_grad=True)\n"
                "y = weights_of_a_rather_long_layer_name * 2")
    rows = [row_cells(info, None, "") for info in session.last.objects.values()]
    order = [c.label for c in sorted(COLUMNS, key=lambda c: -c.drop) if c.drop]  # off, stride, dtype, ...
    assert order == ["off", "stride", "dtype", "leaf", "req_grad", "shape"]
    for width in (120, 90, 75, 64, 56, 48, 30):
        kept = [column.label for column, _ in layout(rows, width, devices=True)]
        dropped = [label for label in order if label not in kept]
        assert dropped == order[: len(dropped)], (width, kept)  # the lowest priorities go first
        assert {"name", "ver", "stor", "device", "grad_fn"} <= set(kept)  # never these
    assert len(layout(rows, 120, devices=True)) == len(COLUMNS)


async def test_a_huge_pasted_statement_is_echoed_in_part_and_runs_in_seconds() -> None:
    from textual import events

    statement = "big = [" + "1, " * 100_000 + "]"
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.code_input.post_message(events.Paste(statement))
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        entry = app.transcript.entries[-1]
        assert entry.source == statement  # the whole statement ran and is kept; only its echo is cut
        shown = entry.body.plain
        assert len(shown) < 5000
        assert "… 296,008 more characters (up in the input brings back the whole statement)" in shown


def test_a_long_script_cell_is_echoed_up_to_its_fortieth_line() -> None:
    from tensorscope.tui.panes.transcript import shown_source

    cell = "\n".join(f"x{i} = {i}" for i in range(100))
    shown, hidden = shown_source(cell)
    assert shown.splitlines()[-1] == "x39 = 39" and hidden == f"60 more lines, {len(cell) - len(shown):,} characters"
    assert shown_source("x = 1\ny = 2") == ("x = 1\ny = 2", "")
