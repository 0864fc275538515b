"""Engine speed and memory figures, printed beside their targets and side by side with torch and numpy.

Run by hand: `python benchmarks/engine.py` (torch columns appear when torch is installed; `--quick`
skips the 400 MB relu case, `--small` prints the two small-op tables only). Times are CPU time of this process (the least of several repeats), so
they do not depend much on what else the machine runs; in the small-op tables the libraries' repeats
alternate, so a row's ratio compares times taken under the same load. Targets (issue 15): per-op overhead at most
2x torch's on small tensors, with and without requires_grad, and for a 4-op forward+backward;
large-tensor ops within 1.2x of numpy; `relu_` adds under 5% to peak RSS while `relu` adds the
tensor's size; float32 sigmoid equal to torch's bit for bit.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
import timeit
from collections.abc import Callable
from typing import Any

# This file is named like the package it measures: keep its own folder off the import path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

SMALL_TARGET = 2.0  # engine / torch on small tensors
LARGE_TARGET = 1.2  # engine / numpy on large tensors

# Each op takes the library module and two operands; `grad` operands are non-leaf tensors that
# require grad (so add_ is allowed), fresh for every repeat.
SMALL_OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "a + b": lambda m, a, b: a + b,
    "a * b": lambda m, a, b: a * b,
    "a.sigmoid()": lambda m, a, b: a.sigmoid(),
    "a.relu()": lambda m, a, b: a.relu(),
    "a.t()": lambda m, a, b: a.t(),
    "a.add_(1)": lambda m, a, b: a.add_(1),
    "a[0]": lambda m, a, b: a[0],
    "a[1:3, ::2]": lambda m, a, b: a[1:3, ::2],
    "a.sum()": lambda m, a, b: a.sum(),
}


def forward_backward(m: Any, a: Any, b: Any) -> None:
    """Four ops recorded, then backward through them (the leaves accumulate their grads)."""
    ((a * b).sigmoid() + a).sum().backward()


def backward_alone(m: Any, loss: Any, _: Any) -> None:
    """The backward share of the 4-op row: its graph, built once per repeat, run again and again."""
    loss.backward(retain_graph=True)


def sum_backward(m: Any, a: Any, b: Any) -> None:
    """The shortest backward: a sum of a leaf, its gradient accumulated into the leaf's .grad."""
    a.sum().backward()


def _four_op_graph(m: Any) -> tuple[Any, None]:
    a, b = m.ones(4, 4, requires_grad=True), m.ones(4, 4, requires_grad=True)
    return ((a * b).sigmoid() + a).sum(), None


# rows whose operands are leaves requiring grad (the backward rows), with their own operands where given
BACKWARD_ROWS: dict[str, tuple[Callable[[Any, Any, Any], Any], Callable[[Any], tuple[Any, Any]] | None]] = {
    "4-op forward+backward": (forward_backward, None),
    "4-op backward alone": (backward_alone, _four_op_graph),
    "x.sum().backward()": (sum_backward, None),
}


def _cpu_us(setup: Callable[[], tuple[Any, Any]], op: Callable[[Any, Any], Any], number: int) -> float:
    """Least CPU microseconds per call over five repeats, operands made fresh for each repeat."""
    best = float("inf")
    for _ in range(5):
        best = min(best, _one_repeat(setup, op, number))
    return best


def _one_repeat(setup: Callable[[], tuple[Any, Any]], op: Callable[[Any, Any], Any], number: int) -> float:
    """CPU microseconds per call of one repeat on fresh operands (timeit keeps the garbage collector
    off while it times, for every library alike)."""
    operands = setup()
    timer = timeit.Timer(lambda operands=operands: op(*operands), timer=time.process_time)
    return timer.timeit(number) / number * 1e6


def _side_by_side(cases: dict[str, tuple[Callable[[], tuple[Any, Any]], Callable[[Any, Any], Any]]],
                  number: int, repeats: int = 5) -> dict[str, float]:
    """Least CPU microseconds per call of each library's case, their repeats taken in turn (one of each
    library, then again), so that a change in the machine's load between them weighs on all alike:
    the ratios of one row compare times taken under the same conditions."""
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(repeats):
        for lib, (setup, op) in cases.items():
            best[lib] = min(best[lib], _one_repeat(setup, op, number))
    return best


def _libraries() -> dict[str, Any]:
    import numpy as np

    import engine

    found: dict[str, Any] = {"numpy": np, "engine": engine}
    if importlib.util.find_spec("torch"):
        import torch

        torch.set_num_threads(1)
        found["torch"] = torch
    return found


