"""Paddle's tensor names and their counters (one set per runtime).

A tensor made by `to_tensor`/`from_numpy` is named `generated_tensor_N` when it is made, one made by
`detach()` `eager_in_tmp_N` (one counter for both); any other gets `eager_tmp_N` the first time its
`.name` is read (until then its name is empty, which is what the leaf error shows: `Leaf Var ()`).
Parameters are named by their layer: `linear_0.w_0`, and a name can be used by one parameter only.
Each runtime (each tensorscope session) starts from fresh counters, as a fresh process would.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

from engine import runtime


class Counters:
    """The name counters of one run: a part of the engine's runtime, so each session counts afresh."""

    __slots__ = ("eager", "generated", "parameters", "unique")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.generated = itertools.count()
        self.eager = itertools.count()
        self.unique: defaultdict[str, itertools.count] = defaultdict(itertools.count)
        self.parameters: set[str] = set()


counters: Counters = runtime.slot(__name__, "counters", Counters)


def generated() -> str:
    return f"generated_tensor_{next(counters.generated)}"


def eager_in_tmp() -> str:
    """What detach() names its result, at once; it counts with generated_tensor_N (measured:
    to_tensor, detach, to_tensor give generated_tensor_0, eager_in_tmp_1, generated_tensor_2)."""
    return f"eager_in_tmp_{next(counters.generated)}"


def eager_tmp() -> str:
    return f"eager_tmp_{next(counters.eager)}"


def unique(prefix: str) -> str:
    """Paddle's unique_name.generate: `linear_0`, `linear_1`, `linear_0.w_0`... one counter per prefix."""
    return f"{prefix}_{next(counters.unique[prefix])}"


def claim_parameter(name: str) -> bool:
    """Record a parameter name; False when a parameter of this run already has it (Paddle refuses a
    second parameter of the same name in dygraph mode)."""
    if name in counters.parameters:
        return False
    counters.parameters.add(name)
    return True


def reset() -> None:
    counters.reset()
