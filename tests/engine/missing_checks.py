"""Checks shared by the test_missing_* files (functions torch has that the engine gained later):
the same snippet in torch and the engine (tests.oracle), bit-for-bit values and gradients, first and
second derivatives (tests.engine.test_derivative_table's `run`), and errors."""

from __future__ import annotations

import numpy as np

import engine
import engine.nn.functional


def exact_values(torch, code: str, seeds: int = 3) -> tuple[list, list]:
    """The values of every tensor `code` leaves in `results` (and the .grad of those in `leaves`),
    as float64 arrays, from torch and from the engine, after manual_seed(seed) for each seed."""
    sides = []
    for module, functional in ((torch, torch.nn.functional), (engine, engine.nn.functional)):
        values = []
        for seed in range(seeds):
            module.manual_seed(seed)
            namespace = {"torch": module, "F": functional}
            exec(code, namespace)  # noqa: S102 - our own test snippet
            tensors = list(namespace["results"]) + [t.grad for t in namespace.get("leaves", ())]
            values += [np.array(t.detach().double().tolist(), dtype=np.float64) for t in tensors]
        sides.append(values)
    return sides[0], sides[1]


def assert_bit_exact(torch, code: str, seeds: int = 3) -> None:
    expected, got = exact_values(torch, code, seeds)
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        assert e.shape == g.shape
        np.testing.assert_array_equal(g, e)


def error_of(module, code: str) -> tuple[str, str] | None:
    try:
        eval(code, {"torch": module, "F": module.nn.functional})  # noqa: S307 - our own test snippet
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return type(exc).__name__, str(exc)
    return None