def _small_operands(m: Any, grad: bool) -> Callable[[], tuple[Any, Any]]:
    if m.__name__ == "numpy":
        return lambda: (m.ones((4, 4), dtype=m.float32), m.ones((4, 4), dtype=m.float32))
    if grad:
        return lambda: (m.ones(4, 4, requires_grad=True) * 1, m.ones(4, 4, requires_grad=True) * 1)
    return lambda: (m.ones(4, 4), m.ones(4, 4))


_NUMPY_SMALL = {"a.sigmoid()": lambda a, b: 1 / (1 + __import__("numpy").exp(-a)),
                "a.relu()": lambda a, b: __import__("numpy").maximum(a, 0), "a.t()": lambda a, b: a.T,
                "a.add_(1)": lambda a, b: a.__iadd__(1)}


def _small_case(label: str, op: Callable[[Any, Any, Any], Any], lib: str, m: Any,
                grad: bool) -> tuple[Callable[[], tuple[Any, Any]], Callable[[Any, Any], Any]] | None:
    """(operands, call) of one cell of the small-op table; None where the library has no such cell."""
    if lib == "numpy":
        if grad or label in BACKWARD_ROWS:
            return None
        return _small_operands(m, False), _NUMPY_SMALL.get(label, lambda a, b: op(m, a, b))
    if label in BACKWARD_ROWS:
        operands = BACKWARD_ROWS[label][1]
        if operands is not None:
            return (lambda: operands(m)), (lambda a, b: op(m, a, b))
        return (lambda: (m.ones(4, 4, requires_grad=True), m.ones(4, 4, requires_grad=True))), \
            (lambda a, b: op(m, a, b))
    return _small_operands(m, grad), lambda a, b: op(m, a, b)


def small_op_table() -> list[tuple[str, float]]:
    """Per-op time on 4x4 float32; returns (label, engine/torch) for the summary."""
    libs = _libraries()
    ratios: list[tuple[str, float]] = []
    print("per-op CPU time on 4x4 float32, microseconds (grad: operands are non-leaf tensors requiring grad)")
    print(f"{'op':<26}{'numpy':>8}{'engine':>9}{'torch':>9}{'ratio':>8}   target")
    cases = [(label, op, False) for label, op in SMALL_OPS.items()]
    cases += [(label, op, True) for label, op in SMALL_OPS.items()]
    cases += [(label, op, True) for label, (op, _) in BACKWARD_ROWS.items()]
    for label, op, grad in cases:
        name = f"{label}{' (grad)' if grad and label not in BACKWARD_ROWS else ''}"
        cases = {lib: case for lib, m in libs.items() if (case := _small_case(label, op, lib, m, grad)) is not None}
        cells = _side_by_side(cases, 300 if label.startswith("4-op") else 3000)
        ratio = cells["engine"] / cells["torch"] if "torch" in cells else float("nan")
        ratios.append((name, ratio))
        numpy_cell = f"{cells['numpy']:>8.2f}" if "numpy" in cells else f"{'':>8}"
        torch_cell = f"{cells['torch']:>9.2f}" if "torch" in cells else f"{'-':>9}"
        print(f"{name:<26}{numpy_cell}{cells['engine']:>9.2f}{torch_cell}{ratio:>7.1f}x   <= {SMALL_TARGET:.0f}x")
    return ratios


