"""Session: one run of statements on its own engine runtime, with a Snapshot after every step.

A Session owns a `Runtime` (allocator, random generator, simulated device, grad mode, default
dtype, Paddle counters) and activates it while its statements run and while their snapshots are
taken, so two Sessions in one process never disturb each other.

Time travel shows an older Snapshot; undo replays the statements before the last one into a fresh
Session (the engine is deterministic, random numbers included, so replaying reproduces the state).

`SessionLike` is what front ends use. This in-process Session implements it for tests and library
use; `tensorscope.worker.WorkerSession` implements it with the statements run in a limited child
process, which is what the command line's front ends use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict

from tensorscope.interpreter import ErrorInfo, Statement, UserError
from tensorscope.snapshot import Snapshot

CUDA_CAPACITY_BYTES = 16 << 30  # the simulated device's memory unless a scenario says otherwise (the engine's default)


class SessionOptions(TypedDict, total=False):
    """The keywords every session takes."""

    cuda: bool  # the simulated CUDA device is on
    cuda_capacity_bytes: int  # its memory
    time_limit: float | None  # seconds per statement: a worker's wall clock (None: its default)


@dataclass(frozen=True)
class Step:
    """A statement and the Snapshot after it. `stopped` marks a statement whose worker was stopped
    (time limit, interrupt, crash): its snapshot is the state before it, and it is not replayed."""

    statement: Statement
    snapshot: Snapshot
    stopped: bool = False


class SessionLike(Protocol):
    """What the front ends (explorer, REPL, replay, check, compare) need of a session."""

    options: dict[str, Any]

    @property
    def steps(self) -> Sequence[Step]: ...

    @property
    def last(self) -> Snapshot | None: ...

    def run(self, source: str, on_step: Callable[[Step], None] | None = None) -> list[Step]:
        """Run every top-level statement of `source`; a syntax error raises UserError. `on_step`,
        when given, sees each step as soon as it is recorded (output can follow the run)."""
        ...

    def snapshot_at(self, index: int) -> Snapshot: ...

    def sources(self) -> list[str]: ...

    def rewind(self, count: int) -> SessionLike:
        """The session as it was after its first `count` statements, replayed (an in-process
        Session returns a new one; a worker session rewinds itself and returns itself)."""
        ...

    def undo(self) -> SessionLike:
        """`rewind` to all statements but the last."""
        ...

    def complete(self, word: str) -> list[str]:
        """Completion candidates for the dotted name being typed."""
        ...

    def dump_memory_snapshot(self, path: str, filename: str = "<session>") -> None:
        """The simulated device's history for torch's memory_viz, each allocation's frame naming
        `filename`, the line of the statement that made it and its source."""
        ...

    def export_script(self) -> str: ...

    def export_scenario(self, title: str = "A recorded session") -> str: ...

    def interrupt(self) -> None:
        """Stop the statement running now (from another thread or a signal handler)."""
        ...

    def close(self) -> None: ...


class Session:
    """A namespace, the steps run in it so far, and their snapshots, on a runtime of its own.

    The engine and the interpreter load with the first Session: front ends that only read
    snapshots (a worker's) never import them."""

    def __init__(self, *, cuda: bool = True, cuda_capacity_bytes: int = CUDA_CAPACITY_BYTES,
                 time_limit: float | None = None, history: bool = True) -> None:
        """`time_limit` is not enforced in process (only a worker can stop a statement); it is
        kept for the scenarios this session exports. Without `history` only the last step is
        kept (a worker's session: its front end keeps the steps); `steps` then holds that one."""
        import engine
        from engine.runtime import Runtime
        from tensorscope.interpreter import Interpreter
        from tensorscope.snapshot_taker import SnapshotTaker

        self.options: dict[str, Any] = {"cuda": cuda, "cuda_capacity_bytes": cuda_capacity_bytes,
                                        "time_limit": time_limit}
        self.runtime = Runtime()  # a fresh process's state: default seed, fresh device, grad on, float32
        with self.runtime.active():
            engine.cuda.configure(enabled=cuda, capacity_bytes=cuda_capacity_bytes)
            self.interpreter = Interpreter()
        self._steps: list[Step] = []
        self._statements: list[Statement] = []  # every step's, kept or not (the device's history names them)
        self._history = history
        self.taker = SnapshotTaker()

    @property
    def steps(self) -> Sequence[Step]:
        return self._steps

    @property
    def namespace(self) -> dict:
        return self.interpreter.namespace

    @property
    def last(self) -> Snapshot | None:
        return self._steps[-1].snapshot if self._steps else None

    def run(self, source: str, on_step: Callable[[Step], None] | None = None) -> list[Step]:
        """Run every top-level statement of `source`; a syntax error raises UserError, and nothing
        of `source` runs (as Python does with a file)."""
        from tensorscope.interpreter import parse

        steps = []
        for statement in parse(source):
            steps.append(self.run_statement(statement))
            if on_step is not None:
                on_step(steps[-1])
        return steps

    def run_statement(self, statement: Statement) -> Step:
        from engine import cuda

        with self.runtime.active():
            cuda.set_tag(len(self._statements))  # the device's history says which step allocated what
            outcome = self.interpreter.run(statement)
            return self._record(statement, outcome.output, outcome.error, outcome.warnings)

    def record_stopped(self, statement: Statement, error: ErrorInfo) -> Step:
        """Record a statement that did not run to its end (its worker was stopped): the state
        stays as it was before it, with `error` saying why."""
        with self.runtime.active():
            return self._record(statement, None, error, (), stopped=True)

    def _record(self, statement: Statement, output: str | None, error: ErrorInfo | None,
                warnings: tuple[str, ...], stopped: bool = False) -> Step:
        from engine import allocator as allocation

        snapshot = self.taker.take(len(self._statements), statement.source, self.namespace, output, error,
                                        warnings, allocation.allocator.peak_bytes)
        step = Step(statement, snapshot, stopped)
        if not self._history:
            self._steps.clear()
        self._steps.append(step)
        self._statements.append(statement)
        return step

    def sources(self) -> list[str]:
        return [step.statement.source for step in self._steps]

    def snapshot_at(self, index: int) -> Snapshot:
        return self._steps[index].snapshot

    def replayed(self, count: int) -> Session:
        """A fresh Session that has run the first `count` statements of this one."""
        fresh = Session(**self.options)
        fresh.replay(self._steps[:count])
        return fresh

    def replay(self, steps: Sequence[Step]) -> None:
        """Run `steps`' statements again (a stopped one is recorded as stopped, not run)."""
        for step in steps:
            if step.stopped and step.snapshot.error is not None:
                self.record_stopped(step.statement, step.snapshot.error)
            else:
                self.run_statement(step.statement)

    def rewind(self, count: int) -> Session:
        return self.replayed(count)

    def undo(self) -> Session:
        return self.replayed(max(len(self._steps) - 1, 0))

    def complete(self, word: str) -> list[str]:
        from tensorscope.completion import candidates

        with self.runtime.active():
            return candidates(self.namespace, word)

    def memory_snapshot_bytes(self, filename: str = "<session>") -> bytes:
        """The simulated device's history in torch.cuda.memory._dump_snapshot's format (pickled,
        for `python -m torch.cuda._memory_viz trace_plot`). Each allocation's frame is the
        statement that made it: `filename`, its line there, and its first line of source."""
        import pickle

        from engine import cuda
        from engine.memory_snapshot import snapshot

        def frame_of(tag: object) -> dict[str, Any] | None:
            if not isinstance(tag, int) or not 0 <= tag < len(self._statements):
                return None
            statement = self._statements[tag]
            return {"filename": filename, "line": statement.lineno, "name": statement.source.splitlines()[0]}

        with self.runtime.active():
            return pickle.dumps(snapshot(cuda.device_allocator(), frame_of))

    def dump_memory_snapshot(self, path: str, filename: str = "<session>") -> None:
        with open(path, "wb") as file:
            file.write(self.memory_snapshot_bytes(filename))

    def export_script(self) -> str:
        return script_text(self._steps)

    def export_scenario(self, title: str = "A recorded session") -> str:
        return scenario_text(self._steps, title, cuda=self.options["cuda"], time_limit=self.options["time_limit"])

    def interrupt(self) -> None:
        """In process nothing can stop a running statement but its own limits."""

    def close(self) -> None:
        """Nothing to release: the runtime goes with the Session."""


def script_text(steps: Sequence[Step]) -> str:
    """The statements as a script (stopped ones left out: they never ran to their end)."""
    sources = [step.statement.source for step in steps if not step.stopped]
    return "\n".join(sources) + ("\n" if sources else "")


def scenario_text(steps: Sequence[Step], title: str = "A recorded session", *, cuda: bool = True,
                  time_limit: float | None = None) -> str:
    """The session as a scenario (YAML) that replays to the same state; each statement a step,
    expecting the versions and errors it produced, so `tensorscope check` notices a change."""
    import yaml

    recorded = []
    for step in steps:
        if step.stopped:
            continue
        snap = step.snapshot
        expect: dict = {"error": None if snap.error is None else {"type": snap.error.type,
                                                                  "message": snap.error.message}}
        versions = {name: info.version for name, info in snap.objects.items()
                    if info.kind == "tensor" and "." not in name}
        if versions:
            expect["version"] = versions
        recorded.append({"code": step.statement.source, "expect": expect})
    document: dict[str, Any] = {"title": title, "summary": f"{len(recorded)} statements recorded in tensorscope.",
                                "cuda": cuda}
    if time_limit is not None:
        document["time_limit"] = time_limit
    document["steps"] = recorded
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)


__all__ = ["Session", "SessionLike", "SessionOptions", "Step", "UserError", "scenario_text", "script_text"]
