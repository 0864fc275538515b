"""An op's fresh result starts with the shared UNSHARED placeholder as its version counter and gets
a counter of its own only when it is first shared or written: versions, version errors and
counter sharing come out as in torch all the same."""

from __future__ import annotations

import pytest

import engine
from engine import inspect
from engine.tensor import UNSHARED


def _story(lib):
    """Versions seen along a program that shares and bumps fresh results' counters every way."""
    seen = []
    a = lib.ones(3) * 2  # a fresh result
    b = lib.ones(3) * 3  # another: its counter is not a's
    seen.append((a._version, b._version))
    view = a[1:]
    view.add_(1)  # the base sees its view's write
    seen.append((a._version, view._version, b._version))
    alias = b.detach()
    alias.mul_(2)  # detach() shares the counter
    seen.append((b._version, alias._version))
    c = lib.ones(3) + 1
    c.data = lib.ones(3) * 5  # .data's setter keeps c's own counter
    seen.append(c._version)
    d = lib.ones(2) - 1
    d.add_(1).add_(1)
    seen.append(d._version)
    return seen


def test_versions_of_fresh_results_follow_torch(torch):
    assert _story(engine) == _story(torch)


def test_a_saved_fresh_output_changed_in_place_fails_backward(torch):
    for lib in (engine, torch):
        x = lib.ones(3, requires_grad=True)
        y = x.exp()  # exp saves its fresh result
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_a_fresh_result_shares_no_counter_until_it_must():
    a, b = engine.ones(2) * 2, engine.ones(2) * 2
    assert a._vc is UNSHARED and b._vc is UNSHARED
    assert not inspect.shares_version_counter(a, b)
    assert inspect.shares_version_counter(a, a)
    view = a.view(2)
    assert a._vc is not UNSHARED and inspect.shares_version_counter(a, view)
    assert inspect.view_identity(a) != inspect.view_identity(b)


def test_the_placeholder_cannot_be_written():
    with pytest.raises(AttributeError):
        UNSHARED.value = 1
