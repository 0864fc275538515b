"""Start-up: how long the command takes to answer, from process start.

Run by hand: `python benchmarks/startup.py` (`--quick` skips `check`). Each command runs as a fresh
process; the least wall time of a few runs is printed, with its CPU time (user + system, the
worker processes included), which moves less when the machine is busy. Targets (issue 15):
`tensorscope list` and `--help` under 0.3 s; `tensorscope check` on the bundled scenarios under
5 s. Figures are printed, never asserted.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(arguments: list[str], repeats: int) -> tuple[float, float]:
    """(least wall seconds, CPU seconds of that run) of `python -m tensorscope ARGS`."""
    best = (float("inf"), 0.0)
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tensorscope", *arguments], stdout=subprocess.DEVNULL, check=False,
                       cwd=ROOT)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, (wall, cpu))
    return best


def python_alone() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import yaml"], check=True)
    return time.perf_counter() - started


def main() -> None:
    print(f"{'command':<34}{'wall s':>8}{'cpu s':>8}   target")
    floor = "python -c 'import yaml'"
    print(f"{floor:<34}{python_alone():>8.2f}{'':>8}   (the floor)")
    cases = [(["--help"], 0.3, 5), (["list"], 0.3, 5)]
    if "--quick" not in sys.argv:
        cases.append((["check"], 5.0, 2))
    for arguments, target, repeats in cases:
        wall, cpu = timed(arguments, repeats)
        print(f"{'tensorscope ' + ' '.join(arguments):<34}{wall:>8.2f}{cpu:>8.2f}   < {target} s")


if __name__ == "__main__":
    main()
