"""How many corpus programs run identically to real torch, each way.

    python -m tests.corpus.measure            # every program
    python -m tests.corpus.measure NAME ...   # some of them, with the first difference shown
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

from tests.corpus.harness import (
    comparable,
    comparable_step,
    program_names,
    program_source,
    run_program,
)
from tests.oracle import reconcile
from tests.torch_trace import record


def _first_difference(real: object, ours: object, path: str = "") -> str | None:
    if isinstance(real, dict) and isinstance(ours, dict):
        for key in sorted(set(real) | set(ours), key=str):
            found = _first_difference(real.get(key), ours.get(key), f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(real, list) and isinstance(ours, list) and len(real) == len(ours):
        for i, (a, b) in enumerate(zip(real, ours)):
            found = _first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if real == ours else f"{path}: torch {real!r:.300} / engine {ours!r:.300}"


def with_engine(source: str) -> str | None:
    real = comparable(run_program(source, "torch"))
    ours = comparable(run_program(source, "engine"))
    return _first_difference(real, reconcile(real, ours))


def through_replay(source: str) -> str | None:
    from tensorscope.cli import main

    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "program.py"
        script.write_text(source, encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["replay", str(script), "--json"])
    ours = [comparable_step(json.loads(line)) for line in out.getvalue().splitlines()]
    theirs = [comparable_step(step) for step in record(source)]
    if len(ours) != len(theirs):
        return f"{len(ours)} steps, torch {len(theirs)}"
    for mine, real in zip(ours, theirs):
        found = _first_difference(real, reconcile(real, mine))
        if found:
            return f"step {real['step']} ({real['source'].splitlines()[0]}): {found}"
    return None


def main(names: list[str]) -> None:
    chosen = names or program_names()
    both = 0
    for name in chosen:
        source = program_source(name)
        engine, replay = with_engine(source), through_replay(source)
        both += engine is None and replay is None
        print(f"{name:38} engine {'ok' if engine is None else 'DIFF'}  replay {'ok' if replay is None else 'DIFF'}")
        if names:
            for label, diff in (("engine", engine), ("replay", replay)):
                if diff:
                    print(f"    {label}: {diff}")
    print(f"{both} of {len(chosen)} identical both ways")


if __name__ == "__main__":
    main(sys.argv[1:])
