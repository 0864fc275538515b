"""Paddle's tensor names and their process-wide counters.

A tensor made by `to_tensor`/`from_numpy` is named `generated_tensor_N` when it is made, one made by
`detach()` `eager_in_tmp_N` (one counter for both); any other gets `eager_tmp_N` the first time its `.name` is read (until then its name is empty, which is what
the leaf error shows: `Leaf Var ()`). Parameters are named by their layer: `linear_0.w_0`.
tensorscope starts every run from fresh counters, as a fresh process would (`reset()`).
"""

from __future__ import annotations

import itertools
from collections import defaultdict

_generated = itertools.count()
_eager = itertools.count()
_unique: defaultdict[str, itertools.count] = defaultdict(itertools.count)
_parameter_names: set[str] = set()


def generated() -> str:
    return f"generated_tensor_{next(_generated)}"


def eager_in_tmp() -> str:
    """What detach() names its result, at once; it counts with generated_tensor_N (measured:
    to_tensor, detach, to_tensor give generated_tensor_0, eager_in_tmp_1, generated_tensor_2)."""
    return f"eager_in_tmp_{next(_generated)}"


def eager_tmp() -> str:
    return f"eager_tmp_{next(_eager)}"


def unique(prefix: str) -> str:
    """Paddle's unique_name.generate: `linear_0`, `linear_1`, `linear_0.w_0`... one counter per prefix."""
    return f"{prefix}_{next(_unique[prefix])}"


def claim_parameter(name: str) -> bool:
    """Record a parameter name; False when a parameter of this process already has it (Paddle
    refuses a second parameter of the same name in dygraph mode)."""
    if name in _parameter_names:
        return False
    _parameter_names.add(name)
    return True


def reset() -> None:
    global _generated, _eager
    _generated = itertools.count()
    _eager = itertools.count()
    _unique.clear()
    _parameter_names.clear()
