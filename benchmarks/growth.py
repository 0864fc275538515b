"""Replay at length: one-line statements over 50 names, 1k to 8k statements, through the worker.

Run by hand: `python benchmarks/growth.py` (`--quick` stops at 4k). Each length runs in a fresh
process doing what `tensorscope replay FILE --json` does (a worker session runs the whole script,
then every step's trace line is written), and reports its time and the resident memory of both
ends. Targets (issue 15): 10,000 statements in under 10 s; the time per statement flat (within
1.5x) from 1k to 8k; under 5 KB kept per unchanged step. Figures are printed, never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

NAMES = 50
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def changing_script(statements: int) -> str:
    """Every statement rebinds one of 50 names to a new tensor (the issue's workload)."""
    lines = ["import torch", "x = torch.ones(4, 4)"]
    lines.extend(f"y{i % NAMES} = x + {i}" for i in range(statements - len(lines)))
    return "\n".join(lines) + "\n"


def unchanged_script(statements: int) -> str:
    """50 live tensors, then statements that change no tensor (a name bound to a number)."""
    lines = ["import torch", "x = torch.ones(4, 4)"]
    lines.extend(f"y{i} = x + {i}" for i in range(NAMES))
    lines.extend(f"k = {i}" for i in range(statements - len(lines)))
    return "\n".join(lines) + "\n"


PROBE = """
import json, os, re, sys, time
started = time.perf_counter()
cpu = time.process_time()
from tensorscope import trace
from tensorscope.worker.client import WorkerSession

def rss_kib(pid):
    return int(re.search(r"VmRSS:\\s+(\\d+)", open(f"/proc/{pid}/status").read()).group(1))

source = sys.stdin.read()
with WorkerSession(time_limit=600) as session, open(os.devnull, "w") as sink:
    steps = session.run(source)
    for step in steps:
        sink.write(trace.step_line(step.snapshot) + "\\n")
    elapsed = time.perf_counter() - started
    front_cpu = time.process_time() - cpu
    worker = session.isolation["pid"]
    with open(f"/proc/{worker}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    worker_cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    print(json.dumps({"steps": len(steps), "seconds": elapsed, "front_cpu": front_cpu, "worker_cpu": worker_cpu,
                      "front_kib": rss_kib(os.getpid()), "worker_kib": rss_kib(worker)}))
"""


def run(source: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", PROBE], input=source, capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    return json.loads(out.splitlines()[-1])


def command_seconds(source: str) -> float:
    """`tensorscope replay FILE --json` itself, wall clock from the command's start."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as file:
        file.write(source)
    try:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tensorscope", "replay", file.name, "--json"], check=True,
                       stdout=subprocess.DEVNULL, cwd=ROOT)
        return time.perf_counter() - started
    finally:
        os.unlink(file.name)


def growth(make, lengths: list[int], label: str) -> list[tuple[int, dict[str, float]]]:
    print(label)
    print(f"{'statements':>10}{'wall s':>9}{'cpu s':>8}{'cpu ms/stmt':>13}{'worker MB':>11}{'front MB':>10}")
    rows = []
    for n in lengths:
        figures = run(make(n))
        cpu = figures["front_cpu"] + figures["worker_cpu"]
        rows.append((n, figures))
        print(f"{n:>10,}{figures['seconds']:>9.2f}{cpu:>8.2f}{cpu / n * 1000:>13.3f}"
              f"{figures['worker_kib'] / 1024:>11.1f}{figures['front_kib'] / 1024:>10.1f}")
    return rows


def kept_per_step(rows: list[tuple[int, dict[str, float]]]) -> float:
    """KiB of resident memory (both ends) each further step keeps, between the shortest and longest run."""
    (n0, a), (n1, b) = rows[0], rows[-1]
    return ((b["worker_kib"] + b["front_kib"]) - (a["worker_kib"] + a["front_kib"])) / (n1 - n0)


def per_statement_ratio(rows: list[tuple[int, dict[str, float]]]) -> float:
    def per(figures: dict[str, float], n: int) -> float:
        return (figures["front_cpu"] + figures["worker_cpu"]) / n

    return per(rows[-1][1], rows[-1][0]) / per(rows[0][1], rows[0][0])


def main() -> None:
    lengths = [1000, 2000, 4000] if "--quick" in sys.argv else [1000, 2000, 4000, 8000]
    rows = growth(changing_script, lengths, f"`y{{i % {NAMES}}} = x + i`: each statement rebinds one of {NAMES} names")
    print(f"  time per statement {lengths[-1] // 1000}k vs 1k: {per_statement_ratio(rows):.2f}x   (target <= 1.5x)")
    print(f"  kept per step: {kept_per_step(rows):.1f} KiB")
    rows = growth(unchanged_script, lengths, f"\n{NAMES} live tensors, then statements that change none (`k = i`)")
    print(f"  time per statement {lengths[-1] // 1000}k vs 1k: {per_statement_ratio(rows):.2f}x   (target <= 1.5x)")
    print(f"  kept per unchanged step: {kept_per_step(rows):.1f} KiB   (target < 5 KB)")
    if "--quick" not in sys.argv:
        seconds = command_seconds(changing_script(10_000))
        print(f"\n`tensorscope replay --json`, 10,000 statements over {NAMES} names: {seconds:.1f} s   (target < 10 s)")


if __name__ == "__main__":
    main()
