"""The bit-exact random generator against numpy's own and torch's, on large tensors.

Run by hand: `python benchmarks/generator.py` (`--quick`: 10^7 elements instead of 10^8). The
engine replays ATen's CPU kernels (mt19937 words, Box-Muller in blocks of 16 with the Cephes
polynomials for float32, libm for float64), so its values equal torch's; numpy's generator
(PCG64, ziggurat) draws the same distribution with no such constraint. CPU seconds, the least of
a few runs. Target (issue 15): a 10^8-element float32 `randn` within 3x of numpy's generator. The
simulated CUDA device draws from a generator of its own (numpy's SFC64), so its row has no torch
column: a GPU's values are curand's.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections.abc import Callable

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

TARGET = 3.0


def cpu_seconds(draw: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        draw()
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    import numpy as np

    import engine

    n = 10**7 if "--quick" in sys.argv else 10**8
    repeats = 3
    torch = None
    if importlib.util.find_spec("torch"):
        import torch

        torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    cases = {
        "randn float32": (lambda: rng.standard_normal(n, dtype=np.float32), lambda: engine.randn(n),
                          torch and (lambda: torch.randn(n))),
        "rand float32": (lambda: rng.random(n, dtype=np.float32), lambda: engine.rand(n),
                         torch and (lambda: torch.rand(n))),
        "randn float64 (n/10)": (lambda: rng.standard_normal(n // 10), lambda: engine.randn(n // 10, dtype=engine.float64),
                                 torch and (lambda: torch.randn(n // 10, dtype=torch.float64))),
        "normal_ float32": (lambda: rng.standard_normal(n, dtype=np.float32), lambda: engine.empty(n).normal_(),
                            torch and (lambda: torch.empty(n).normal_())),
        # the simulated GPU's own stream: no CPU replay (a GPU's values are curand's), numpy's speed
        "randn float32 cuda": (lambda: rng.standard_normal(n, dtype=np.float32),
                               lambda: engine.randn(n, device="cuda"), None),
    }
    print(f"{n:,} elements (threads: 1), CPU seconds")
    print(f"{'draw':<22}{'numpy':>8}{'engine':>8}{'torch':>8}{'engine/numpy':>14}   target")
    for label, (numpy_draw, engine_draw, torch_draw) in cases.items():
        numpy_s = cpu_seconds(numpy_draw, repeats)
        engine_s = cpu_seconds(engine_draw, repeats)
        torch_cell = f"{cpu_seconds(torch_draw, repeats):>8.2f}" if torch_draw else f"{'-':>8}"
        target = f"<= {TARGET:.0f}x" if label == "randn float32" else ""
        print(f"{label:<22}{numpy_s:>8.2f}{engine_s:>8.2f}{torch_cell}{engine_s / numpy_s:>13.2f}x   {target}")


if __name__ == "__main__":
    main()
