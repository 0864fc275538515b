"""The fuzzer's fixed slice in CI: programs 0..299 run in torch 2.13, in the engine (`import engine as
torch`) and through replay's trace, each compared in full (tests/fuzz/run.py).

Programs whose mismatch belongs to another stream's open work (tests/fuzz/known.py) are strict
xfails naming the reason and the exact signature; one that starts agreeing, or fails differently,
fails the suite, so this list is kept true. `python -m tests.fuzz --start SEED --count 1` prints a
program and its minimal repro.
"""

from __future__ import annotations

import pytest

from tests.fuzz import known

torch = pytest.importorskip("torch")

SLICE = range(300)

# seed -> the signature of its (known) first mismatch
KNOWN_SEEDS: dict[int, str] = {}


def _params() -> list:
    params = []
    for seed in SLICE:
        marks = []
        if seed in KNOWN_SEEDS:
            why = known.reason(KNOWN_SEEDS[seed])
            assert why, f"seed {seed}: {KNOWN_SEEDS[seed]!r} is not a known class"
            marks.append(pytest.mark.xfail(strict=True, raises=AssertionError,
                                           reason=f"{KNOWN_SEEDS[seed]}: {why}"))
        params.append(pytest.param(seed, marks=marks, id=str(seed)))
    return params


@pytest.mark.parametrize("seed", _params())
def test_program_agrees_with_torch(seed: int) -> None:
    from tests.fuzz.generate import generate
    from tests.fuzz.run import check

    program = generate(seed, torch)
    mismatch = check(program)
    if mismatch is not None and seed in KNOWN_SEEDS and mismatch.signature != KNOWN_SEEDS[seed]:
        raise RuntimeError(f"seed {seed} now fails differently: {mismatch.signature}")  # not the xfail's kind
    assert mismatch is None, (
        f"{program.source()}\nstep {mismatch.step} [{mismatch.path}] {mismatch.field}:\n"
        f"  torch : {mismatch.expected}\n  engine: {mismatch.got}")
