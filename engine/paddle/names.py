"""Paddle's tensor names and their counters (one set per runtime).

A tensor made by `to_tensor`/`from_numpy` is named `generated_tensor_N` when it is made; any other
gets `eager_tmp_N` the first time its `.name` is read (until then its name is empty, which is what
the leaf error shows: `Leaf Var ()`). Parameters are named by their layer: `linear_0.w_0`.
Each runtime (each tensorscope session) starts from fresh counters, as a fresh process would.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

from engine import runtime


class Counters:
    """The name counters of one run: a part of the engine's runtime, so each session counts afresh."""

    __slots__ = ("eager", "generated", "unique")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.generated = itertools.count()
        self.eager = itertools.count()
        self.unique: defaultdict[str, itertools.count] = defaultdict(itertools.count)


counters: Counters = runtime.slot(__name__, "counters", Counters)


def generated() -> str:
    return f"generated_tensor_{next(counters.generated)}"


def eager_tmp() -> str:
    return f"eager_tmp_{next(counters.eager)}"


def unique(prefix: str) -> str:
    """Paddle's unique_name.generate: `linear_0`, `linear_1`, `linear_0.w_0`... one counter per prefix."""
    return f"{prefix}_{next(counters.unique[prefix])}"


def reset() -> None:
    counters.reset()
