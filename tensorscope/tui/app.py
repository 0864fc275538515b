"""The explorer app: a thin shell wiring the panes to the session controller (tui/controller.py),
whose sessions run user code in worker processes."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Container, Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer, Tab, Tabs

from tensorscope.printable import plural, shorten
from tensorscope.tui.actions import ACTIONS, bindings
from tensorscope.tui.completion import Completer
from tensorscope.tui.controller import Controller, Job, Runner, SessionFactory, Update
from tensorscope.tui.format import ERROR, WARNING, view_colour_variables
from tensorscope.tui.hints import pane_for_error, pane_for_step, stale_hint
from tensorscope.tui.history import History
from tensorscope.tui.messages import (
    SessionUpdated,
    StatementSubmitted,
    StepChosen,
    TensorSelected,
)
from tensorscope.tui.palette import ExplorerCommands
from tensorscope.tui.panes.base import Pane, TextPane, View
from tensorscope.tui.panes.code_input import CodeInput
from tensorscope.tui.panes.compare import ComparePane
from tensorscope.tui.panes.graph import GraphPane
from tensorscope.tui.panes.inspector import InspectorPane
from tensorscope.tui.panes.lines import LinesPane
from tensorscope.tui.panes.memory import MemoryPane
from tensorscope.tui.panes.scenario import ScenarioLike, ScenarioView
from tensorscope.tui.panes.storage_map import StorageMap
from tensorscope.tui.panes.tensors import TensorsTable
from tensorscope.tui.panes.transcript import Transcript
from tensorscope.tui.saved_session import SavedSession, SessionStore

if TYPE_CHECKING:
    from tensorscope.session import SessionLike, SessionOptions
    from tensorscope.snapshot import Snapshot

Explain = Callable[[list["Snapshot"]], "str | None"]
ScenarioLoader = Callable[[Path], ScenarioLike]

NARROW_BELOW = 110  # columns: below this the detail panes share one place, switched by tabs
DETAILS = (("storage", "Storage F3"), ("graph", "Graph F4"), ("inspector", "Inspector F5"), ("memory", "Memory F6"))
COMPARE = ("compare", "Compare F2")  # a detail pane too, for scenarios with Paddle code only
EXPLORER_ACTIONS = frozenset(spec.action.partition("(")[0] for spec in ACTIONS) - {"help"}
PANE_KEYS = {"storage": "F3", "graph": "F4", "inspector": "F5", "memory": "F6", "compare": "F2"}

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

**tab** / **shift+tab** move between panes, **F3** storage map, **F4** graph, **F5** inspector,
**F6** memory (in a narrow terminal they share one place: these keys bring one forward),
**escape** returns to the input, **ctrl+n** / **ctrl+b** step forward and back, **ctrl+g** runs to
the end, **ctrl+t** takes the tour, **ctrl+o** opens a scenario or script, **ctrl+s** saves the session
as a script, **ctrl+r** resets it, **ctrl+p** opens the command palette (all of these and more:
screenshot, theme), **ctrl+c** stops a running statement, **ctrl+q** quits.

Nothing typed is lost: **ctrl+z** takes back the last statement and **ctrl+y** runs it again;
opening a file, the tour or a reset ask first; the session is saved as you go and the next start
offers to resume it.

Statements run in a worker process with a time limit per statement (10 s unless `--time-limit`
says otherwise) and a memory limit; when one is stopped (time, ctrl+c, a crash), a fresh worker
replays the statements before it and the session goes on.
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
                 keymap: dict[str, str] | None = None, theme: str | None = None,
                 session_options: SessionOptions | None = None,
                 session_factory: SessionFactory | None = None, runner: Runner | None = None,
                 store: SessionStore | None = None, scenario_source: dict[str, Any] | None = None,
                 notices: Sequence[str] = ()) -> None:
        """
        Args:
            source: statements to run at start (a script opened from the command line).
            scenario: a scenario to open at its first step.
            explain: turns the snapshots up to a failing step into the explanation shown under it.
            history: the input history (in memory when None).
            tour: open the tour (what a first run does).
            cursor_blink: False for snapshot tests.
            scenario_loader: reads a `.yaml` scenario for "open" (issue 5's loader).
            keymap: binding id -> keys, overriding the defaults.
            theme: a Textual theme name.
            session_options: Session keywords for every run (e.g. `cuda=False` for `--no-cuda`).
            session_factory: makes a session from Session keywords (default: a WorkerSession with
                the default limits; tests may pass the in-process Session).
            runner: where the controller runs jobs (default: a thread of its own).
            store: where the session is saved as it goes (and offered for resuming at start);
                None keeps nothing (tests, browser tabs).
            scenario_source: how to open `scenario` again when a saved session resumes it
                (`{"path": ...}`).
            notices: lines for the transcript at start (what was wrong with the keymap file).
        """
        super().__init__()
        self.explain: Explain = explain or stale_hint
        self.history = history or History(None)
        self.scenario_loader = scenario_loader
        self.controller = Controller(session_factory or _worker_session, self._job_done, runner, session_options)
        self._initial_source = source
        self._initial_scenario = scenario
        self._tour = tour
        self._cursor_blink = cursor_blink
        self._keymap = dict(keymap or {})
        self._tabs_mounted = False
        self._brought_for = -1  # the scenario step whose pane was last brought forward
        self._resume_pending = False  # the saved session waits for an answer: do not overwrite it
        self.store = store or SessionStore(None)
        self._scenario_source = scenario_source if scenario is not None else None
        self._notices = tuple(notices)
        if theme:
            self.theme = theme

    def get_css_variables(self) -> dict[str, str]:
        """The theme's variables, and the colours of views (`$view-0` …) for its background."""
        variables = super().get_css_variables()
        variables.update(view_colour_variables(self.current_theme.dark))
        return variables

    # ------------------------------------------------------------------ the controller's state
    @property
    def snapshots(self) -> list[Snapshot]:
        return self.controller.snapshots

    @property
    def scenario(self) -> ScenarioLike | None:
        return self.controller.scenario

    @property
    def scenario_current(self) -> int:
        return self.controller.scenario_current

    @property
    def scenario_marks(self) -> list[int]:
        return self.controller.scenario_marks

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield ScenarioView(id="scenario")
                yield Transcript(id="transcript")
                yield CodeInput(self.history, Completer(self.controller.complete), id="input",
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
            pane = self.query_one(f"#{name}")
            pane.add_class("detail")
            pane.border_title = f"{pane.border_title} · {PANE_KEYS[name]}"
        self.query_one(ScenarioView).display = False
        self.query_one(CodeInput).placeholder = "import torch   (Enter runs it)"
        self.narrow = self.size.width < NARROW_BELOW
        self._apply_narrow()
        self.query_one(CodeInput).focus()
        for notice in self._notices:
            self.transcript.note(notice, WARNING)
        if self._initial_scenario is not None:
            self.controller.options = self.controller.options_for(self._initial_scenario)
        self.controller.enqueue(Job("start"))  # the worker starts while the screen paints
        saved = self.store.load()
        if saved is not None and (self._initial_scenario is not None or self._initial_source is not None):
            self._keep_aside(saved)  # a file asked for on the command line: the saved session is kept
            saved = None
        if self._initial_scenario is not None:
            self.open_scenario(self._initial_scenario, self._scenario_source)
        elif saved is not None:
            self._resume_pending = True
            self._offer_resume(saved)
        elif self._tour:
            self.action_tour()
        elif self._initial_source is not None:
            self.controller.run_source(self._initial_source)
        else:
            self._greet()
        self.call_after_refresh(_warm_up)

    def _greet(self) -> None:
        self.transcript.note("Type a statement below (start with `import torch`). "
                             "ctrl+t: the tour · F1: help · ctrl+p: commands", "dim")

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
        for pane in self.query(".detail"):
            if pane.display and isinstance(pane, (TextPane, LinesPane)):
                pane.show(view)
        looking_back = self.viewed >= 0 and self.viewed != len(self.snapshots) - 1
        self.query_one("#deck").set_class(looking_back, "-past")
        table = self.query_one(TensorsTable)
        if looking_back:  # the transcript's numbering: [n] is statement n, as the scenario pane says too
            table.border_title = f"Tensors after [{self.viewed}] (latest [{len(self.snapshots) - 1}]: ctrl+g)"
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
        self.controller.run_source(source)
        self._show_busy()

    def _job_done(self, update: Update) -> None:
        """The controller's thread: hand the result to the app's thread."""
        self.post_message(SessionUpdated(update))

    def _show_busy(self) -> None:
        job = self.controller.current_job
        running = job is not None and job.kind in ("run", "step")
        self.busy = running
        self.transcript.set_pending(job.source if job is not None and running else None)

    @on(SessionUpdated)
    def _session_updated(self, event: SessionUpdated) -> None:
        update = event.update
        kind = update.job.kind
        self.controller.apply(update)
        if kind == "undo" and update.source is not None:
            self.transcript.note(f"undid: {shorten(update.source.splitlines()[0], 80)} (ctrl+y runs it again)")
        if kind == "reset":
            self.transcript.note("session reset: a fresh engine, nothing defined")
        if kind == "replay":
            self.transcript.note(f"resumed: {len(self.snapshots)} statements replayed")
        if update.failure is not None:
            if update.source is not None and kind in ("run", "step"):
                self.transcript.note(">>> " + shorten(update.source, 200), "dim")
            self.transcript.note(update.failure, f"bold {ERROR}")
        self.transcript.set_pending(None)
        self.transcript.sync(self.snapshots, self.explain)
        self._update_scenario()
        if self.viewed != -1 and kind != "start":
            self.viewed = -1
        if update.ran and self.snapshots[-1].error is not None:
            self.bring_forward(pane_for_error(self.snapshots))
        self._refresh_panes()
        self._show_busy()
        self.save_session()

    # ------------------------------------------------------------------ nothing lost
    def saved_session(self) -> SavedSession:
        controller = self.controller
        return SavedSession(tuple(controller.statements), self.code_input.text,
                            self._scenario_source if controller.scenario is not None else None,
                            tuple(controller.scenario_marks), controller.scenario_current)

    def save_session(self) -> None:
        """Keep the session on disk as it goes (a quit or a closed terminal loses nothing); not
        while the saved one waits for the user to say whether to resume it."""
        if not self._resume_pending:
            self.store.save(self.saved_session())

    def _offer_resume(self, saved: SavedSession) -> None:
        from tensorscope.tui.help import ConfirmScreen

        def answered(resume: bool | None) -> None:
            self._resume_pending = False
            if resume:
                self.resume(saved)
            else:
                self.store.set_aside()
                self._greet()

        self.push_screen(ConfirmScreen("Resume your last session?", saved.describe(), "Resume",
                                       "Start afresh"), answered)

    def _keep_aside(self, saved: SavedSession) -> None:
        """The last session, when the explorer starts on a file instead: it would be overwritten by
        the first statement, so it moves to session.previous.json and the transcript says so."""
        self.store.set_aside()
        if self.store.path is not None:
            self.transcript.note(f"your last session ({saved.describe()}) is kept in "
                                 f"{self.store.path.with_name('session.previous.json')}", "dim")

    def resume(self, saved: SavedSession) -> None:
        """Replay a saved session's statements, reopen its scenario and put back what was typed."""
        scenario = None
        if saved.scenario is not None:
            try:
                scenario = self._reopen(saved.scenario)
            except Exception as exc:  # noqa: BLE001 - a moved or broken file: resume without it
                self.transcript.note(f"the scenario cannot be opened again ({exc}); its statements are replayed")
        if scenario is not None:
            self.open_scenario(scenario, saved.scenario)
        self.controller.resume(saved.statements, scenario, saved.marks, saved.current)
        if saved.draft and not self.code_input.text:
            self.code_input.load_text(saved.draft)
            self.code_input.move_cursor(self.code_input.document.end)
        self._show_busy()

    def _reopen(self, source: dict[str, Any]) -> ScenarioLike | None:
        if source.get("tour"):
            from tensorscope.tui.scripts import script_scenario
            from tensorscope.tui.tour import TITLE, TOUR

            return script_scenario(TOUR, TITLE)
        path = source.get("path")
        return self.load_file(Path(path)) if isinstance(path, str) else None

    def confirm_discard(self, what: str, then: Callable[[], object]) -> None:
        """Run `then` at once when the session holds nothing; otherwise ask first (Enter confirms)."""
        if not self.snapshots and not self.controller.jobs:
            then()
            return
        from tensorscope.tui.help import ConfirmScreen

        count = len(self.snapshots)
        detail = (f"The {count} statement{'s' if count != 1 else ''} of this session will be gone "
                  "(ctrl+s saves them as a script first).")

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.push_screen(ConfirmScreen(what, detail, "Yes", "Keep my session"), answered)

    def bring_forward(self, pane: str | None) -> None:
        """In a narrow terminal, show the detail pane a step or an error talks about."""
        if pane is not None and self.narrow and pane != self.detail and (pane != "compare" or self.compares()):
            self.detail = pane

    # ------------------------------------------------------------------ scenarios
    def open_scenario(self, scenario: ScenarioLike, source: dict[str, Any] | None = None) -> None:
        """Start a fresh session on a scenario; ctrl+n runs its steps one by one. `source` says how
        to open it again when a saved session resumes."""
        self._scenario_source = source
        self.controller.open_scenario(scenario)
        if self.compares():
            self.detail = "compare"  # a scenario in both dialects opens in the split view
        elif self.detail == "compare":
            self.detail = "storage"
        self._update_scenario()
        self.query_one(ScenarioView).display = True
        self.refresh_bindings()

    def close_scenario(self) -> None:
        self.controller.close_scenario()
        if self.detail == "compare":
            self.detail = "storage"
        self._update_scenario()
        self.refresh_bindings()

    def compares(self) -> bool:
        """The open scenario gives every step in both dialects: the Compare pane has something to show."""
        return self.controller.compares()

    def _update_scenario(self) -> None:
        controller = self.controller
        current = controller.scenario_current
        statements = None
        if 0 <= current < len(controller.scenario_marks):
            first = controller.scenario_marks[current - 1] if current else 0
            statements = (first, controller.scenario_marks[current] - 1)
        self.query_one(ScenarioView).set_state(controller.scenario, current, len(controller.scenario_marks),
                                               controller.step_results(), statements)
        self.query_one(ComparePane).set_state(controller.compare_state())
        scenario = controller.scenario
        if scenario is not None and 0 <= current < len(scenario.steps) and current != self._brought_for:
            self._brought_for = current
            self.bring_forward(pane_for_step(scenario.steps[current].say))

    def _view_scenario_step(self) -> None:
        self.viewed = self.controller.last_snapshot_of_step(self.controller.scenario_current)
        self._update_scenario()

    # ------------------------------------------------------------------ actions
    def action_step_next(self) -> None:
        if self.scenario is not None:
            moved = self.controller.step_next()
            if moved == "viewed":
                self._view_scenario_step()
            elif moved == "queued":
                self._show_busy()
            else:
                self.notify("That was the last step of the scenario.", timeout=3)
            return
        if self.viewed == -1:
            self.notify("This is the latest step.", timeout=2)
            return
        self.viewed = -1 if self.viewed + 1 >= len(self.snapshots) - 1 else self.viewed + 1

    def action_step_back(self) -> None:
        if self.scenario is not None and self.scenario_current > 0:
            self.controller.scenario_current -= 1
            self._view_scenario_step()
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
            self.controller.run_to_end()
            if self.scenario_marks:
                self._view_scenario_step()
            self._show_busy()
        self.viewed = -1

    def action_undo(self) -> None:
        focused = self.focused
        if isinstance(focused, CodeInput) and focused.text:
            focused.action_undo()
            return
        self.controller.enqueue(Job("undo"))

    def action_redo(self) -> None:
        """ctrl+y: redo typing in the input, else run again the statement undo took back."""
        focused = self.focused
        if isinstance(focused, CodeInput) and focused.text:
            focused.action_redo()
            return
        if self.controller.redo() is None:
            self.notify("Nothing to redo: ctrl+y runs again a statement ctrl+z took back.", timeout=3)
        else:
            self._show_busy()

    def action_interrupt(self) -> None:
        """ctrl+c while a statement runs: stop it (the worker is replaced, the session replayed)."""
        if self.controller.interrupt():
            self.transcript.set_pending("stopping…")

    async def action_quit(self) -> None:
        """Quit, keeping a half-typed statement in the history and the saved session (nothing
        typed is lost)."""
        draft = self.code_input.text
        if draft.strip():
            self.history.add(draft.rstrip())
        self.save_session()
        await super().action_quit()

    def on_unmount(self) -> None:
        self.controller.close()

    def action_reset(self) -> None:
        self.confirm_discard("Reset the session?", lambda: self.controller.enqueue(Job("reset")))

    def action_tour(self) -> None:
        self.confirm_discard("Open the tour in place of this session?", self.open_tour)

    def open_tour(self) -> None:
        from tensorscope.tui.scripts import script_scenario
        from tensorscope.tui.tour import TITLE, TOUR

        self.open_scenario(script_scenario(TOUR, TITLE), {"tour": True})

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
        if isinstance(self.screen, ModalScreen) and action in EXPLORER_ACTIONS:
            return False  # a question, the help or a prompt is up: keys are theirs
        if action == "show_compare":
            return self.compares()  # hidden from the footer unless a scenario speaks both dialects
        if action == "interrupt":
            return self.busy  # otherwise ctrl+c copies (in the input) or says how to quit
        return True

    def action_show_pane(self, name: str) -> None:
        """F3–F6: bring a detail pane forward (narrow, or out of the Compare view) and focus it."""
        if self.narrow or self.detail == "compare":
            self.detail = name
        self.query_one(f"#{name}").focus()

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

        self.push_screen(PathPrompt("Open a scenario (.yaml), a script (.py) or a bundled scenario by name", ""),
                         self.ask_open_path)

    def ask_open_path(self, path: str | None) -> None:
        """Open a file in place of the session, asking first when that would discard work."""
        if path:
            self.confirm_discard(f"Open {Path(path).name} in place of this session?", lambda: self.open_path(path))

    def load_file(self, file: Path) -> ScenarioLike:
        """A `.yaml` scenario or a `.py` script as a scenario; raises what the loader raises."""
        if file.suffix in (".yaml", ".yml"):
            if self.scenario_loader is None:
                raise ValueError("scenarios need the scenario loader")
            return self.scenario_loader(file)
        from tensorscope.script_file import read_script
        from tensorscope.tui.scripts import script_scenario

        return script_scenario(read_script(file), file.name)

    def open_path(self, path: str | None) -> None:
        """Open a file, or a bundled scenario by the name `tensorscope list` prints (as `open` does)."""
        if not path:
            return
        from tensorscope.cli import NoSuchFile, resolve_file

        file = Path(path).expanduser()
        with contextlib.suppress(NoSuchFile):  # a missing file is said by load_file below
            file = Path(resolve_file(str(file)))
        try:
            scenario = self.load_file(file)
        except Exception as exc:  # unreadable file, syntax error, bad scenario: say so and go on
            from tensorscope.scenario import ScenarioError
            from tensorscope.script_file import ScriptFileError

            info = getattr(exc, "info", None)
            reason = f"{info.type}: {info.message}" if info is not None else \
                str(exc) if isinstance(exc, (ScriptFileError, ScenarioError)) else f"{type(exc).__name__}: {exc}"
            self.transcript.note(f"cannot open {path}: {reason}", f"bold {ERROR}")
            return
        self.open_scenario(scenario, {"path": str(file.resolve())})

    def action_save_script(self) -> None:
        from tensorscope.tui.help import PathPrompt

        self.push_screen(PathPrompt("Save the session as a script (.py)", "tensorscope_session.py"),
                         self.save_script)

    def action_save_scenario(self) -> None:
        from tensorscope.tui.help import PathPrompt

        self.push_screen(PathPrompt("Save the session as a scenario (.yaml)", "tensorscope_session.yaml"),
                         self.save_script)

    def save_script(self, path: str | None) -> None:
        """Write the session to `path`: a scenario when it ends in .yaml/.yml, else a script; a file
        already there is replaced only when the user says so (it may be their own training script)."""
        if not path:
            return
        if Path(path).expanduser().is_file():
            from tensorscope.tui.help import ConfirmScreen

            def answered(replace: bool | None) -> None:
                if replace:
                    self._write_session(path)

            self.push_screen(ConfirmScreen(f"Replace {Path(path).name}?", f"{path} exists: saving writes this "
                                           "session over it.", "Replace", "Keep the file"), answered)
            return
        self._write_session(path)

    def _write_session(self, path: str) -> None:
        scenario = path.endswith((".yaml", ".yml"))
        text = self.controller.export_scenario() if scenario else self.controller.export_script()
        try:
            Path(path).expanduser().write_text(text, encoding="utf-8")
        except OSError as exc:
            self.transcript.note(f"cannot write {path}: {exc.strerror}", f"bold {ERROR}")
            return
        kind = "a scenario" if scenario else "a script"
        self.transcript.note(f"saved {plural(len(self.snapshots), 'statement')} to {path} as {kind}")

    def action_screenshot_svg(self) -> None:
        try:
            path = self.save_screenshot()
        except OSError as exc:
            self.transcript.note(f"cannot save the screenshot: {exc.strerror}", f"bold {ERROR}")
            return
        self.transcript.note(f"screenshot saved to {path}")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's own commands, less those the explorer does its own way (its screenshot)."""
        for command in super().get_system_commands(screen):
            if command.title.lower() != "screenshot":
                yield command


def _warm_up() -> None:
    """After the first paint: import in the background what the first F1, error or scenario needs."""
    import threading

    def load() -> None:
        import textual.highlight  # noqa: F401

        import tensorscope.report  # noqa: F401 - the transcript's change notes

    threading.Thread(target=load, name="tensorscope-warm-up", daemon=True).start()


def _worker_session(**options: Any) -> SessionLike:
    """The default session: user code in a worker process with the default limits."""
    from tensorscope.worker.client import WorkerSession

    return WorkerSession(**options)
