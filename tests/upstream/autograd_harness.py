"""The autograd ports' additions to harness.py: helpers their snippets use, and the comparison.

`graph_desc(fn)` is upstream test_autograd.py's own helper (the graph below a node as
"MulBackward0(AccumulateGrad(), None)"); `_log` is a list snippets append to from hooks, so the
order hooks ran in is compared too. Everything else is harness.py's: the snippet runs in real
torch 2.13 and in the engine and everything it leaves behind is compared in full.
"""

from __future__ import annotations

from typing import Any

from tests.oracle import reconcile, run_snippet, summarize
from tests.upstream.harness import HELPERS, RANDOM, WARN_ONCE


def graph_desc(fn: Any) -> str:
    if fn is None:
        return "None"
    result = type(fn).__name__ + "("
    next_functions = fn.next_functions
    for next_fn, _ in next_functions:
        result += graph_desc(next_fn)
        result += ", "
    if next_functions:
        result = result[:-2]
    return result + ")"


def outcomes(code: str, flag: str | None = None) -> tuple[dict, dict]:
    """harness.compare's two summaries (torch's, then the engine's with its floats reconciled),
    graph_desc among the helpers; the test asserts they are equal, so pytest shows the diff."""
    import torch

    import engine
    import engine.nn
    import engine.nn.functional

    values = flag != RANDOM
    results = []
    for lib, nn, F in ((torch, torch.nn, torch.nn.functional), (engine, engine.nn, engine.nn.functional)):
        lib.manual_seed(0)
        extra = dict(HELPERS, graph_desc=graph_desc)
        results.append(summarize(run_snippet(code, lib, nn, F, extra), values))
    expected, got = results
    if flag == WARN_ONCE:
        expected["warnings"] = got["warnings"] = None
    return expected, reconcile(expected, got)
