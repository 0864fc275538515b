"""The explorer driven with Pilot: statements, undo, selection, errors, scenarios, help, layout."""

from __future__ import annotations

from dataclasses import dataclass, field

from tensorscope.tui.app import TensorscopeApp
from tensorscope.tui.help import HelpScreen
from tensorscope.tui.history import History
from tensorscope.tui.panes.code_input import CodeInput, CompletionMenu
from tensorscope.tui.panes.graph import GraphPane
from tensorscope.tui.panes.inspector import InspectorPane
from tensorscope.tui.panes.memory import MemoryPane
from tensorscope.tui.panes.scenario import ScenarioLike, ScenarioView
from tensorscope.tui.panes.storage_map import StorageMap
from tensorscope.tui.panes.tensors import TensorsTable
from tensorscope.tui.panes.transcript import Transcript

from .helpers import run_all, settle, type_statement

VIEWS = ("import torch", "x = torch.arange(6.).view(2, 3)", "v = x.t()", "c = x[:, 1]", "k = x.clone()")
RESNET = ("import torch", "h = torch.randn(3, requires_grad=True)", "out = h.sigmoid()", "out += 1",
          "out.sum().backward()")


def app_() -> TensorscopeApp:
    return TensorscopeApp(cursor_blink=False)


async def test_typed_statements_fill_the_transcript_table_and_storage_map() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, *VIEWS)  # one entry of five statements: five steps
        assert [s.source for s in app.snapshots] == list(VIEWS)
        assert app.code_input.text == ""
        transcript = app.query_one(Transcript)
        assert [entry.source for entry in transcript.entries] == list(VIEWS)
        table = app.query_one(TensorsTable)
        assert table.row_count == 4
        assert [str(table.get_row_at(i)[1]) for i in range(4)] == ["c", "k", "v", "x"]
        storage = app.query_one(StorageMap).plain
        assert "shared by" in storage and "c, v, x" in storage  # one strip for the views
        assert "only k" in storage  # the clone is a strip of its own
        assert "2 storages" not in storage
        assert app.query_one(MemoryPane).plain.startswith("host live 48 B")


async def test_undo_takes_back_the_last_statement() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(3)", "y = x * 2")
        assert len(app.snapshots) == 3
        app.code_input.focus()
        await pilot.press("ctrl+z")  # empty input: undo the statement
        await settle(pilot)
        assert [s.source for s in app.snapshots] == ["import torch", "x = torch.ones(3)"]
        assert "y" not in app.snapshots[-1].objects
        assert len(app.query_one(Transcript).entries) == 2
        assert app.query_one(TensorsTable).row_count == 1
        await pilot.press("a", "b", "ctrl+z")  # with text in the input, ctrl+z undoes typing only
        await settle(pilot)
        assert len(app.snapshots) == 2


async def test_selecting_a_row_selects_the_tensor_everywhere() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, *VIEWS)
        table = app.query_one(TensorsTable)
        table.focus()
        await pilot.pause()
        assert app.selected == "c"  # entering the table selects the row under the cursor
        await pilot.press("down", "down")
        await pilot.pause()
        assert app.selected == "v"
        inspector = app.query_one(InspectorPane).plain
        assert inspector.startswith("v  tensor float32 [3, 2]")
        assert "stride (1, 3)" in inspector and "shared with c, x" in inspector
        assert "[0. 3.]" in inspector  # values of x.t()
        storage = app.query_one(StorageMap).plain
        assert "▶ v" in storage  # the selected view's row is marked in its strip
        assert storage.startswith("S0")  # and its storage comes first


async def test_a_failing_backward_is_red_with_the_stale_saved_tensor_in_the_graph() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, *RESNET)
        last = app.snapshots[-1]
        assert last.error is not None and last.error.type == "RuntimeError"
        entry = app.query_one(Transcript).entries[-1]
        text = entry.body
        error_line = "RuntimeError: one of the variables needed for gradient computation"
        assert error_line in text.plain
        start = text.plain.index(error_line)
        styles = [str(span.style) for span in text.spans if span.start <= start < span.end]
        assert any("$text-error" in style for style in styles)  # the theme's error colour
        assert "↳ SigmoidBackward0 saved its result (out) at version 0" in text.plain
        graph = app.query_one(GraphPane)
        assert "✗ STALE (saved at v0, now v1): result = out [3]" in graph.plain
        stale_line = next(graph.lines.line(i) for i in range(len(graph.lines)) if "STALE" in graph.lines.line(i).plain)
        assert any("$error-muted" in str(span.style) for span in stale_line.spans)  # highlighted


