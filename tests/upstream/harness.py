"""How a ported PyTorch test runs: the same snippet in real torch 2.13 and in the engine, compared in full.

A port keeps the upstream test's code and turns its assertions into state the comparison sees: the
values, shapes, strides, storage sharing, versions, grad_fn names and grads of every tensor the
snippet leaves behind, what it printed, the exception (type and text) and the warnings. Where the
upstream test checks an error inside a loop, the snippet records it with `_err(fn)`, which returns
`(type name, message)` or the call's result, so the loop's errors are compared too.

    CASES = cases(
        ("test_select_view", "t = torch.ones((5, 5))\\nv = t.select(0, 2)\\nv[0] = 0"),
        ...
    )
    XFAIL = {"test_select_view": "why this one still differs"}

Random inputs are drawn after `manual_seed(0)` on both sides (the engine's generator follows
torch's bit for bit), so upstream tests that use randn keep their shape.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from tests.oracle import drop_warn_once, reconcile, run_snippet, summarize

WARN_ONCE = "warn once"  # a TORCH_WARN_ONCE warning: whether it shows depends on what ran before
RANDOM = "random"  # values drawn without a seed that both sides share (empty(), ...)



def _err(fn: Callable[[], Any]) -> Any:
    """The call's result, or its exception as (type name, message): errors become comparable data."""
    try:
        return fn()
    except Exception as exc:  # every exception is part of the behaviour under test
        return (type(exc).__name__, str(exc))


HELPERS = {"_err": _err}


def cases(*entries: tuple[str, str] | tuple[str, str, str], xfail: dict[str, str] | None = None) -> list[Any]:
    """pytest params (code, flag) with the upstream test's name as id; strict xfail where listed.
    Code may be written indented in a triple-quoted string: it is dedented."""
    xfail = xfail or {}
    params = []
    for entry in entries:
        name, code = entry[0], textwrap.dedent(entry[1]).strip("\n")
        flag = entry[2] if len(entry) > 2 else None
        marks = [pytest.mark.xfail(strict=True, reason=xfail[name])] if name in xfail else []
        params.append(pytest.param(code, flag, id=name, marks=marks))
    ids = [p.id for p in params]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"duplicate case names: {sorted(duplicates)}"
    unknown = set(xfail) - set(ids)
    assert not unknown, f"xfail entries for no case: {sorted(unknown)}"
    return params


def compare(code: str, flag: str | None = None) -> None:
    """Run `code` in torch and in the engine and assert they leave the same world behind."""
    import torch

    import engine
    import engine.nn
    import engine.nn.functional

    values = flag != RANDOM
    torch.manual_seed(0)
    engine.manual_seed(0)
    expected = summarize(run_snippet(code, torch, torch.nn, torch.nn.functional, dict(HELPERS)), values)
    got = summarize(run_snippet(code, engine, engine.nn, engine.nn.functional, dict(HELPERS)), values)
    if flag == WARN_ONCE:
        expected["warnings"] = got["warnings"] = None
    else:
        expected["warnings"], got["warnings"] = drop_warn_once(expected["warnings"]), drop_warn_once(got["warnings"])
    assert reconcile(expected, got) == expected
