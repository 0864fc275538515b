"""The explorer's session work, apart from its screen: the job queue, the sessions (each in its
worker process), and how far a scenario has got.

Jobs run one at a time on a runner: in the app a thread of the controller's own that lives as long
as the app (a worker process is tied to the thread that started it), in tests an inline runner, so
a test drives the controller without Pilot. A job's result comes back as an `Update`, which the
screen's thread hands to `apply` before showing it; every field of the controller but the sessions
is read and written on that thread only.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from tensorscope.tui.messages import PaddleStep
from tensorscope.tui.panes.compare import CompareState
from tensorscope.tui.panes.scenario import ScenarioLike

if TYPE_CHECKING:
    from tensorscope.session import SessionLike, SessionOptions
    from tensorscope.snapshot import Snapshot

SessionFactory = Callable[..., "SessionLike"]
JobKind = Literal["start", "run", "undo", "reset", "step", "replay"]


# ------------------------------------------------------------------ what a scenario may offer
@runtime_checkable
class CheckedScenario(ScenarioLike, Protocol):
    """A scenario whose steps have expectations (a YAML scenario)."""

    def check(self, index: int, snapshots: Sequence[Snapshot]) -> list[tuple[str, bool]]: ...


@runtime_checkable
class ConfiguredScenario(ScenarioLike, Protocol):
    """A scenario that asks for its own session options (its simulated device)."""

    @property
    def session_options(self) -> SessionOptions: ...


@runtime_checkable
class DualScenario(ScenarioLike, Protocol):
    """A scenario told in torch and in paddle; its first `offset` steps are its setup."""

    @property
    def has_paddle(self) -> bool: ...

    @property
    def offset(self) -> int: ...

    def paddle_code(self, index: int) -> str: ...

    def is_setup(self, index: int) -> bool: ...


def dual(scenario: ScenarioLike | None) -> DualScenario | None:
    """The scenario when it gives every step in both dialects, else None."""
    return scenario if isinstance(scenario, DualScenario) and scenario.has_paddle else None


# ------------------------------------------------------------------ jobs and their results
@dataclass(frozen=True)
class Job:
    kind: JobKind
    source: str = ""  # what a "run" or "step" job runs
    index: int = -1  # a "step" job's scenario step
    scenario: ScenarioLike | None = field(default=None, compare=False)  # a "step" job's scenario
    sources: tuple[str, ...] = ()  # a "replay" job's statements, run one by one (a resumed session)
    redo: bool = False  # a "run" job running again what undo took back (the rest stays redoable)


@dataclass(frozen=True)
class Update:
    """What a job did: the session's snapshots after it and what the screen should say.

    `ran` is how many snapshots are new (0 after an undo or a reset); `failure` is a message for
    the transcript when the source could not run at all (a SyntaxError, a worker that cannot
    start); `paddle` is the Paddle side of a scenario step; `statements` the exact text of every
    statement the session holds that ran to its end (what a saved session replays)."""

    job: Job
    snapshots: list[Snapshot]
    ran: int
    replaced: bool
    failure: str | None = None
    source: str | None = None
    paddle: PaddleStep | None = None
    statements: tuple[str, ...] = ()
    undone: str | None = None  # the exact text of the statement an undo took back


class Runner(Protocol):
    def submit(self, work: Callable[[], None]) -> None: ...

    def close(self, wait: float = 5.0) -> None: ...


class InlineRunner:
    """Runs each job at once, on the caller's thread (tests)."""

    def submit(self, work: Callable[[], None]) -> None:
        work()

    def close(self, wait: float = 5.0) -> None:
        """Nothing runs in the background."""


