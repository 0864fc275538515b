"""The resource attacks of issue 10, each stopped within its limit with a one-line message, and
the session going on with nothing lost (small limits keep these fast: 1 s, a few hundred MB)."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from tensorscope.session import Session
from tensorscope.worker.client import WorkerSession
from tensorscope.worker.limits import GIB, Limits

SETUP = "import torch\nimport numpy as np\nx = torch.arange(4.)\nkept = x * 2"


def session(memory_bytes: int = 600 << 20, time_limit: float = 1.0) -> WorkerSession:
    worker = WorkerSession(limits=Limits(memory_bytes=memory_bytes, time_limit=time_limit))
    worker.run(SETUP)
    return worker


def stopped_with(worker: WorkerSession, attack: str) -> tuple[str, str]:
    """Run the attack; its error (type, message) as one line, after checking the session goes on."""
    steps = worker.run(attack)
    last = steps[-1]
    error = last.snapshot.error
    assert error is not None and "\n" not in error.message, error
    setup = SETUP.splitlines()
    assert [s.statement.source for s in worker.steps[:len(setup)]] == setup
    after = worker.run("print(kept.tolist(), x._version)")[-1].snapshot
    assert after.output == "[0.0, 2.0, 4.0, 6.0] 0" and set(after.objects) >= {"x", "kept"}
    return error.type, error.message


SLOW = "torch.zeros(1).expand(10**7, 10**7).sum()"  # engine work the interpreter's step meter cannot see


@pytest.mark.parametrize("attack", [SLOW, "total = torch.ones(1).expand(10**7, 10**7).mean()"])
def test_a_statement_past_its_time_limit_is_interrupted(attack: str) -> None:
    with session() as worker:
        kind, message = stopped_with(worker, attack)
        assert kind == "TimeoutError"
        assert message == f"interrupted after 1.0 s: `{attack}`"
        assert worker.steps[len(SETUP.splitlines())].stopped


def test_a_12000_by_12000_matmul_is_interrupted() -> None:
    with session(memory_bytes=2 * GIB) as worker:
        worker.run("a = torch.ones(1).expand(12000, 12000)")
        kind, message = stopped_with(worker, "b = a @ a")
        assert (kind, message) == ("TimeoutError", "interrupted after 1.0 s: `b = a @ a`")


def test_doubling_a_tensor_stops_at_a_limit() -> None:
    with session() as worker:
        kind, message = stopped_with(worker, "for _ in range(40): x = torch.cat([x, x])")
        assert (kind, message.split(" (")[0].split(":")[0]) in {
            ("TimeoutError", "interrupted after 1.0 s"), ("RuntimeError", "DefaultCPUAllocator"),
            ("MemoryError", "memory limit of 600.0 MiB reached")}


def test_a_tensor_past_the_memory_limit_is_refused() -> None:
    with session() as worker:
        kind, message = stopped_with(worker, "y = torch.ones(10**9, dtype=torch.float64)")
        assert kind == "RuntimeError"
        assert message == "DefaultCPUAllocator: not enough memory: you tried to allocate 8000000000 bytes."


def test_arrays_piling_up_past_the_memory_limit_are_stopped() -> None:
    with session() as worker:
        kind, message = stopped_with(worker, "l = [np.ones(2**27) for _ in range(30)]")
        assert kind == "MemoryError"
        assert "memory" in message and "limit" in message


def test_a_crash_of_the_worker_is_survived() -> None:
    """The sandbox closes the known crashes (a deeply nested tuple's hash); a crash that gets past it
    is played here by the signal itself."""
    with session(time_limit=15.0) as worker:
        pid = worker.isolation["pid"]
        timer = threading.Timer(0.5, os.kill, (pid, signal.SIGSEGV))
        timer.start()
        kind, message = stopped_with(worker, SLOW)
        timer.join()
        assert (kind, message) == ("WorkerCrash", f"the worker crashed (SIGSEGV, segmentation fault): `{SLOW}`")


def test_ctrl_c_interrupts_the_running_statement() -> None:
    with session(time_limit=30.0) as worker:
        timer = threading.Timer(0.5, worker.interrupt)
        timer.start()
        step = worker.run(SLOW)[-1]
        assert step.stopped and step.snapshot.error.type == "KeyboardInterrupt"
        assert step.snapshot.error.message.startswith("interrupted after 0.")
        assert worker.run("print(kept.sum().item())")[-1].snapshot.output == "12.0"


def test_a_stopped_statement_is_not_replayed_and_later_ones_are() -> None:
    with session() as worker:
        worker.run(f"x.add_(1) if {SLOW} else x.add_(1)")  # stopped before it wrote
        worker.run("y = torch.randn(3)")
        worker.run(f"(x.mul_(2), {SLOW})")  # stopped after it wrote: undone
        state = worker.last
        assert state.objects["x"].version == 0 and state.objects["x"].values == [0.0, 1.0, 2.0, 3.0]
        here = Session()
        here.run(SETUP + "\ny = torch.randn(3)")
        assert state.objects["y"].values == here.last.objects["y"].values  # the replay is deterministic
        assert [s.stopped for s in worker.steps].count(True) == 2
        assert "expand" not in worker.export_script()


def test_statements_after_the_stopped_one_in_the_same_entry_do_not_run() -> None:
    with session() as worker:
        steps = worker.run(f"a = 1\n{SLOW}\nb = torch.ones(2)")
        assert [s.statement.source for s in steps] == ["a = 1", SLOW]
        assert "b" not in worker.last.objects


def test_with_keep_going_statements_after_one_past_its_time_limit_run_as_after_any_error() -> None:
    with session() as worker:  # what `replay` asks for: a script's trace goes on after any error
        steps = worker.run(f"a = kept * 2\n{SLOW}\nb = a + 1\nprint(b.sum().item())", keep_going=True)
        assert [step.statement.source for step in steps] == ["a = kept * 2", SLOW, "b = a + 1",
                                                             "print(b.sum().item())"]
        assert steps[1].stopped and steps[1].snapshot.error.type == "TimeoutError"
        assert steps[3].snapshot.output == "28.0"
        assert [step.snapshot.step for step in steps] == list(range(steps[0].snapshot.step, steps[0].snapshot.step + 4))


def test_ctrl_c_stops_the_statements_after_the_running_one_too() -> None:
    with session(time_limit=30.0) as worker:
        timer = threading.Timer(0.5, worker.interrupt)
        timer.start()
        steps = worker.run(f"{SLOW}\nprint('not run')", keep_going=True)
        assert len(steps) == 1 and steps[0].snapshot.error.type == "KeyboardInterrupt"
