"""`python -m tests.fuzz`: generate programs, run each in torch and in the engine, report agreement.

    python -m tests.fuzz --count 5000            # seeds 0..4999
    python -m tests.fuzz --start 100 --count 1   # one program, printed with its result
    python -m tests.fuzz --count 500 --jobs 2

Prints `agreement: P/N`, then each distinct failure (by signature: the kind of statement and the
field where the traces first part) with how often it occurred and its minimal repro.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections import defaultdict

from tests.fuzz import known
from tests.fuzz.generate import generate
from tests.fuzz.run import PATHS, Mismatch, check, shrink


def _one(seed: int, paths: tuple[str, ...]) -> tuple[int, Mismatch | None]:
    import torch

    program = generate(seed, torch)
    return seed, check(program, paths)


def _star(args: tuple[int, tuple[str, ...]]) -> tuple[int, Mismatch | None]:
    return _one(*args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--count", type=int, default=500, help="number of programs (default 500)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--paths", default=",".join(PATHS), help="engine,replay (default both)")
    parser.add_argument("--no-shrink", action="store_true", help="report failures without shrinking them")
    parser.add_argument("--show", type=int, default=40, help="distinct failures to print (default 40)")
    args = parser.parse_args(argv)
    paths = tuple(p for p in args.paths.split(",") if p)
    seeds = range(args.start, args.start + args.count)

    started = time.monotonic()
    failures: dict[str, list[tuple[int, Mismatch]]] = defaultdict(list)
    work = [(seed, paths) for seed in seeds]
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            results = pool.imap_unordered(_star, work, chunksize=8)
            outcomes = list(results)
    else:
        outcomes = [_one(seed, paths) for seed in seeds]
    for seed, mismatch in sorted(outcomes, key=lambda o: o[0]):
        if mismatch is not None:
            failures[mismatch.signature].append((seed, mismatch))
    failed = sum(len(v) for v in failures.values())
    total = len(seeds)
    print(f"agreement: {total - failed}/{total} ({(total - failed) / max(total, 1):.2%}) "
          f"in {time.monotonic() - started:.0f}s")
    left = sum(len(v) for signature, v in failures.items() if known.reason(signature))
    if left:
        counted = total - left
        print(f"agreement outside the open items of other streams (tests/fuzz/known.py, {left} programs): "
              f"{total - failed}/{counted} ({(total - failed) / max(counted, 1):.2%})")

    if args.count == 1 and not failed:
        import torch

        print(generate(args.start, torch).source())
    ranked = sorted(failures.items(), key=lambda kv: -len(kv[1]))
    for signature, hits in ranked[: args.show]:
        seed, mismatch = hits[0]
        print(f"\n--- {len(hits)}x  {signature}  [{mismatch.path}]  seeds {[s for s, _ in hits[:8]]}")
        if known.reason(signature):
            print(f"    (left to another stream: {known.reason(signature)})")
        import torch

        program = generate(seed, torch)
        if not args.no_shrink:
            program, mismatch = shrink(program, mismatch)
        print(program.source().rstrip())
        print(f"  step {mismatch.step} ({mismatch.field}):")
        print(f"    torch : {mismatch.expected}")
        print(f"    engine: {mismatch.got}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