# Informational: more of the ops real code calls, no grad (the targets above cover SMALL_OPS). Each
# takes the library module, a 4x4 float32 tensor `a`, a 0-dim float32 tensor `c`, a float32 vector `v`
# of 4 and a 4x4 int64 tensor `i`.
COMMON_OPS: dict[str, Callable[..., Any]] = {
    "a * 2": lambda m, a, c, v, i: a * 2,
    "a + 1": lambda m, a, c, v, i: a + 1,
    "1 - a": lambda m, a, c, v, i: 1 - a,
    "a / 3": lambda m, a, c, v, i: a / 3,
    "a ** 2": lambda m, a, c, v, i: a ** 2,
    "a * c (0-dim c)": lambda m, a, c, v, i: a * c,
    "a + v (4-vector)": lambda m, a, c, v, i: a + v,
    "a * v (4-vector)": lambda m, a, c, v, i: a * v,
    "i * 2 (int64)": lambda m, a, c, v, i: i * 2,
    "i + 1 (int64)": lambda m, a, c, v, i: i + 1,
    "a.exp()": lambda m, a, c, v, i: a.exp(),
    "a.log()": lambda m, a, c, v, i: a.log(),
    "a.tanh()": lambda m, a, c, v, i: a.tanh(),
    "-a": lambda m, a, c, v, i: -a,
    "a.abs()": lambda m, a, c, v, i: a.abs(),
    "a.sqrt()": lambda m, a, c, v, i: a.sqrt(),
    "a.rsqrt()": lambda m, a, c, v, i: a.rsqrt(),
    "a.sin()": lambda m, a, c, v, i: a.sin(),
    "a.cos()": lambda m, a, c, v, i: a.cos(),
    "a.square()": lambda m, a, c, v, i: a.square(),
    "a.reciprocal()": lambda m, a, c, v, i: a.reciprocal(),
    "a.clamp(min=0)": lambda m, a, c, v, i: a.clamp(min=0),
    "F.gelu(a)": lambda m, a, c, v, i: m.nn.functional.gelu(a),
    "F.silu(a)": lambda m, a, c, v, i: m.nn.functional.silu(a),
    "F.leaky_relu(a)": lambda m, a, c, v, i: m.nn.functional.leaky_relu(a),
    "a.mean()": lambda m, a, c, v, i: a.mean(),
    "a.mean(0)": lambda m, a, c, v, i: a.mean(0),
    "a.view(16)": lambda m, a, c, v, i: a.view(16),
    "a.reshape(2, 8)": lambda m, a, c, v, i: a.reshape(2, 8),
    "a.unsqueeze(0)": lambda m, a, c, v, i: a.unsqueeze(0),
    "a.squeeze()": lambda m, a, c, v, i: a.squeeze(),
    "a.transpose(0, 1)": lambda m, a, c, v, i: a.transpose(0, 1),
    "a.permute(1, 0)": lambda m, a, c, v, i: a.permute(1, 0),
    "a.expand(2, 4, 4)": lambda m, a, c, v, i: a.expand(2, 4, 4),
    "a.flatten()": lambda m, a, c, v, i: a.flatten(),
    "a.contiguous()": lambda m, a, c, v, i: a.contiguous(),
    "a.clone()": lambda m, a, c, v, i: a.clone(),
}


def common_op_table() -> None:
    """Per-op time of COMMON_OPS on 4x4 float32 without grad, engine beside torch (no target)."""
    libs = {lib: m for lib, m in _libraries().items() if lib != "numpy"}
    print("\nother common ops, CPU time on 4x4 float32 without grad, microseconds (informational)")
    print(f"{'op':<26}{'engine':>9}{'torch':>9}{'ratio':>8}")
    for label, op in COMMON_OPS.items():
        cells = _side_by_side({lib: (lambda m=m: (m.rand(4, 4) + 0.5, m.tensor(1.5), m.rand(4),
                                                  m.arange(16).reshape(4, 4) * 1),
                                     lambda *operands, m=m, op=op: op(m, *operands)) for lib, m in libs.items()}, 3000)
        ratio = cells["engine"] / cells["torch"] if "torch" in cells else float("nan")
        torch_cell = f"{cells['torch']:>9.2f}" if "torch" in cells else f"{'-':>9}"
        print(f"{label:<26}{cells['engine']:>9.2f}{torch_cell}{ratio:>7.1f}x")


LARGE_OPS: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    # label: (numpy, engine / torch)
    "a + b": (lambda a, b: a + b, lambda a, b: a + b),
    "a * b": (lambda a, b: a * b, lambda a, b: a * b),
    "a.relu()": (lambda a, b: __import__("numpy").maximum(a, 0, dtype=a.dtype), lambda a, b: a.relu()),
    "a.sigmoid()": (lambda a, b: 1 / (1 + __import__("numpy").exp(-a)), lambda a, b: a.sigmoid()),
    "a.add_(1)": (lambda a, b: a.__iadd__(1), lambda a, b: a.add_(1)),
    "a.sum()": (lambda a, b: a.sum(), lambda a, b: a.sum()),
    "a @ b": (lambda a, b: a @ b, lambda a, b: a @ b),
}


