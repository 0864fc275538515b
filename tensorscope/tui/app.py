"""The explorer app: a thin shell wiring the panes to a Session run in a worker thread."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Container, Horizontal, Vertical
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Footer, Tab, Tabs

from tensorscope.tui.actions import bindings
from tensorscope.tui.completion import Completer
from tensorscope.tui.hints import stale_hint
from tensorscope.tui.history import History
from tensorscope.tui.messages import (
    PaddleStep,
    SessionUpdated,
    StatementSubmitted,
    StepChosen,
    TensorSelected,
)
from tensorscope.tui.palette import ExplorerCommands
from tensorscope.tui.panes.base import Pane, TextPane, View
from tensorscope.tui.panes.code_input import CodeInput
from tensorscope.tui.panes.compare import ComparePane, CompareState
from tensorscope.tui.panes.graph import GraphPane
from tensorscope.tui.panes.inspector import InspectorPane
from tensorscope.tui.panes.memory import MemoryPane
from tensorscope.tui.panes.scenario import ScenarioLike, ScenarioView
from tensorscope.tui.panes.storage_map import StorageMap
from tensorscope.tui.panes.tensors import TensorsTable
from tensorscope.tui.panes.transcript import Transcript

if TYPE_CHECKING:
    from tensorscope.session import Session
    from tensorscope.snapshot import Snapshot

Explain = Callable[[list["Snapshot"]], "str | None"]
ScenarioLoader = Callable[[Path], ScenarioLike]
JobKind = Literal["start", "run", "undo", "reset", "step"]

NARROW_BELOW = 110  # columns: below this the detail panes share one place, switched by tabs
DETAILS = (("storage", "Storage"), ("graph", "Graph"), ("inspector", "Inspector"), ("memory", "Memory"))
COMPARE = ("compare", "Compare")  # a detail pane too, for scenarios with Paddle code only

GENERAL_HELP = """\
# tensorscope explorer

Type PyTorch statements in the **Input**; every pane shows what the statement did to memory.

| pane | shows |
|---|---|
| Transcript | statements, output, errors (red) with their explanation, what changed |
| Tensors | every named tensor: shape, stride, storage, version, grad_fn (select one here) |
| Storage map | each storage as a strip of elements, each view's elements in its colour |
| Autograd graph | the nodes backward will walk, saved tensors and their versions (stale in red) |
| Inspector | values, grad, base and views of the selected tensor |
| Memory | live and peak bytes, per step, by storage |
| Compare | for a scenario in both dialects: the step in torch and paddle, side by side, and what differs |

