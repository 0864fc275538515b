"""The interpreter's own cost, without snapshots: per statement, and per guarded operation.

Run by hand: `python benchmarks/interpreter.py`. The policy's checks (attribute rules, size guards
in bytes, format guards, the tuple-nesting guard, numpy's argument rules) sit on every operation;
these figures show what they cost. Targets: under 150 us of interpreter overhead per statement of
the replay script, and a few microseconds per guarded operation.
"""

from __future__ import annotations

import os
import sys
import time

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import engine  # noqa: E402
from tensorscope.interpreter import Interpreter, parse  # noqa: E402

BODY = [
    "a = torch.ones(4, 4, requires_grad=True)", "b = a * 2", "c = b.t()", "d = c.sum()",
    "e = torch.arange(16.).view(4, 4)", "e.add_(1)", "f = e[1:, :2]", "f.mul_(3)", "g = torch.relu(b)",
    "d.backward()",
]
LOOPS = 5000
OPERATIONS = {  # one loop body each; the figure is per iteration
    "empty loop": "pass",
    "int arithmetic": "s = i + 1",
    "tuple display": "s = (i, i)",
    "list method lookup": "s = xs.append",
    "call of a user function": "s = h(i)",
    "str.format": "s = '{}-{:>4}'.format(i, i % 13)",
    "f-string": "s = f'{i:05d}{i}'",
    "%-format": "s = '%d' % i",
    "str concatenation": "s = 'ab' + 'cd'",
    "numpy add": "s = arr + arr",
    "numpy call": "s = np.zeros(4)",
    "tensor add": "s = ten + ten",
    "tensor subscript": "s = ten[1]",
    "refused attribute": "s = hasattr(h, '__globals__')",
    "sorted with a key": "s = sorted(xs3, key=neg)",
    "generator item": "s = next(counter)",
    "dataclass instance": "s = Config(i)",
    "deepcopy of a list": "s = copy.deepcopy(xs3)",
}
SETUP = """\
import torch
import numpy as np
import copy
from dataclasses import dataclass
xs = []
xs3 = [3, 1, 2]
def h(v):
    return v
def neg(v):
    return -v
def count():
    n = 0
    while True:
        n += 1
        yield n
counter = count()
@dataclass
class Config:
    width: int = 4
arr = np.ones(4)
ten = torch.ones(4)
"""


def _best(run: callable, repeats: int = 5) -> float:
    """The least CPU time (not wall time: the figure should not depend on what else runs) of a few runs."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def statement_overhead() -> tuple[float, float]:
    """(engine alone, interpreted) seconds for a 1,000-statement script."""
    lines = ["import torch"]
    while len(lines) < 1000:
        lines.extend(BODY)
    lines = lines[:1000]
    namespace = {"torch": engine}
    compiled = [compile(line, "<bench>", "exec") for line in lines[1:]]

    def direct() -> None:
        for code in compiled:
            exec(code, namespace)  # noqa: S102 - trusted benchmark statements

    statements = parse("\n".join(lines) + "\n")

    def interpreted() -> None:
        interpreter = Interpreter()
        for statement in statements:
            interpreter.run(statement)

    return _best(direct), _best(interpreted)


def per_operation(body: str) -> float:
    interpreter = Interpreter()
    interpreter.run_source(SETUP)
    [loop] = parse(f"for i in range({LOOPS}):\n    {body}\n")
    return _best(lambda: interpreter.run(loop)) / LOOPS


def main() -> None:
    engine_s, interpreted_s = statement_overhead()
    print("1,000-statement script (no snapshots)")
    print(f"  engine alone        {engine_s * 1000:8.1f} ms")
    print(f"  interpreted         {interpreted_s * 1000:8.1f} ms")
    print(f"  overhead            {(interpreted_s - engine_s) * 1000:8.1f} us per statement   (target < 150 us)")
    print(f"per loop iteration, {LOOPS:,} iterations, microseconds")
    for label, body in OPERATIONS.items():
        print(f"  {label:<24} {per_operation(body) * 1e6:7.1f}")


if __name__ == "__main__":
    main()