async def test_the_leaf_normal_error_and_its_explanation() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "w = torch.FloatTensor(10)", "w.requires_grad = True", "w.normal_()")
        error = app.snapshots[-1].error
        assert error is not None and "leaf Variable that requires grad" in error.message
        assert "torch.no_grad()" in app.query_one(Transcript).entries[-1].body.plain


async def test_a_custom_explain_is_shown_under_errors() -> None:
    seen: list[int] = []

    def explain(snapshots: list) -> str:  # noqa: ANN001 - the app hands Snapshots
        seen.append(len(snapshots))
        return "because the test says so"

    app = TensorscopeApp(cursor_blink=False, explain=explain)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "y = nope")
        assert seen == [2]
        assert "↳ because the test says so" in app.query_one(Transcript).entries[-1].body.plain


async def test_a_syntax_error_is_reported_and_nothing_runs() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch")
        app.code_input.load_text("x = (1 +")
        app.code_input.submit()
        await settle(pilot)
        assert len(app.snapshots) == 1
        assert any(note.startswith("SyntaxError") for note in app.query_one(Transcript).notes)


async def test_time_travel_shows_an_older_step_in_every_pane() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, *VIEWS)
        await pilot.press("ctrl+b", "ctrl+b")
        await pilot.pause()
        assert app.viewed == 2
        table = app.query_one(TensorsTable)
        assert table.row_count == 2  # x and v only
        assert "after [2]" in str(table.border_title)  # numbered as the transcript numbers statements
        assert app.query_one(Transcript).entries[2].has_class("-viewed")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.viewed == -1 and table.row_count == 4


@dataclass(frozen=True)
class Step:
    code: str
    say: str
    results: tuple[tuple[str, bool], ...] = ()


@dataclass(frozen=True)
class Scenario:
    title: str
    summary: str
    steps: tuple[Step, ...] = field(default_factory=tuple)


SCENARIO = Scenario("views share memory", "A *view* is the same memory.", (
    Step("import torch\nx = torch.arange(4.)\n", "Make **x**."),
    Step("v = x[1:3]\n", "A slice is a view.", (("v shares x's storage", True),)),
    Step("v.add_(1)\n", "In place through the view.", (("x changed", True), ("x is untouched", False))),
))


async def test_a_scenario_steps_forward_and_back_with_expectations() -> None:
    assert isinstance(SCENARIO, ScenarioLike)
    app = TensorscopeApp(cursor_blink=False, scenario=SCENARIO)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.query_one(ScenarioView)
        assert view.display and "3 steps" in view.plain
        for _ in range(3):
            await pilot.press("ctrl+n")
            await settle(pilot)
        assert app.scenario_current == 2 and len(app.snapshots) == 4
        assert "step 3 of 3" in view.plain
        assert "✓ x changed" in view.plain and "✗ x is untouched" in view.plain
        assert app.snapshots[-1].objects["x"].version == 1
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert app.scenario_current == 1 and app.viewed == 2
        assert "step 2 of 3" in view.plain and "A slice is a view." in view.plain
        assert app.query_one(TensorsTable).row_count == 2
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.scenario_current == 2 and app.viewed == -1 and len(app.snapshots) == 4


async def test_run_to_end_runs_every_remaining_step() -> None:
    app = TensorscopeApp(cursor_blink=False, scenario=SCENARIO)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert app.scenario_current == 2 and len(app.snapshots) == 4


