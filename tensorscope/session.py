"""Session: one run of statements on a fresh engine state, with a Snapshot after every step.

Time travel shows an older Snapshot; undo replays the statements before the last one into a fresh
Session (the engine is deterministic, random numbers included, so replaying reproduces the state).
"""

from __future__ import annotations

import gc
import sys
from dataclasses import dataclass

import engine
from engine.allocator import allocator
from engine.ops.random import DEFAULT_SEED
from tensorscope.interpreter import Interpreter, Statement, UserError, parse
from tensorscope.snapshot import Snapshot, SnapshotTaker


@dataclass(frozen=True)
class Step:
    statement: Statement
    snapshot: Snapshot


class Session:
    """A namespace, the steps run in it so far, and their snapshots."""

    def __init__(self, *, cuda: bool = True, cuda_capacity_bytes: int = engine.cuda.DEFAULT_CAPACITY) -> None:
        gc.collect()  # storages of an earlier session must not count towards this one's memory
        engine.manual_seed(DEFAULT_SEED)  # every run starts from a fresh process's random state
        engine.cuda.configure(enabled=cuda, capacity_bytes=cuda_capacity_bytes)  # and a fresh device
        paddle = sys.modules.get("engine.paddle")
        if paddle is not None:  # the Paddle dialect's name counters and place start afresh too
            paddle.reset()
        self.options = {"cuda": cuda, "cuda_capacity_bytes": cuda_capacity_bytes}
        self.interpreter = Interpreter()
        self.steps: list[Step] = []
        self._snapshots = SnapshotTaker()
        self._baseline = allocator.live_bytes
        allocator.reset_peak()

    @property
    def namespace(self) -> dict:
        return self.interpreter.namespace

    @property
    def last(self) -> Snapshot | None:
        return self.steps[-1].snapshot if self.steps else None

    def run(self, source: str) -> list[Step]:
        """Run every top-level statement of `source`; a syntax error raises UserError, and nothing
        of `source` runs (as Python does with a file)."""
        statements = parse(source)
        return [self.run_statement(statement) for statement in statements]

    def run_statement(self, statement: Statement) -> Step:
        engine.cuda.set_tag(len(self.steps))  # the device's history says which step allocated what
        outcome = self.interpreter.run(statement)
        peak = allocator.peak_bytes - self._baseline
        snapshot = self._snapshots.take(len(self.steps), statement.source, self.namespace, outcome.output,
                                        outcome.error, outcome.warnings, peak)
        step = Step(statement, snapshot)
        self.steps.append(step)
        return step

    def sources(self) -> list[str]:
        return [step.statement.source for step in self.steps]

    def snapshot_at(self, index: int) -> Snapshot:
        return self.steps[index].snapshot

    def replayed(self, count: int) -> Session:
        """A fresh Session that has run the first `count` statements of this one."""
        fresh = Session(**self.options)
        for step in self.steps[:count]:
            fresh.run_statement(step.statement)
        return fresh

    def undo(self) -> Session:
        return self.replayed(max(len(self.steps) - 1, 0))

    def dump_memory_snapshot(self, path: str) -> None:
        """The simulated device's history in torch.cuda.memory._dump_snapshot's format (for
        `python -m torch.cuda._memory_viz trace_plot`)."""
        from engine.memory_snapshot import dump_snapshot

        dump_snapshot(engine.cuda.device_allocator(), path)

    def export_script(self) -> str:
        return "\n".join(self.sources()) + ("\n" if self.steps else "")

    def export_scenario(self, title: str = "A recorded session") -> str:
        """The session as a scenario (YAML) that replays to the same state; each statement a step,
        expecting the versions and errors it produced, so `tensorscope check` notices a change."""
        import yaml

        steps = []
        for step in self.steps:
            snap = step.snapshot
            expect: dict = {"error": None if snap.error is None else {"type": snap.error.type,
                                                                      "message": snap.error.message}}
            versions = {name: info.version for name, info in snap.objects.items()
                        if info.kind == "tensor" and "." not in name}
            if versions:
                expect["version"] = versions
            steps.append({"code": step.statement.source, "expect": expect})
        document = {"title": title, "summary": f"{len(steps)} statements recorded in tensorscope.",
                    "cuda": self.options["cuda"], "steps": steps}
        return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)


__all__ = ["Session", "Step", "UserError"]


def scenario_from_sources(sources: list[str], title: str = "A recorded session") -> str:
    """A scenario (YAML text) for statements typed elsewhere (the explorer's "save as scenario"),
    with the expectations a fresh replay of them produces."""
    session = Session()
    for source in sources:
        session.run(source)
    return session.export_scenario(title)
