"""Run a dual scenario's Paddle code with real PaddlePaddle 3.3.1 and check its `paddle_expect`
there: the proof that a side-by-side story is true to Paddle, not just to the dialect.

A trusted test tool, like scenario_torch: the scenario's Paddle code runs with `exec`, one
top-level statement at a time (expressions echo, an error ends the statement but not the step, a
step's error is the first one raised).

What real Paddle can tell is checked: errors (type, and message containment/equality once the
build's `(at /paddle/...)` tail is cut), printed output, warnings, `inplace_version` (the trace's
version), `not stop_gradient` (requires_grad), is_leaf, grad_fn (`name()`), shape, dtype, values,
grads, and storage sharing (`_is_shared_buffer_with` between tensors; overlapping bytes, from
`data_ptr()`, between a tensor and a numpy array). Not compared: is_view and stride (Paddle's
stride kernels decide them per build), saved/stale (Paddle does not expose saved tensors), and the
engine's memory figures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorscope.scenario import Scenario
from tests.paddle.harness import strip_tail
from tests.tensorscope.scenario_torch import (
    Comparison,
    StepOutcome,
    close,
    memory_span,
    outcome_mismatch,
    overlap,
    run_statement,
    statements,
)

NOT_COMPARED = {"memory", "cuda_memory", "is_view", "stride", "saved", "stale"}


def named_objects(namespace: dict[str, Any]) -> dict[str, Any]:
    """Tensors and arrays by name."""
    import paddle

    return {name: value for name, value in sorted(namespace.items())
            if not name.startswith("__") and isinstance(value, (paddle.Tensor, np.ndarray))}


def span(value: Any) -> tuple[int, int]:
    if isinstance(value, np.ndarray):
        return memory_span(value)
    start = value.data_ptr()
    return start, start + max(int(np.prod(value.shape)), 1) * value.element_size()


def shared(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        return bool(a._is_shared_buffer_with(b))
    return overlap(span(a), span(b))


def fact(key: str, value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return {"values": value.tolist(), "shape": list(value.shape), "dtype": value.dtype.name,
                "requires_grad": False, "is_leaf": True, "grad_fn": None, "grad": None,
                "version": 0}.get(key, "<not an ndarray fact>")
    readers = {
        "version": lambda t: t.inplace_version, "is_leaf": lambda t: t.is_leaf,
        "requires_grad": lambda t: not t.stop_gradient,
        "grad_fn": lambda t: None if t.grad_fn is None else t.grad_fn.name(),
        "shape": lambda t: list(t.shape), "dtype": lambda t: str(t.dtype).removeprefix("paddle."),
        "values": lambda t: t.numpy().tolist(),
        "grad": lambda t: None if t.grad is None else t.grad.numpy().tolist(),
    }
    return readers[key](value)


def mismatches(expect: dict[str, Any], outcome: StepOutcome, objects: dict[str, Any]) -> list[str]:
    """The paddle expectations real Paddle disagrees with, each as `key: expected X, paddle gives Y`."""
    found = []

    def differ(key: str, expected: Any, actual: Any) -> None:
        found.append(f"{key}: expected {expected!r}, paddle gives {actual!r}")

    for key, wanted in expect.items():
        if key in NOT_COMPARED:
            continue
        if key in ("error", "output", "warns"):
            if (disagreement := outcome_mismatch(key, wanted, outcome, strip_tail)) is not None:
                differ(key, *disagreement)
        elif key == "shares_storage":
            for group in wanted:
                missing = [n for n in group if n not in objects]
                if missing:
                    differ(f"shares_storage {group}", "names that exist", missing)
                elif not all(shared(objects[group[0]], objects[n]) for n in group):
                    differ(f"shares_storage {group}", "one buffer", "separate buffers")
            for i, first in enumerate(wanted):
                for second in wanted[i + 1:]:
                    if first and second and first[0] in objects and second[0] in objects and \
                            shared(objects[first[0]], objects[second[0]]):
                        differ("shares_storage (groups apart)", f"{first} apart from {second}", "shared")
        else:
            for name, expected in wanted.items():
                actual = fact(key, objects[name]) if name in objects else "<no such name>"
                if not close(expected, actual):
                    differ(f"{key}.{name}", expected, actual)
    return found


def compare(scenario: Scenario) -> Comparison:
    """Run the scenario's Paddle setup and steps in real Paddle (CPU), checking each step's
    `paddle_expect`."""
    import paddle

    paddle.set_device("cpu")
    paddle.seed(0)
    namespace: dict[str, Any] = {"__name__": "__scenario__"}
    result = Comparison()
    setup = StepOutcome()
    for statement in statements(scenario.paddle_setup):
        run_statement(statement, namespace, setup)
    if setup.error is not None:
        result.mismatches.append(f"setup: {setup.error[0]}: {setup.error[1]}")
        return result
    for index, step in enumerate(scenario.steps, start=1):
        outcome = StepOutcome()
        for statement in statements(step.paddle):
            run_statement(statement, namespace, outcome)
        objects = named_objects(namespace)
        result.mismatches.extend(f"step {index}: {m}" for m in mismatches(step.paddle_expect, outcome, objects))
        result.compared = index
    return result