async def test_the_tour_opens_and_runs_its_first_steps() -> None:
    app = TensorscopeApp(cursor_blink=False, tour=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.scenario is not None and app.scenario.title.startswith("Tour")
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        assert {"x", "xt", "col", "flat", "copy"} <= set(app.snapshots[-1].objects)


async def test_f1_shows_the_focused_panes_help() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.query_one(GraphPane).focus()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "## Autograd graph" in app.screen.pane_help
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        app.query_one(TensorsTable).focus()
        await pilot.press("question_mark")  # outside the input, ? is help too
        assert isinstance(app.screen, HelpScreen) and "## Tensors" in app.screen.pane_help


async def test_a_keymap_remaps_a_binding_by_its_id(tmp_path) -> None:  # noqa: ANN001
    from tensorscope.tui.actions import load_keymap

    keymap_file = tmp_path / "keymap.toml"
    keymap_file.write_text('"tensorscope.undo" = "f9"\n"not.an.action" = "f10"\n', encoding="utf-8")
    keymap = load_keymap(keymap_file)
    assert keymap == {"tensorscope.undo": "f9"}
    app = TensorscopeApp(cursor_blink=False, keymap=keymap)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(2)")
        await pilot.press("f9")
        await settle(pilot)
        assert [s.source for s in app.snapshots] == ["import torch"]


async def test_what_a_keymap_file_gets_wrong_is_said_in_the_transcript(tmp_path) -> None:  # noqa: ANN001
    from tensorscope.tui.actions import keymap_problems

    keymap_file = tmp_path / "keymap.toml"
    assert keymap_problems(keymap_file) == []  # no file, nothing to say
    keymap_file.write_text('"tensorscope.udo" = "f9"\n"tensorscope.redo" = 9\n', encoding="utf-8")
    problems = keymap_problems(keymap_file)
    assert problems[0].startswith(f"{keymap_file}: no action 'tensorscope.udo' (there are tensorscope.help, ")
    assert problems[1] == f"{keymap_file}: 'tensorscope.redo' takes keys as a string, e.g. \"f9\" or \"ctrl+k,f9\""
    keymap_file.write_text("undo = [", encoding="utf-8")
    assert keymap_problems(keymap_file)[0].startswith(f"{keymap_file}: not valid TOML (")
    app = TensorscopeApp(cursor_blink=False, notices=keymap_problems(keymap_file))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.transcript.notes[0].endswith("the default keys apply")


async def test_quitting_keeps_a_half_typed_statement_in_the_history(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "history"
    app = TensorscopeApp(cursor_blink=False, history=History(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.code_input.load_text("y = torch.zeros(")
        await pilot.press("ctrl+q")
    assert History(path).entries == ["y = torch.zeros("]


async def test_enter_continues_a_block_and_an_empty_line_runs_it() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "w = torch.ones(2, requires_grad=True)")
        field_ = app.query_one(CodeInput)
        field_.load_text("with torch.no_grad():")
        field_.move_cursor(field_.document.end)
        await pilot.press("enter")
        assert field_.text == "with torch.no_grad():\n    "
        field_.insert("w.mul_(2)")
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert app.snapshots[-1].source.startswith("with torch.no_grad():")
        assert app.snapshots[-1].error is None and app.snapshots[-1].objects["w"].version == 1


async def test_history_walks_back_with_up_and_survives_a_restart(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "history"
    app = TensorscopeApp(cursor_blink=False, history=History(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await type_statement(pilot, "import torch")
        await type_statement(pilot, "a = torch.zeros(2)")
        await pilot.press("up")
        assert app.code_input.text == "a = torch.zeros(2)"
        await pilot.press("up")
        assert app.code_input.text == "import torch"
        await pilot.press("down", "down")
        assert app.code_input.text == ""
    assert History(path).entries == ["import torch", "a = torch.zeros(2)"]


async def test_tab_completes_torch_functions() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch")
        field_ = app.code_input
        field_.load_text("y = torch.zeros_l")
        field_.move_cursor(field_.document.end)
        await pilot.press("tab")
        assert field_.text == "y = torch.zeros_like"
        field_.load_text("y = torch.ra")
        field_.move_cursor(field_.document.end)
        await pilot.press("tab")  # several candidates: a dropdown under the cursor
        menu = app.screen.query_one(CompletionMenu)
        shown = [str(menu.get_option_at_index(i).prompt) for i in range(menu.option_count)]
        assert menu.display and "randn" in shown and "rand" in shown
        assert not field_.border_subtitle  # nothing left in the border
        await pilot.press("n", "_")  # typing narrows it (or closes it when nothing is left)
        assert not menu.display or all(c.startswith("torch.randn_") for c in field_.choices)
        field_.load_text("y = torch.ra")
        field_.move_cursor(field_.document.end)
        await pilot.press("tab")
        wanted = field_.choices.index("torch.randn")
        for _ in range(wanted):
            await pilot.press("down")
        await pilot.press("enter")  # takes the highlighted candidate, runs nothing
        assert field_.text == "y = torch.randn" and not menu.display and len(app.snapshots) == 1
        await pilot.press("escape")


async def test_the_80x24_layout_brings_the_pane_an_error_is_about_forward() -> None:
    app = app_()
    async with app.run_test(size=(80, 24)) as pilot:
        await run_all(pilot, *RESNET[:-1])
        assert app.narrow
        assert app.query_one(StorageMap).display and not app.query_one(GraphPane).display
        await run_all(pilot, RESNET[-1])  # the failing backward: its story is in the graph
        assert app.query_one(GraphPane).display and not app.query_one(StorageMap).display
        assert "STALE" in app.query_one(GraphPane).plain
        await pilot.press("f6")  # every detail pane has a key
        assert app.detail == "memory" and app.query_one(MemoryPane).display and app.query_one(MemoryPane).has_focus
        await pilot.press("f3")
        assert app.detail == "storage" and app.query_one(StorageMap).display
        app.action_next_detail()
        await pilot.pause()
        assert app.detail == "graph"
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert not app.narrow and app.query_one(StorageMap).display and app.query_one(MemoryPane).display


async def test_opening_a_script_steps_through_its_statements(tmp_path) -> None:  # noqa: ANN001
    script = tmp_path / "demo.py"
    script.write_text("import torch\nx = torch.ones(2)\ny = x.view(2, 1)\n", encoding="utf-8")
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_path(str(script))
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert app.scenario is not None and len(app.scenario.steps) == 3
        assert [s.source for s in app.snapshots] == ["import torch", "x = torch.ones(2)", "y = x.view(2, 1)"]


async def test_saving_the_session_as_a_script(tmp_path) -> None:  # noqa: ANN001
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch", "x = torch.ones(2)")
        target = tmp_path / "out.py"
        app.save_script(str(target))
        assert target.read_text() == "import torch\nx = torch.ones(2)\n"


async def test_the_palette_lists_the_explorer_commands() -> None:
    from tensorscope.tui.palette import ExplorerCommands

    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        provider = ExplorerCommands(app.screen)
        titles = [title for title, _, _ in provider._commands()]
        for wanted in ("Open scenario or script…", "Reset session", "Undo last statement",
                       "Save session as script…", "Export screenshot (SVG)", "Take the tour"):
            assert wanted in titles
        system = [command.title for command in app.get_system_commands(app.screen)]
        assert [t for t in titles + system if "theme" in t.lower()] == ["Theme"]  # one way to the themes
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "CommandPalette"


async def test_a_yaml_scenario_checks_its_expectations_as_it_steps() -> None:
    from pathlib import Path

    from tensorscope.tui.scenario_adapter import load_yaml

    scenario = load_yaml(Path(__file__).resolve().parents[2] / "scenarios" / "resnet_plus_equals_trap.yaml")
    app = TensorscopeApp(cursor_blink=False, scenario=scenario)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.detail = "graph"  # the story is told in both dialects, so it opened in the Compare pane
        await pilot.press("ctrl+g")
        await settle(pilot)
        view = app.query_one(ScenarioView)
        assert app.scenario_current == len(scenario.steps) - 1
        assert view.results and all(passed for _, passed in view.results), view.results
        assert "✓ error:" in view.plain
        assert "STALE" not in app.query_one(GraphPane).plain  # the last step is the fix
        await pilot.press("ctrl+b")  # back to the failing backward
        await pilot.pause()
        assert app.scenario_current == 3 and "STALE" in app.query_one(GraphPane).plain
        assert app.snapshots[app.viewed].error is not None


async def test_the_explain_module_speaks_under_the_failing_backward() -> None:
    from tensorscope.explain import explain

    app = TensorscopeApp(cursor_blink=False, explain=explain)
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, *RESNET)
        body = app.query_one(Transcript).entries[-1].body.plain
        assert "    ↳ " in body and "out" in body.split("↳", 1)[1]


async def test_typed_indentation_replaces_the_automatic_one() -> None:
    app = app_()
    async with app.run_test(size=(120, 40)) as pilot:
        await run_all(pilot, "import torch")
        field_ = app.code_input
        field_.load_text("def f(t):")
        field_.move_cursor(field_.document.end)
        await pilot.press("enter", *"    return t * 2")
        assert field_.text == "def f(t):\n    return t * 2"  # not 8 spaces
        await pilot.press("enter")
        assert field_.text.endswith("\n    ")
        await pilot.press("backspace")  # back one level: the block ends on an empty line
        assert field_.text.endswith("\n")
        await pilot.press("enter")
        await settle(pilot)
        assert app.snapshots[-1].source == "def f(t):\n    return t * 2" and app.snapshots[-1].error is None


def test_a_step_brings_forward_the_pane_its_narration_names() -> None:
    from tensorscope.tui.hints import pane_for_step
    from tensorscope.tui.scripts import script_scenario
    from tensorscope.tui.tour import TITLE, TOUR

    panes = [pane_for_step(step.say) for step in script_scenario(TOUR, TITLE).steps]
    assert panes[1] == "storage" and panes[7] == "graph" and panes[-1] == "memory"
    assert pane_for_step("Nothing to see here.") is None