class ThreadRunner:
    """One long-lived thread that runs jobs in order."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="tensorscope-sessions", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while (work := self._jobs.get()) is not None:
            work()

    def submit(self, work: Callable[[], None]) -> None:
        self._jobs.put(work)

    def close(self, wait: float = 5.0) -> None:
        """Finish the queued work, waiting at most `wait` seconds (a statement may still run: its
        worker then ends with this process)."""
        self._jobs.put(None)
        self._thread.join(timeout=wait)


# ------------------------------------------------------------------ the controller
class Controller:
    """The sessions of one explorer, the queue of work for them, and scenario progress."""

    def __init__(self, session_factory: SessionFactory, notify: Callable[[Update], None],
                 runner: Runner | None = None, options: SessionOptions | None = None) -> None:
        """
        Args:
            session_factory: makes a session from Session keywords (a WorkerSession in the app).
            notify: called on the runner's thread with each job's Update; the app posts it to its
                own thread, which calls `apply`.
            runner: where jobs run (a ThreadRunner unless given).
            options: Session keywords for every session (`cuda=False` for `--no-cuda`).
        """
        self.session_factory = session_factory
        self.notify = notify
        self.runner: Runner = runner or ThreadRunner()
        self.base_options: SessionOptions = options.copy() if options else {}
        self.options: SessionOptions = self.base_options.copy()
        self.snapshots: list[Snapshot] = []
        self.jobs: deque[Job] = deque()
        self.current_job: Job | None = None
        self.scenario: ScenarioLike | None = None
        self.scenario_current = -1  # the scenario step in view; -1 before the first
        self.scenario_marks: list[int] = []  # how many snapshots there were after each step that ran
        self.paddle_steps: dict[int, PaddleStep] = {}
        self.statements: tuple[str, ...] = ()  # the session's statements, as a saved session keeps them
        self.undone: list[str] = []  # statements taken back by undo, latest last (redo runs them again)
        # the runner's thread only:
        self._resumed: tuple[list[int], int] | None = None
        self._session: SessionLike | None = None
        self._paddle_session: SessionLike | None = None
        self._paddle_ran = 0  # scenario steps run in the Paddle session

    # ------------------------------------------------------------------ the queue
    @property
    def busy(self) -> bool:
        return self.current_job is not None

    @property
    def session(self) -> SessionLike | None:
        """The main session (the runner's thread replaces it on reset and undo)."""
        return self._session

    def enqueue(self, job: Job) -> None:
        """Queue a job after whatever runs (nothing typed is dropped)."""
        self.jobs.append(job)
        if self.current_job is None:
            self._next_job()

    def run_source(self, source: str) -> None:
        self.enqueue(Job("run", source))

    def redo(self) -> str | None:
        """Run the statement undo took back last again; None when there is none."""
        if not self.undone:
            return None
        source = self.undone.pop()
        self.enqueue(Job("run", source, redo=True))
        return source

    def resume(self, statements: Sequence[str], scenario: ScenarioLike | None = None,
               marks: Sequence[int] = (), current: int = -1) -> None:
        """Replay a saved session: its statements, and how far its scenario had got."""
        if scenario is not None:
            self.open_scenario(scenario)
        self.enqueue(Job("replay", sources=tuple(statements)))
        self._resumed = (list(marks), current)

    def _next_job(self) -> None:
        if not self.jobs:
            self.current_job = None
            return
        job = self.current_job = self.jobs.popleft()
        self.runner.submit(lambda: self.notify(self._execute(job)))

    def interrupt(self) -> bool:
        """Stop the statement running now (ctrl+c); False when nothing runs."""
        if self.current_job is None or self.current_job.kind not in ("run", "step"):
            return False
        for session in (self._session, self._paddle_session):
            if session is not None:
                session.interrupt()
        return True

    def apply(self, update: Update) -> None:
        """Take a job's result in (on the screen's thread), then start the next job."""
        kind = update.job.kind
        self.snapshots = update.snapshots
        self.statements = update.statements
        if kind == "undo" and update.source is not None:
            self.undone.append(update.undone or update.source)
        elif kind == "step" or kind == "reset" or (kind == "run" and not update.job.redo and update.ran):
            self.undone = []
        if kind == "replay" and self._resumed is not None:
            marks, current = self._resumed
            self._resumed = None
            if self.scenario is not None:
                self.scenario_marks = [m for m in marks if m <= len(self.snapshots)]
                self.scenario_current = min(current, len(self.scenario_marks) - 1)
        if update.paddle is not None:
            self.paddle_steps[update.paddle.index] = update.paddle
        if kind == "reset":
            self.scenario_marks = []
            self.paddle_steps = {}
        elif kind == "undo":
            self.scenario_marks = [m for m in self.scenario_marks if m <= len(self.snapshots)]
        if kind in ("undo", "reset"):
            self.scenario_current = min(self.scenario_current, len(self.scenario_marks) - 1)
        if kind == "step":
            self.scenario_marks.append(len(self.snapshots))
            self.scenario_current = update.job.index
        self._next_job()

    def complete(self, word: str) -> list[str]:
        """Completion candidates from the session's namespace (none while it is busy)."""
        session = self._session
        return session.complete(word) if session is not None else []

    def export_script(self) -> str:
        session = self._session
        return session.export_script() if session is not None else ""

    def export_scenario(self, title: str = "A recorded session") -> str:
        from tensorscope.session import scenario_text

        session = self._session
        return session.export_scenario(title) if session is not None else scenario_text([], title)

    def close(self) -> None:
        """End the sessions' workers and the runner (the app is quitting)."""
        def end() -> None:
            for session in (self._session, self._paddle_session):
                if session is not None:
                    session.close()
            self._session = self._paddle_session = None

        self.runner.submit(end)
        self.runner.close(wait=1.0)

    # ------------------------------------------------------------------ scenarios
    def open_scenario(self, scenario: ScenarioLike) -> None:
        """Start a fresh session on a scenario; its steps run one by one (`step_next`)."""
        self.scenario = scenario
        self.scenario_current = -1
        self.scenario_marks = []
        self.paddle_steps = {}
        options = self.options_for(scenario)
        if self.snapshots or options != self.options:
            self.options = options
            self.enqueue(Job("reset"))

    def options_for(self, scenario: ScenarioLike) -> SessionOptions:
        """The session keywords for a scenario: the app's, with the scenario's own on top."""
        options = self.base_options.copy()
        if isinstance(scenario, ConfiguredScenario):
            options.update(scenario.session_options)
        return options

    def close_scenario(self) -> None:
        self.scenario = None

    def compares(self) -> bool:
        """The open scenario gives every step in both dialects: the Compare pane has something to show."""
        return dual(self.scenario) is not None

    def pending_steps(self) -> int:
        """Scenario steps queued or running, not yet reported back."""
        running = self.current_job is not None and self.current_job.kind == "step"
        return sum(1 for job in self.jobs if job.kind == "step") + running

    def queue_step(self, index: int) -> None:
        assert self.scenario is not None
        self.enqueue(Job("step", self.scenario.steps[index].code, index, self.scenario))

    def step_next(self) -> Literal["viewed", "queued", "last"]:
        """Move to the next scenario step: view it again if it ran, else run it."""
        assert self.scenario is not None
        target = self.scenario_current + 1
        if target < len(self.scenario_marks):
            self.scenario_current = target
            return "viewed"
        queued = len(self.scenario_marks) + self.pending_steps()
        if queued < len(self.scenario.steps):
            self.queue_step(queued)
            return "queued"
        return "last"

    def run_to_end(self) -> None:
        assert self.scenario is not None
        for index in range(len(self.scenario_marks) + self.pending_steps(), len(self.scenario.steps)):
            self.queue_step(index)
        if self.scenario_marks:
            self.scenario_current = len(self.scenario_marks) - 1

    def last_snapshot_of_step(self, index: int) -> int:
        """The snapshot index to view for scenario step `index` (-1: the latest)."""
        last = self.scenario_marks[index] - 1
        return -1 if last >= len(self.snapshots) - 1 else max(last, 0)

    def step_snapshots(self, index: int) -> list[Snapshot]:
        upto = self.scenario_marks[index]
        since = self.scenario_marks[index - 1] if index else 0
        return self.snapshots[since:upto]

    def step_results(self) -> list[tuple[str, bool]] | None:
        """How the current scenario step's expectations came out (None: nothing to check)."""
        scenario = self.scenario
        if not isinstance(scenario, CheckedScenario) or self.scenario_current < 0:
            return None
        try:
            return scenario.check(self.scenario_current, self.step_snapshots(self.scenario_current))
        except Exception as exc:  # noqa: BLE001 - a broken expectation must not take the app down
            return [(f"expectations could not be checked: {exc}", False)]

    def compare_state(self) -> CompareState | None:
        """The Compare pane's state for the scenario step in view."""
        scenario = dual(self.scenario)
        if scenario is None:
            return None
        index = max(self.scenario_current, 0)
        torch_code, paddle_code = scenario.steps[index].code, scenario.paddle_code(index)
        setup = scenario.is_setup(index)
        # numbered as the scenario pane numbers them (a setup is a step of its own there)
        title = f"step {index + 1} of {len(scenario.steps)}" + (" (setup)" if setup else "")
        ran = self.paddle_steps.get(index)
        if self.scenario_current < 0:
            return CompareState(title, torch_code, paddle_code, setup=setup,
                                waiting="not run yet: ctrl+n runs it in both dialects")
        if ran is not None and ran.problem is not None:
            return CompareState(title, torch_code, paddle_code, problem=ran.problem, setup=setup)
        if ran is not None and ran.snapshots is not None and index < len(self.scenario_marks):
            found: tuple[str, ...] = ()
            torch_snaps = self.step_snapshots(index)
            if not setup and torch_snaps and ran.snapshots:
                from tensorscope.compare import differences
                from tensorscope.tui.scenario_adapter import step_final

                found = tuple(differences(step_final(torch_snaps), step_final(ran.snapshots)))
            return CompareState(title, torch_code, paddle_code, found=found, setup=setup)
        return CompareState(title, torch_code, paddle_code, setup=setup)

    # ------------------------------------------------------------------ jobs (the runner's thread)
    def _new_session(self) -> SessionLike:
        return self.session_factory(**self.options)

    def _execute(self, job: Job) -> Update:
        from tensorscope.interpreter import UserError

        failure: str | None = None
        undone: str | None = None
        before = len(self._session.steps) if self._session is not None else 0
        replaced = False
        source: str | None = None
        paddle: PaddleStep | None = None
        try:
            if job.kind == "start":
                if self._session is None:
                    self._session = self._new_session()
            elif job.kind == "reset":
                for old in (self._session, self._paddle_session):
                    if old is not None:
                        old.close()
                self._session, self._paddle_session = None, None
                self._session = self._new_session()
                replaced = True
            elif job.kind == "undo":
                if self._session is not None and self._session.steps:
                    statement = self._session.steps[-1].statement
                    source, undone = statement.source, statement.exact or statement.source
                    self._session = self._session.undo()
                    replaced = True
            elif job.kind == "replay":
                if self._session is None:
                    self._session = self._new_session()
                for statement in job.sources:
                    try:
                        self._session.run(statement)
                    except UserError as exc:  # a saved statement that no longer parses: say so, go on
                        failure = f"{exc.info.type}: {exc.info.message}"
            else:
                if self._session is None:
                    self._session = self._new_session()
                source = job.source
                try:
                    self._session.run(source)
                except UserError as exc:
                    failure = f"{exc.info.type}: {exc.info.message}"
                scenario = dual(job.scenario)
                if job.kind == "step" and scenario is not None:
                    paddle = self._run_paddle(scenario, job.index)
        except Exception as exc:  # noqa: BLE001 - the session failed: report it, keep the app alive
            from tensorscope.worker.client import WorkerError

            failure = f"tensorscope: {exc}" if isinstance(exc, WorkerError) else \
                f"internal error: {type(exc).__name__}: {exc}"
        session = self._session
        steps = session.steps if session is not None else ()
        snapshots = [step.snapshot for step in steps]
        ran = 0 if replaced else max(len(snapshots) - before, 0)
        statements = tuple(step.statement.exact or step.statement.source for step in steps if not step.stopped)
        return Update(job, snapshots, ran, replaced, failure, source, paddle, statements, undone)

    def _run_paddle(self, scenario: DualScenario, index: int) -> PaddleStep:
        """Run scenario step `index` in the Paddle session, first replaying the steps before it when
        that session is not exactly there (after a reset or an undo)."""
        from tensorscope.interpreter import UserError

        try:
            if self._paddle_session is None or self._paddle_ran != index:
                if self._paddle_session is not None:
                    self._paddle_session.close()
                self._paddle_session, self._paddle_ran = self._new_session(), 0
                for earlier in range(index):
                    code = scenario.paddle_code(earlier)
                    if code.strip():
                        self._paddle_session.run(code)
                    self._paddle_ran = earlier + 1
            session = self._paddle_session
            before = len(session.steps)
            if scenario.paddle_code(index).strip():
                session.run(scenario.paddle_code(index))
            self._paddle_ran = index + 1
            return PaddleStep(index, [step.snapshot for step in session.steps[before:]])
        except UserError as exc:
            self._drop_paddle()
            return PaddleStep(index, None, f"the paddle code cannot run: {exc.info.type}: {exc.info.message}")
        except Exception as exc:  # noqa: BLE001 - the Paddle side failed: say so, keep the app alive
            self._drop_paddle()
            return PaddleStep(index, None, f"internal error on the paddle side: {type(exc).__name__}: {exc}")

    def _drop_paddle(self) -> None:
        if self._paddle_session is not None:
            self._paddle_session.close()
        self._paddle_session = None
