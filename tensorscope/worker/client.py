"""WorkerSession: a Session whose statements run in a limited child process.

The front end keeps the statements and the Snapshots; the worker keeps the namespace. Each
statement has a wall-clock limit. When it passes, when `interrupt()` is called (ctrl+c), or when
the worker dies (a crash, a limit of the OS), the worker is killed, a fresh one replays every
earlier statement (the engine is deterministic) and the statement is recorded as stopped, with
the reason as its error, e.g. `TimeoutError: interrupted after 10.0 s: \\`x = ...\\``; the
statements after it in the same entry are not run. The session goes on with nothing lost.

A stopped statement is never replayed. Requests are serialised by a lock; `interrupt` needs no
lock (a signal handler or another thread may call it).
"""

from __future__ import annotations

import base64
import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tensorscope.interpreter import ErrorInfo, Statement, UserError
from tensorscope.printable import shorten
from tensorscope.session import CUDA_CAPACITY_BYTES, Step, scenario_text, script_text
from tensorscope.snapshot import Snapshot
from tensorscope.worker import codec, process
from tensorscope.worker.limits import Limits, size_text
from tensorscope.worker.process import MAX_REPLY_BYTES, Stopped, WorkerProcess

STARTUP_SECONDS = 60.0  # a worker that has not answered by then is broken (the machine may be busy)
COMPLETION_SECONDS = 2.0


class WorkerError(RuntimeError):
    """The worker could not do what was asked for a reason of its own (it cannot start, a bug)."""


