"""Replay overhead: a 1,000-statement script through `replay --json`, against the engine alone,
and the cost of the worker process boundary per statement.

Run by hand: `python benchmarks/replay.py`. Targets: under 1 s of interpreter + snapshot overhead
beyond the engine's own work for 1,000 statements; snapshot memory that grows with the number of
objects, not with tensor data (a 4000x4000 tensor must not be copied into every snapshot); and
under 5 ms per statement for the round trip to the worker (request, snapshot as JSON, decoding).
"""

from __future__ import annotations

import io
import os
import sys
import time
import tracemalloc
from contextlib import redirect_stdout

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import engine  # noqa: E402
from tensorscope import trace  # noqa: E402
from tensorscope.session import Session  # noqa: E402
from tensorscope.worker.client import WorkerSession  # noqa: E402

BODY = [
    "a = torch.ones(4, 4, requires_grad=True)",
    "b = a * 2",
    "c = b.t()",
    "d = c.sum()",
    "e = torch.arange(16.).view(4, 4)",
    "e.add_(1)",
    "f = e[1:, :2]",
    "f.mul_(3)",
    "g = torch.relu(b)",
    "d.backward()",
]


def script(statements: int) -> str:
    lines = ["import torch"]
    while len(lines) < statements:
        lines.extend(BODY)
    return "\n".join(lines[:statements]) + "\n"


def engine_alone(source: str) -> float:
    """The same statements executed directly on the engine (our own benchmark code, not user input)."""
    namespace = {"torch": engine}
    lines = source.splitlines()[1:]
    compiled = [compile(line, "<bench>", "exec") for line in lines]
    start = time.perf_counter()
    for code in compiled:
        exec(code, namespace)  # noqa: S102 - trusted benchmark statements
    return time.perf_counter() - start


def replayed(source: str) -> float:
    start = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        for step in Session().run(source):
            print(trace.step_line(step.snapshot))
    return time.perf_counter() - start


def snapshot_bytes(extra_statements: int) -> int:
    """Memory the snapshots of `extra_statements` steps add while a 64 MB tensor is alive."""
    session = Session()
    session.run("import torch\nbig = torch.zeros(4000, 4000)\n")
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    session.run("x = big[0, :4]\n" * extra_statements)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    return sum(stat.size_diff for stat in after.compare_to(before, "filename"))


def per_statement(session: Session | WorkerSession, statements: list[str]) -> float:
    """Seconds per statement, each sent on its own as a typed line would be."""
    session.run("import torch")  # the worker has started and imported everything
    start = time.perf_counter()
    for statement in statements:
        session.run(statement)
    return (time.perf_counter() - start) / len(statements)


def round_trip() -> None:
    statements = script(501).splitlines()[1:]
    here = min(per_statement(Session(), statements) for _ in range(3))
    there = []
    for _ in range(3):
        with WorkerSession() as worker:
            there.append(per_statement(worker, statements))
    worker_s = min(there)
    print("500 statements sent one by one")
    print(f"  in process              {here * 1000:8.2f} ms per statement")
    print(f"  through the worker      {worker_s * 1000:8.2f} ms per statement")
    print(f"  round trip              {(worker_s - here) * 1000:8.2f} ms per statement   (target < 5 ms)")


def main() -> None:
    round_trip()
    source = script(1000)
    engine_s = min(engine_alone(source) for _ in range(3))
    total_s = min(replayed(source) for _ in range(3))
    print("1,000-statement script")
    print(f"  engine alone            {engine_s * 1000:8.1f} ms")
    print(f"  replay --json           {total_s * 1000:8.1f} ms")
    print(f"  interpreter + snapshots {(total_s - engine_s) * 1000:8.1f} ms   (target < 1000 ms)")
    print("memory the steps add while a 64 MB tensor is alive (tracemalloc)")
    for steps in (10, 100, 400):
        grown = snapshot_bytes(steps)
        print(f"  {steps:4d} steps: {grown / 1024:8.1f} KiB  ({grown / steps / 1024:.1f} KiB per step)")


if __name__ == "__main__":
    main()