def large_op_table() -> list[tuple[str, float]]:
    """Ops on 2000x2000 float32 (16 MB each): engine against numpy doing the same arithmetic."""
    libs = _libraries()
    import numpy as np

    data = np.random.default_rng(0).standard_normal((2000, 2000), dtype=np.float32)
    ratios = []
    print("\nlarge ops on 2000x2000 float32, milliseconds of CPU")
    print(f"{'op':<14}{'numpy':>9}{'engine':>9}{'torch':>9}{'engine/numpy':>14}   target")
    for label, (np_op, op) in LARGE_OPS.items():
        cells = {}
        for lib, m in libs.items():
            def setup(m: Any = m, lib: str = lib) -> tuple[Any, Any]:
                return (data.copy(), data.copy()) if lib == "numpy" else (m.from_numpy(data.copy()),
                                                                          m.from_numpy(data.copy()))
            cells[lib] = _cpu_us(setup, np_op if lib == "numpy" else op, 5 if label != "a @ b" else 1) / 1000
        ratio = cells["engine"] / cells["numpy"]
        ratios.append((label, ratio))
        torch_cell = f"{cells['torch']:>9.2f}" if "torch" in cells else f"{'-':>9}"
        print(f"{label:<14}{cells['numpy']:>9.2f}{cells['engine']:>9.2f}{torch_cell}{ratio:>13.2f}x   <= {LARGE_TARGET}x")
    return ratios


RELU_PROBE = """
import re, sys, time
import numpy as np
kind, lib = sys.argv[1], sys.argv[2]

def peak_mb():  # VmHWM: this process image's peak RSS (ru_maxrss would inherit the parent's)
    return int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024

data = np.random.default_rng(0).standard_normal((10000, 10000), dtype=np.float32)
if lib == "engine":
    import engine as m
    t = m.from_numpy(data)
elif lib == "torch":
    import torch as m
    t = m.from_numpy(data)
else:
    m, t = np, data
base = peak_mb()
start = time.perf_counter()
if lib == "numpy":
    out = np.maximum(t, np.float32(0)) if kind == "relu" else np.maximum(t, np.float32(0), out=t)
else:
    out = m.relu(t) if kind == "relu" else m.relu_(t)
elapsed = time.perf_counter() - start
print(f"{elapsed * 1000:.1f} {peak_mb() - base:.1f} {base:.1f}")
"""


def relu_memory_table() -> None:
    libraries = ["numpy", "engine"] + (["torch"] if importlib.util.find_spec("torch") else [])
    print("\nrelu vs relu_ on a 10000x10000 float32 tensor (400 MB), each in a fresh process")
    print(f"{'library':<8}{'op':<7}{'time ms':>10}{'added peak RSS MB':>20}{'peak before MB':>16}")
    for lib in libraries:
        for kind in ("relu", "relu_"):
            out = subprocess.run([sys.executable, "-c", RELU_PROBE, kind, lib], capture_output=True, text=True,
                                 check=True, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
                                 ).stdout.split()
            print(f"{lib:<8}{kind:<7}{float(out[0]):>10.1f}{float(out[1]):>20.1f}{float(out[2]):>16.1f}")
    print("  target: relu_ adds under 5% of the tensor to peak RSS, relu adds the tensor's size")


def sigmoid_agreement(n: int = 4_000_000) -> None:
    """How many float32 sigmoid values equal torch's bit for bit, over random inputs of several
    scales (torch on one thread, one dense tensor per scale)."""
    if not importlib.util.find_spec("torch"):
        return
    import numpy as np
    import torch

    import engine

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    same = total = 0
    for scale in (0.5, 2.0, 8.0, 40.0):
        x = (rng.standard_normal(n // 4) * scale).astype(np.float32)
        ours = engine.sigmoid(engine.from_numpy(x)).numpy().view(np.uint32)
        theirs = torch.sigmoid(torch.from_numpy(x)).numpy().view(np.uint32)
        same += int((ours == theirs).sum())
        total += x.size
    print(f"\nfloat32 sigmoid equal to torch's bit for bit: {same:,} of {total:,} random values "
          f"({100 * same / total:.3f}%)   target: all")


def summary(small: list[tuple[str, float]], large: list[tuple[str, float]]) -> None:
    over = [name for name, ratio in small if ratio > SMALL_TARGET]
    print(f"\nsmall ops within {SMALL_TARGET:.0f}x of torch: {len(small) - len(over)} of {len(small)}"
          + (f" (over: {', '.join(over)})" if over else ""))
    over = [name for name, ratio in large if ratio > LARGE_TARGET]
    print(f"large ops within {LARGE_TARGET}x of numpy: {len(large) - len(over)} of {len(large)}"
          + (f" (over: {', '.join(over)})" if over else ""))


if __name__ == "__main__":
    small = small_op_table()
    common_op_table()
    if "--small" in sys.argv:
        sys.exit()
    large = large_op_table()
    sigmoid_agreement()
    if "--quick" not in sys.argv:
        relu_memory_table()
    summary(small, large)
