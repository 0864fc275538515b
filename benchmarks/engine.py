"""Engine speed and memory figures, printed side by side with torch and numpy.

Run by hand: `python benchmarks/engine.py` (torch columns appear when torch is installed).
Targets: per-op overhead at most 5x torch's; large-tensor ops within 1.2x of numpy; `relu_` adds
under 5% to peak RSS while `relu` adds the tensor's size.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import timeit

# This file is named like the package it measures: keep its own folder off the import path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

SMALL_OPS = {
    "a + b": lambda m, a, b: a + b,
    "a * b": lambda m, a, b: a * b,
    "a.relu()": lambda m, a, b: m.relu(a),
    "a.t()": lambda m, a, b: m.t(a),
    "a[0]": lambda m, a, b: a[0],
    "a.sum()": lambda m, a, b: a.sum() if hasattr(a, "sum") else None,
    "a.add_(1)": lambda m, a, b: m.add_(a),
}


class _NumpyAdapter:
    relu = staticmethod(lambda a: __import__("numpy").maximum(a, 0))
    t = staticmethod(lambda a: a.T)
    add_ = staticmethod(lambda a: a.__iadd__(1))


class _TorchLikeAdapter:
    relu = staticmethod(lambda a: a.relu())
    t = staticmethod(lambda a: a.t())
    add_ = staticmethod(lambda a: a.add_(1) if not a.requires_grad else a.mul(1))


def _per_op_us(make, adapter, op, number: int = 3000) -> float:
    a, b = make(), make()
    timer = timeit.Timer(lambda: op(adapter, a, b))
    return min(timer.repeat(5, number)) / number * 1e6


def small_op_table() -> None:
    import numpy as np

    import engine

    columns = {
        "numpy": lambda: np.ones((4, 4), dtype=np.float32),
        "engine": lambda: engine.ones(4, 4),
        "engine (grad)": lambda: engine.ones(4, 4).requires_grad_() * 1,
    }
    adapters = {"numpy": _NumpyAdapter, "engine": _TorchLikeAdapter, "engine (grad)": _TorchLikeAdapter}
    if importlib.util.find_spec("torch"):
        import torch

        torch.set_num_threads(1)
        columns["torch"] = lambda: torch.ones(4, 4)
        columns["torch (grad)"] = lambda: torch.ones(4, 4).requires_grad_() * 1
        adapters["torch"] = adapters["torch (grad)"] = _TorchLikeAdapter
    print("per-op time on 4x4 float32, microseconds")
    print(f"{'op':<12}" + "".join(f"{name:>15}" for name in columns) + f"{'engine/torch':>14}")
    for label, op in SMALL_OPS.items():
        cells = {name: _per_op_us(make, adapters[name], op) for name, make in columns.items()}
        ratio = f"{cells['engine'] / cells['torch']:.1f}x" if "torch" in cells else "-"
        print(f"{label:<12}" + "".join(f"{cells[name]:>15.2f}" for name in columns) + f"{ratio:>14}")


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


if __name__ == "__main__":
    small_op_table()
    relu_memory_table()