**tab** / **shift+tab** move between panes, **escape** returns to the input, **ctrl+p** opens the
command palette (open a scenario or script, reset, save the session, screenshot, theme),
**ctrl+q** quits.
"""


class TensorscopeApp(App[None]):
    """Run statements, see storages, versions, the autograd graph and memory."""

    CSS_PATH = Path(__file__).with_name("tensorscope.tcss")  # absolute: subclasses live elsewhere
    TITLE = "tensorscope"
    BINDINGS: ClassVar[list[BindingType]] = bindings()
    COMMANDS = App.COMMANDS | {ExplorerCommands}

    viewed: reactive[int] = reactive(-1, init=False)
    """The step whose snapshot the panes show; -1 follows the latest."""

    selected: reactive[str | None] = reactive(None, init=False)
    """The named object selected in the Tensors pane, followed by every other pane."""

    busy: reactive[bool] = reactive(False, init=False)
    """True while a worker runs statements (the input stays usable: entries queue up)."""

    narrow: reactive[bool] = reactive(False, init=False)
    """Below NARROW_BELOW columns the detail panes share one place, switched by tabs."""

    detail: reactive[str] = reactive("storage", init=False)
    """The detail pane shown in the narrow layout."""

    def __init__(self, *, source: str | None = None, scenario: ScenarioLike | None = None,
                 explain: Explain | None = None, history: History | None = None,
                 tour: bool = False, cursor_blink: bool = True,
                 scenario_loader: ScenarioLoader | None = None,
                 scenario_exporter: Callable[[list[str]], str] | None = None,
                 keymap: dict[str, str] | None = None, theme: str | None = None,
                 session_options: dict[str, object] | None = None) -> None:
        """
        Args:
            source: statements to run at start (a script opened from the command line).
            scenario: a scenario to open at its first step.
            explain: turns the snapshots up to a failing step into the explanation shown under it.
            history: the input history (in memory when None).
            tour: open the tour (what a first run does).
            cursor_blink: False for snapshot tests.
            scenario_loader: reads a `.yaml` scenario for "open" (issue 5's loader).
            scenario_exporter: turns the session's statements into a scenario file's text.
            keymap: binding id -> keys, overriding the defaults.
            theme: a Textual theme name.
            session_options: Session keywords for every run (e.g. `cuda=False` for `--no-cuda`).
        """
        super().__init__()
        self.snapshots: list[Snapshot] = []
        self.explain: Explain = explain or stale_hint
        self.history = history or History(None)
        self.scenario: ScenarioLike | None = None
        self.scenario_current = -1
        self.scenario_marks: list[int] = []  # session steps after each scenario step that ran
        self.scenario_loader = scenario_loader
        self.scenario_exporter = scenario_exporter
        self._initial_source = source
        self._initial_scenario = scenario
        self._tour = tour
        self._cursor_blink = cursor_blink
        self._keymap = dict(keymap or {})
        self._session: Session | None = None
        self._base_options: dict[str, object] = dict(session_options or {})
        self._session_options: dict[str, object] = dict(self._base_options)
        self._paddle_session: Session | None = None  # the Paddle side of a scenario, run in the worker
        self._paddle_ran = 0  # scenario steps run in it
        self.paddle_steps: dict[int, PaddleStep] = {}
        self._tabs_mounted = False
        self._jobs: deque[tuple[JobKind, object]] = deque()
        self._current_job: tuple[JobKind, object] | None = None
        if theme:
            self.theme = theme

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield ScenarioView(id="scenario")
                yield Transcript(id="transcript")
                yield CodeInput(self.history, Completer(self._namespace), id="input",
                                cursor_blink=self._cursor_blink)
            with Container(id="deck"):
                yield TensorsTable(id="tensors")
                yield Tabs(*(Tab(label, id=f"tab-{name}") for name, label in (*DETAILS, COMPARE)),
                           id="detail-tabs")
                yield StorageMap(id="storage")
                yield GraphPane(id="graph")
                yield InspectorPane(id="inspector")
                yield MemoryPane(id="memory")
                yield ComparePane(id="compare")
        yield Footer()

    def on_mount(self) -> None:
        if self._keymap:
            self.update_keymap(self._keymap)
        for name, _ in (*DETAILS, COMPARE):
            self.query_one(f"#{name}").add_class("detail")
        self.query_one(ScenarioView).display = False
        self.query_one(CodeInput).placeholder = "import torch   (Enter runs it)"
        self.narrow = self.size.width < NARROW_BELOW
        self._apply_narrow()
        self.query_one(CodeInput).focus()
        if self._initial_scenario is not None:
            self._session_options = {**self._base_options,
                                     **(getattr(self._initial_scenario, "session_options", None) or {})}
        self._enqueue("start", None)
        if self._initial_scenario is not None:
            self.open_scenario(self._initial_scenario)
        elif self._tour:
            self.action_tour()
        elif self._initial_source is not None:
            self._enqueue("run", self._initial_source)
        else:
            self.transcript.note("Type a statement below (start with `import torch`). "
                                 "ctrl+t: the tour · F1: help · ctrl+p: commands")

    def on_resize(self, event: events.Resize) -> None:
        self.narrow = event.size.width < NARROW_BELOW

    def watch_narrow(self) -> None:
        self._apply_narrow()

    def watch_detail(self) -> None:
        self._apply_narrow()
        self._refresh_panes()

    def _apply_narrow(self) -> None:
        deck = self.query_one("#deck")
        deck.set_class(self.narrow, "-narrow")
        self.screen.set_class(self.narrow, "-narrow")
        tabs = self.query_one("#detail-tabs", Tabs)
        tabs.display = self.narrow
        comparing = self.detail == "compare" and self.compares()
        deck.set_class(comparing and not self.narrow, "-compare")
        if self.compares():
            tabs.show("tab-compare")
        else:
            tabs.hide("tab-compare")
        for name, _ in (*DETAILS, COMPARE):
            self.query_one(f"#{name}").set_class(name == self.detail, "-shown")
        if self.narrow and tabs.active != f"tab-{self.detail}":
            tabs.active = f"tab-{self.detail}"
        self._refresh_panes()

    @on(Tabs.TabActivated, "#detail-tabs")
    def _tab_chosen(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if not self._tabs_mounted:  # the tabs activate their first tab on mount: not a choice
            self._tabs_mounted = True
            self._apply_narrow()
            return
        if event.tab.id and self.narrow:
            self.detail = event.tab.id.removeprefix("tab-")

    # ------------------------------------------------------------------ panes
    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def code_input(self) -> CodeInput:
        return self.query_one(CodeInput)

    def current_view(self) -> View:
        return View(self.snapshots, self.viewed, self.selected)

    def _refresh_panes(self) -> None:
        """Show the current view in every visible pane; each skips work when nothing it shows changed."""
        if not self.is_mounted:
            return
        view = self.current_view()
        self.query_one(TensorsTable).show(view)
        for pane in self.query(TextPane):
            if pane.display and not isinstance(pane, ScenarioView):
                pane.show(view)
        looking_back = self.viewed >= 0 and self.viewed != len(self.snapshots) - 1
        self.query_one("#deck").set_class(looking_back, "-past")
        table = self.query_one(TensorsTable)
        if looking_back:
            table.border_title = f"Tensors after step [{self.viewed}] of {len(self.snapshots)} (ctrl+g: latest)"
        else:
            table.border_title = "Tensors"
        self.transcript.mark_viewed(self.viewed if looking_back else None)

    def watch_viewed(self) -> None:
        self._refresh_panes()

    def watch_selected(self) -> None:
        self._refresh_panes()

    def watch_busy(self, busy: bool) -> None:
        self.code_input.set_class(busy, "-busy")
        self.code_input.border_title = "Input · running…" if busy else "Input"

    @on(TensorSelected)
    def _tensor_selected(self, event: TensorSelected) -> None:
        self.selected = event.name

    @on(StepChosen)
    def _step_chosen(self, event: StepChosen) -> None:
        self.viewed = -1 if event.index >= len(self.snapshots) - 1 else event.index

    @on(StatementSubmitted)
    def _statement_submitted(self, event: StatementSubmitted) -> None:
        self.run_source(event.source)

    # ------------------------------------------------------------------ the session, in a worker
    def run_source(self, source: str) -> None:
        """Queue source to run after whatever is running (nothing typed is dropped)."""
        self._enqueue("run", source)

    def _namespace(self) -> dict[str, object]:
        return self._session.namespace if self._session is not None else {}

    def _enqueue(self, kind: JobKind, payload: object) -> None:
        self._jobs.append((kind, payload))
        if self._current_job is None:
            self._next_job()

    def _next_job(self) -> None:
        if not self._jobs:
            self._current_job = None
            self.busy = False
            self.transcript.set_pending(None)
            return
        kind, payload = self._current_job = self._jobs.popleft()
        if kind in ("run", "step"):
            self.busy = True
            text = payload if isinstance(payload, str) else self._step_code(payload)
            self.transcript.set_pending(text)
        self._work(kind, payload)

    def _step_code(self, payload: object) -> str:
        if self.scenario is None or not isinstance(payload, int) or payload >= len(self.scenario.steps):
            return ""
        return self.scenario.steps[payload].code

    @work(thread=True, group="session", exit_on_error=False)
    def _work(self, kind: JobKind, payload: object) -> None:
        """Runs off the UI thread; reports back with one SessionUpdated message."""
        from tensorscope.interpreter import UserError
        from tensorscope.session import Session

        failure: str | None = None
        before = len(self._session.steps) if self._session is not None else 0
        replaced = False
        source: str | None = None
        paddle: PaddleStep | None = None
        try:
            if kind == "start":
                if self._session is None:
                    self._session = Session(**self._session_options)  # type: ignore[arg-type]
            elif kind == "reset":
                self._session = Session(**self._session_options)  # type: ignore[arg-type]
                self._paddle_session = None
                replaced = True
            elif kind == "undo":
                if self._session is not None and self._session.steps:
                    source = self._session.steps[-1].statement.source
                    self._session = self._session.undo()
                    replaced = True
            else:
                if self._session is None:
                    self._session = Session(**self._session_options)  # type: ignore[arg-type]
                source = payload if isinstance(payload, str) else self._step_code(payload)
                try:
                    self._session.run(source)
                except UserError as exc:
                    failure = f"{exc.info.type}: {exc.info.message}"
                if kind == "step" and isinstance(payload, int) and self.compares():
                    paddle = self._run_paddle(payload)
        except Exception as exc:  # the engine or the session failed: report it, keep the app alive
            failure = f"internal error: {type(exc).__name__}: {exc}"
        session = self._session
        snapshots = [step.snapshot for step in session.steps] if session is not None else []
        ran = 0 if replaced else max(len(snapshots) - before, 0)
        self.post_message(SessionUpdated(kind, payload, snapshots, ran, replaced, failure, source, paddle))

    def _run_paddle(self, index: int) -> PaddleStep:
        """Worker thread only: run scenario step `index` in the Paddle session, first replaying the
        steps before it when that session is not exactly there (after a reset or an undo)."""
        from tensorscope.interpreter import UserError
        from tensorscope.session import Session

        scenario = self.scenario
        code = getattr(scenario, "paddle_code", None)
        if code is None:
            return PaddleStep(index, None, "this scenario has no Paddle code")
        try:
            if self._paddle_session is None or self._paddle_ran != index:
                self._paddle_session, self._paddle_ran = Session(**self._session_options), 0  # type: ignore[arg-type]
                for earlier in range(index):
                    if code(earlier).strip():
                        self._paddle_session.run(code(earlier))
                    self._paddle_ran = earlier + 1
            before = len(self._paddle_session.steps)
            if code(index).strip():
                self._paddle_session.run(code(index))
            self._paddle_ran = index + 1
            return PaddleStep(index, [step.snapshot for step in self._paddle_session.steps[before:]])
        except UserError as exc:
            self._paddle_session = None
            return PaddleStep(index, None, f"the paddle code cannot run: {exc.info.type}: {exc.info.message}")
        except Exception as exc:  # the engine failed on the Paddle side: say so, keep the app alive
            self._paddle_session = None
            return PaddleStep(index, None, f"internal error on the paddle side: {type(exc).__name__}: {exc}")

    @on(SessionUpdated)
    def _session_updated(self, event: SessionUpdated) -> None:
        kind, payload = event.kind, event.payload
        self.snapshots = event.snapshots
        if event.paddle is not None:
            self.paddle_steps[event.paddle.index] = event.paddle
        if kind == "undo" and event.source is not None:
            self.transcript.note(f"undid: {event.source.splitlines()[0]}", "italic #e6c07b")
        if kind == "reset":
            self.transcript.note("session reset: a fresh engine, nothing defined", "italic #e6c07b")
        if event.failure is not None:
            if event.source is not None and kind in ("run", "step"):
                self.transcript.note(">>> " + event.source.splitlines()[0], "dim")
            self.transcript.note(event.failure, "bold #ff5252")
        self.transcript.set_pending(None)
        self.transcript.sync(self.snapshots, self.explain)
        if kind in ("undo", "reset"):
            self.scenario_marks = [m for m in self.scenario_marks if m <= len(self.snapshots)]
            if kind == "reset":
                self.scenario_marks = []
                self.paddle_steps = {}
            self.scenario_current = min(self.scenario_current, len(self.scenario_marks) - 1)
        if kind == "step" and isinstance(payload, int):
            self.scenario_marks.append(len(self.snapshots))
            self.scenario_current = payload
        self._update_scenario()
        if self.viewed != -1 and (kind != "start"):
            self.viewed = -1
        self._refresh_panes()
        self._next_job()

    # ------------------------------------------------------------------ scenarios
    def open_scenario(self, scenario: ScenarioLike) -> None:
        """Start a fresh session on a scenario; ctrl+n runs its steps one by one."""
        self.scenario = scenario
        self.scenario_current = -1
        self.scenario_marks = []
        self.paddle_steps = {}
        if self.compares():
            self.detail = "compare"  # a scenario in both dialects opens in the split view
        elif self.detail == "compare":
            self.detail = "storage"
        options = {**self._base_options, **(getattr(scenario, "session_options", None) or {})}
        if self.snapshots or options != self._session_options:
            self._session_options = options
            self._enqueue("reset", None)
        self._update_scenario()
        self.query_one(ScenarioView).display = True
        self.refresh_bindings()

    def close_scenario(self) -> None:
        self.scenario = None
        if self.detail == "compare":
            self.detail = "storage"
        self._update_scenario()
        self.refresh_bindings()

    def compares(self) -> bool:
        """The open scenario gives every step in both dialects: the Compare pane has something to show."""
        return bool(getattr(self.scenario, "has_paddle", False))

    def _update_compare(self) -> None:
        pane = self.query_one(ComparePane)
        scenario = self.scenario
        if scenario is None or not self.compares():
            pane.set_state(None)
            return
        index = max(self.scenario_current, 0)
        torch_code = scenario.steps[index].code
        paddle_code = scenario.paddle_code(index)  # type: ignore[attr-defined]
        setup = scenario.is_setup(index)  # type: ignore[attr-defined]
        offset = getattr(scenario, "offset", 0)  # the setup, a step of its own in the scenario pane
        title = "setup" if setup else f"step {index - offset + 1} of {len(scenario.steps) - offset}"
        ran = self.paddle_steps.get(index)
        state = CompareState(title, torch_code, paddle_code, setup=setup)
        if self.scenario_current < 0:
            state = CompareState(title, torch_code, paddle_code, setup=setup,
                                 waiting="not run yet: ctrl+n runs it in both dialects")
        elif ran is not None and ran.problem is not None:
            state = CompareState(title, torch_code, paddle_code, problem=ran.problem, setup=setup)
        elif ran is not None and ran.snapshots is not None and index < len(self.scenario_marks):
            found: tuple[str, ...] = ()
            upto = self.scenario_marks[index]
            since = self.scenario_marks[index - 1] if index else 0
            torch_snaps = self.snapshots[since:upto]
            if not setup and torch_snaps and ran.snapshots:
                from tensorscope.compare import differences
                from tensorscope.tui.scenario_adapter import step_final

                found = tuple(differences(step_final(torch_snaps), step_final(ran.snapshots)))
            state = CompareState(title, torch_code, paddle_code, found=found, setup=setup)
        pane.set_state(state)

    def _update_scenario(self) -> None:
        view = self.query_one(ScenarioView)
        results = None
        check = getattr(self.scenario, "check", None)
        if callable(check) and self.scenario_current >= 0:
            try:
                upto = self.scenario_marks[self.scenario_current]
                since = self.scenario_marks[self.scenario_current - 1] if self.scenario_current else 0
                results = check(self.scenario_current, self.snapshots[since:upto])
            except Exception as exc:  # a broken expectation must not take the app down
                results = [(f"expectations could not be checked: {exc}", False)]
        view.set_state(self.scenario, self.scenario_current, len(self.scenario_marks), results)
        self._update_compare()

    def _view_scenario_step(self, index: int) -> None:
        self.scenario_current = index
        last = self.scenario_marks[index] - 1
        self.viewed = -1 if last >= len(self.snapshots) - 1 else max(last, 0)
        self._update_scenario()

    # ------------------------------------------------------------------ actions
    def action_step_next(self) -> None:
        if self.scenario is not None:
            target = self.scenario_current + 1
            if target < len(self.scenario_marks):
                self._view_scenario_step(target)
            elif self._pending_steps() + len(self.scenario_marks) < len(self.scenario.steps):
                self._enqueue("step", len(self.scenario_marks) + self._pending_steps())
            else:
                self.notify("That was the last step of the scenario.", timeout=3)
            return
        if self.viewed == -1:
            self.notify("This is the latest step.", timeout=2)
            return
        self.viewed = -1 if self.viewed + 1 >= len(self.snapshots) - 1 else self.viewed + 1

    def _pending_steps(self) -> int:
        """Scenario steps queued or running, not yet reported back."""
        running = self._current_job is not None and self._current_job[0] == "step"
        return sum(1 for kind, _ in self._jobs if kind == "step") + running

    def action_step_back(self) -> None:
        if self.scenario is not None and self.scenario_current > 0:
            self._view_scenario_step(self.scenario_current - 1)
            return
        if not self.snapshots:
            return
        current = len(self.snapshots) - 1 if self.viewed == -1 else self.viewed
        if current == 0:
            self.notify("This is the first step.", timeout=2)
            return
        self.viewed = current - 1

    def action_run_to_end(self) -> None:
        if self.scenario is not None:
            queued = len(self.scenario_marks) + self._pending_steps()
            for index in range(queued, len(self.scenario.steps)):
                self._enqueue("step", index)
            if self.scenario_marks:
                self._view_scenario_step(len(self.scenario_marks) - 1)
        self.viewed = -1

    def action_undo(self) -> None:
        focused = self.focused
        if isinstance(focused, CodeInput) and focused.text:
            focused.action_undo()
            return
        self._enqueue("undo", None)

    async def action_quit(self) -> None:
        """Quit, keeping a half-typed statement in the history (nothing typed is lost)."""
        draft = self.code_input.text
        if draft.strip():
            self.history.add(draft.rstrip())
        await super().action_quit()

    def action_reset(self) -> None:
        self._enqueue("reset", None)

    def action_tour(self) -> None:
        from tensorscope.tui.scripts import script_scenario
        from tensorscope.tui.tour import TITLE, TOUR

        self.open_scenario(script_scenario(TOUR, TITLE))

    def action_focus_input(self) -> None:
        self.code_input.focus()

    def action_deselect(self) -> None:
        self.selected = None

    def action_show_compare(self) -> None:
        """Show the Compare pane (in the wide layout: in place of the four detail panes), or hide it."""
        if not self.compares():
            self.notify("The open scenario has no Paddle code to compare.", timeout=3)
            return
        self.detail = "storage" if self.detail == "compare" else "compare"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "show_compare":
            return self.compares()  # hidden from the footer unless a scenario speaks both dialects
        return True

    def action_next_detail(self) -> None:
        names = [name for name, _ in (*DETAILS, COMPARE) if name != "compare" or self.compares()]
        self.detail = names[(names.index(self.detail) + 1) % len(names)] if self.detail in names else names[0]

    def action_help(self) -> None:
        from tensorscope.tui.help import HelpScreen

        pane = self._focused_pane()
        self.push_screen(HelpScreen(pane.HELP if pane is not None else "", GENERAL_HELP,
                                    self.active_bindings_help()))

    def _focused_pane(self) -> Pane | None:
        node: Widget | None = self.focused
        while node is not None:
            if isinstance(node, Pane):
                return node
            parent = node.parent
            node = parent if isinstance(parent, Widget) else None
        return None

    def active_bindings_help(self) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        for active in self.active_bindings.values():
            binding = active.binding
            if binding.description:
                rows.append((self.get_key_display(binding), binding.description))
        return rows

    def action_open_file(self) -> None:
        from tensorscope.tui.help import PathPrompt

        self.push_screen(PathPrompt("Open a scenario (.yaml) or script (.py)", ""), self.open_path)

    def open_path(self, path: str | None) -> None:
        if not path:
            return
        file = Path(path).expanduser()
        try:
            if file.suffix in (".yaml", ".yml"):
                if self.scenario_loader is None:
                    self.transcript.note(f"{path}: scenarios need the scenario loader (not wired in yet)",
                                         "bold #ff5252")
                    return
                scenario = self.scenario_loader(file)
            else:
                from tensorscope.tui.scripts import script_scenario

                scenario = script_scenario(file.read_text(encoding="utf-8"), file.name)
        except Exception as exc:  # unreadable file, syntax error, bad scenario: say so and go on
            info = getattr(exc, "info", None)
            reason = f"{info.type}: {info.message}" if info is not None else f"{type(exc).__name__}: {exc}"
            self.transcript.note(f"cannot open {path}: {reason}", "bold #ff5252")
            return
        self.open_scenario(scenario)

    def action_save_script(self) -> None:
        from tensorscope.tui.help import PathPrompt

        self.push_screen(PathPrompt("Save the session as a script", "tensorscope_session.py"),
                         self.save_script)

    def save_script(self, path: str | None) -> None:
        if not path:
            return
        text = "\n".join(s.source for s in self.snapshots) + ("\n" if self.snapshots else "")
        if path.endswith((".yaml", ".yml")):
            if self.scenario_exporter is None:
                self.transcript.note("saving as a scenario needs the scenario exporter (not wired in yet)",
                                     "bold #ff5252")
                return
            text = self.scenario_exporter([s.source for s in self.snapshots])
        try:
            Path(path).expanduser().write_text(text, encoding="utf-8")
        except OSError as exc:
            self.transcript.note(f"cannot write {path}: {exc.strerror}", "bold #ff5252")
            return
        self.transcript.note(f"saved {len(self.snapshots)} statements to {path}", "italic #e6c07b")

    def action_screenshot_svg(self) -> None:
        path = self.save_screenshot()
        self.transcript.note(f"screenshot saved to {path}", "italic #e6c07b")
