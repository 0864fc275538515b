"""Run generated programs in both Paddles and count agreement."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from engine.paddle.random import DEFAULT_SEED
from tests.fuzz_paddle import observe
from tests.fuzz_paddle.generate import Program, program
from tests.fuzz_paddle.shrink import shrink


def real_paddle() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle
    return paddle


def run_real(paddle: Any, statements: tuple[str, ...]) -> list[observe.StepFacts]:
    """A fresh-process start for real Paddle: CPU, float32 default, the dialect's starting seed."""
    counters = observe.Counters(paddle)
    paddle.set_device("cpu")
    paddle.set_default_dtype("float32")
    paddle.seed(DEFAULT_SEED)
    with paddle.utils.unique_name.guard():
        return observe.run(statements, paddle, counters)


def run_dialect(statements: tuple[str, ...]) -> list[observe.StepFacts]:
    import engine
    import engine.paddle

    engine.paddle.reset()
    engine.cuda.configure(enabled=False)  # the reference is the CPU wheel
    try:
        return observe.run(statements, engine.paddle)
    finally:
        engine.paddle.reset()
        engine.cuda.configure(enabled=True)


def difference(paddle: Any, statements: tuple[str, ...]) -> str | None:
    return observe.first_difference(run_real(paddle, statements), run_dialect(statements))


@dataclass
class Outcome:
    program: Program
    difference: str | None
    minimal: tuple[str, ...] | None = None


def check(paddle: Any, prog: Program, minimise: bool = True) -> Outcome:
    found = difference(paddle, prog.statements)
    if found is None or not minimise:
        return Outcome(prog, found)
    minimal = shrink(prog.statements, lambda s: difference(paddle, s) is not None)
    return Outcome(prog, difference(paddle, minimal), minimal)


def campaign(count: int, first_seed: int = 0, minimise: bool = True) -> list[Outcome]:
    paddle = real_paddle()
    return [check(paddle, program(seed), minimise) for seed in range(first_seed, first_seed + count)]