class WorkerSession:
    """The Session interface (`tensorscope.session.SessionLike`) over a worker process."""

    def __init__(self, *, cuda: bool = True, cuda_capacity_bytes: int = CUDA_CAPACITY_BYTES,
                 time_limit: float | None = None, limits: Limits | None = None,
                 worker: WorkerProcess | None = None) -> None:
        """Starts the worker without waiting for it (the first request does); `time_limit`, when
        given, replaces the one of `limits`; `worker` is one started earlier with the same memory
        limit (see WorkerStarter)."""
        self.options: dict[str, Any] = {"cuda": cuda, "cuda_capacity_bytes": cuda_capacity_bytes,
                                        "time_limit": time_limit}
        self.limits = limits or Limits()
        if time_limit is not None:
            self.limits = replace(self.limits, time_limit=time_limit)
        self._steps: list[Step] = []
        self._lock = threading.Lock()
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._worker = worker or self._spawn()
        self._opened = False

    # ------------------------------------------------------------------ reading
    @property
    def steps(self) -> Sequence[Step]:
        return self._steps

    @property
    def last(self) -> Snapshot | None:
        return self._steps[-1].snapshot if self._steps else None

    def snapshot_at(self, index: int) -> Snapshot:
        return self._steps[index].snapshot

    def sources(self) -> list[str]:
        return [step.statement.source for step in self._steps]

    @property
    def isolation(self) -> dict[str, Any]:
        """What the worker reported when it started (its pid, whether it has a network)."""
        with self._lock:
            self._ensure_open()
            return dict(self._worker.info or {})

    # ------------------------------------------------------------------ running
    def run(self, source: str, on_step: Callable[[Step], None] | None = None, *,
            keep_going: bool = False) -> list[Step]:
        """Run `source` in the worker (see SessionLike.run); `on_step` sees each step as it arrives,
        while the worker goes on with the next statement. A statement stopped (its time limit, a
        crash, ctrl+c) is a failed step and ends the entry there; with `keep_going` (a script
        replayed headless, whose trace goes on after any error) the statements after one stopped by
        its time limit or a crash run in the fresh worker; ctrl+c (`interrupt`) still stops them all."""
        with self._lock:
            new: list[Step] = []
            pending: str | None = source
            while pending is not None:
                pending = self._run_until_stopped(pending, on_step, new)
                if not keep_going:
                    break
            return new

    def _run_until_stopped(self, source: str, on_step: Callable[[Step], None] | None,
                           new: list[Step]) -> str | None:
        """Run `source`, adding its steps to `new`; when a stop other than ctrl+c left statements
        unrun, their source."""
        self._drain_wake()
        self._ensure_open()
        worker = self._worker
        worker.send({"op": "run", "source": source})
        started = time.monotonic()
        try:
            reply = self._expect(worker.receive(started + self.limits.time_limit, self._wake_read))
        except Stopped as stop:
            new.append(self._stopped(Statement(source, 1), stop, started))
            if on_step is not None:
                on_step(new[-1])
            return None
        if "syntax" in reply:
            raise UserError(ErrorInfo(*reply["syntax"]))
        statements = [codec.statement_from(record) for record in reply["statements"]]
        for index, statement in enumerate(statements):
            started = time.monotonic()
            try:
                reply = self._expect(worker.receive(started + self.limits.time_limit, self._wake_read))
            except Stopped as stop:
                new.append(self._stopped(statement, stop, started))
                if on_step is not None:
                    on_step(new[-1])
                rest = statements[index + 1:]
                if stop.why == "interrupt" or not rest:
                    return None
                return "\n".join(later.exact or later.source for later in rest)
            step = Step(statement, worker.decoder.decode(reply["step"]))
            self._steps.append(step)
            new.append(step)
            if on_step is not None:
                on_step(step)
        self._expect(self._receive_quietly(worker, self.limits.time_limit))
        return None

    def interrupt(self) -> None:
        """Stop the running statement now; nothing happens when none runs."""
        with contextlib.suppress(OSError):  # a full pipe has a wake-up waiting already
            os.write(self._wake_write, b"!")

    def rewind(self, count: int) -> WorkerSession:
        """Go back to the state after the first `count` statements: the worker replays them.
        Returns itself."""
        with self._lock:
            if 0 <= count < len(self._steps):
                del self._steps[count:]
                self._ensure_open()
                self._replay_into(self._worker)
        return self

    def undo(self) -> WorkerSession:
        """Take back the last statement. Returns itself."""
        return self.rewind(max(len(self._steps) - 1, 0))

    def complete(self, word: str) -> list[str]:
        """Candidates from the worker's namespace; none while a statement runs or before the
        worker has started (completion never waits)."""
        if not self._lock.acquire(blocking=False):
            return []
        try:
            if not self._opened:
                return []
            self._worker.send({"op": "complete", "word": word})
            try:
                reply = self._expect(self._worker.receive(time.monotonic() + COMPLETION_SECONDS))
            except Stopped:
                self._worker.kill()
                self._restore()
                return []
            return [str(candidate) for candidate in reply.get("candidates", [])]
        finally:
            self._lock.release()

    def dump_memory_snapshot(self, path: str, filename: str = "<session>") -> None:
        """The simulated device's history, pickled by the worker; written here, never loaded."""
        with self._lock:
            self._ensure_open()
            self._worker.send({"op": "memory_snapshot", "filename": filename})
            reply = self._expect(self._receive_quietly(self._worker, self.limits.time_limit))
        with open(path, "wb") as file:
            file.write(base64.b64decode(reply["pickle"]))

    def export_script(self) -> str:
        return script_text(self._steps)

    def export_scenario(self, title: str = "A recorded session") -> str:
        limit = None if self.limits.time_limit == Limits().time_limit else self.limits.time_limit
        return scenario_text(self._steps, title, cuda=self.options["cuda"], time_limit=limit)

    def close(self) -> None:
        with self._lock:
            self._worker.close()
            for fd in (self._wake_read, self._wake_write):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._wake_read = self._wake_write = -1

    def __enter__(self) -> WorkerSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the worker's life
    def _spawn(self) -> WorkerProcess:
        if not threading.main_thread().is_alive() or process.ending():  # the program is exiting: its workers end
            raise WorkerError("tensorscope is exiting; no new worker is started")
        return WorkerProcess(self.limits)

    def _ensure_open(self) -> None:
        """Open the session in the worker, the first time a request needs it."""
        if self._opened:
            return
        self._worker.send({"op": "open", "options": self.options})
        try:
            self._expect(self._worker.receive(time.monotonic() + STARTUP_SECONDS))
        except Stopped as stop:
            problem = self._worker.startup_problem() if stop.why == "died" else "it did not answer in time"
            self._worker.close()
            self._worker = self._spawn()
            raise WorkerError(f"the worker could not start under its {self.limits.memory_text} memory limit: "
                              f"{problem}") from None
        self._opened = True

    def _expect(self, reply: dict[str, Any]) -> dict[str, Any]:
        if "failure" in reply:
            raise WorkerError(str(reply["failure"]))
        return reply

    def _receive_quietly(self, worker: WorkerProcess, seconds: float) -> dict[str, Any]:
        """A reply that needs no user code to run (interrupts wait for the next statement)."""
        try:
            return worker.receive(time.monotonic() + seconds)
        except Stopped as stop:
            worker.kill()
            self._restore()
            raise WorkerError("the worker stopped answering; it was restarted") from stop

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_read, 256):
                pass
        except (BlockingIOError, OSError):
            pass

    def _stopped(self, statement: Statement, stop: Stopped, started: float) -> Step:
        """The worker was stopped during `statement`: kill it, say why, go on in a fresh worker."""
        elapsed = time.monotonic() - started
        self._worker.kill()
        if stop.why == "died":
            kind, what = self._worker.cause_of_death()
        elif stop.why == "large":
            kind, what = "MemoryError", f"its snapshot is past the {size_text(MAX_REPLY_BYTES)} limit of a front end"
        elif stop.why == "interrupt":
            kind, what = "KeyboardInterrupt", f"interrupted after {elapsed:.1f} s"
        else:
            kind, what = "TimeoutError", f"interrupted after {self.limits.time_limit:.1f} s"
        error = ErrorInfo(kind, f"{what}: `{shorten(statement.source)}`")
        self._restore()
        self._worker.send({"op": "stopped", "statement": codec.statement_record(statement),
                           "error": codec.error_record(error)})
        reply = self._expect(self._receive_quietly(self._worker, self.limits.time_limit))
        step = Step(statement, self._worker.decoder.decode(reply["step"]), stopped=True)
        self._steps.append(step)
        self._drain_wake()
        return step

    def _restore(self) -> None:
        """A fresh worker at the state of the recorded steps."""
        self._worker.close()
        self._worker = self._spawn()
        self._opened = True  # replay opens its own session
        self._replay_into(self._worker)

    def _replay_into(self, worker: WorkerProcess) -> None:
        """Make `worker`'s session run the recorded steps again. A statement that cannot be
        replayed in twice its limit (the machine got slower?) is recorded as stopped, and the
        replay starts over in a fresh worker without it."""
        limit = 2 * self.limits.time_limit + 1
        while True:
            worker.send({"op": "replay", "options": self.options, "steps": [
                [codec.statement_record(step.statement),
                 codec.error_record(step.snapshot.error) if step.stopped else None] for step in self._steps]})
            replayed = 0
            try:
                for _ in self._steps:
                    wait = limit if worker.info is not None else limit + STARTUP_SECONDS
                    replayed = self._expect(worker.receive(time.monotonic() + wait))["replayed"] + 1
                self._expect(worker.receive(time.monotonic() + limit))
                return
            except Stopped as stop:
                worker.kill()
                if replayed < len(self._steps):
                    failed = self._steps[replayed]
                    kind, what = worker.cause_of_death() if stop.why == "died" else (
                        "TimeoutError", f"could not be replayed within {limit:.1f} s")
                    error = ErrorInfo(kind, f"{what}: `{shorten(failed.statement.source)}`")
                    self._steps[replayed] = Step(failed.statement, replace(failed.snapshot, error=error),
                                                 stopped=True)
                worker.close()
                worker = self._worker = self._spawn()


class WorkerStarter:
    """WorkerSessions on workers started one ahead, so that running many sessions in a row
    (`tensorscope check`) overlaps each worker's start with the work of the one before."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._spare: WorkerProcess | None = None
        self._lock = threading.Lock()  # sessions may be asked for from several threads

    def session(self, **options: Any) -> WorkerSession:
        with self._lock:
            if process.ending():
                raise WorkerError("tensorscope is exiting; no new worker is started")
            worker = self._spare or WorkerProcess(self.limits)
            self._spare = WorkerProcess(self.limits)
        return WorkerSession(limits=self.limits, worker=worker, **options)

    def close(self) -> None:
        with self._lock:
            if self._spare is not None:
                self._spare.close()
                self._spare = None

    def __enter__(self) -> WorkerStarter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
