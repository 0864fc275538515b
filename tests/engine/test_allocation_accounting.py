"""Live and peak bytes stay exact at every allocation and free, and listeners hear each one, on the
short paths small ops take (results adopted without the general steps, storages freed without a
method call) as on the general ones."""

from __future__ import annotations

import gc

import pytest

import engine
from engine import allocator as allocation
from engine.runtime import Runtime


@pytest.fixture
def heard():
    """A fresh runtime whose allocator reports to a list of (event, storage id, bytes)."""
    with Runtime().active():
        events: list[tuple[str, int, int]] = []
        allocation.allocator.listeners.append(lambda *event: events.append(event))
        yield events


def test_each_small_result_is_heard_when_made_and_when_freed(heard):
    a, b = engine.ones(4, 4), engine.ones(4, 4)
    made = len(heard)
    results = [a + b, a * b, a.relu(), a - b, a / b, a + 1, a * 0.5]
    assert [event for event, _, nbytes in heard[made:]] == ["alloc"] * len(results)
    assert all(nbytes == 64 for _, _, nbytes in heard[made:])
    ids = [storage_id for _, storage_id, _ in heard[made:]]
    assert ids == [r._storage.id for r in results]
    del results
    gc.collect()
    assert sorted(storage_id for event, storage_id, _ in heard if event == "free") == sorted(ids)


def test_live_and_peak_bytes_follow_each_result(heard):
    owner = allocation.allocator
    a, b = engine.ones(4, 4), engine.ones(4, 4)
    base = owner.live_bytes
    owner.reset_peak()
    total = a + b
    assert (owner.live_bytes, owner.peak_bytes, owner.live_count) == (base + 64, base + 64, 2 + 1)
    scaled = total * b
    assert (owner.live_bytes, owner.peak_bytes) == (base + 128, base + 128)
    del total
    assert (owner.live_bytes, owner.peak_bytes, owner.live_count) == (base + 64, base + 128, 2 + 1)
    view = scaled[0]  # a view shares its base's storage: nothing allocated
    scaled.add_(1)  # in place: nothing allocated
    assert owner.live_bytes == base + 64
    del scaled
    assert owner.live_bytes == base + 64  # the view keeps the storage
    del view
    assert owner.live_bytes == base


def test_a_storage_is_freed_by_the_allocator_that_accounted_it(heard):
    a = engine.ones(2, 2)
    outer = allocation.allocator
    result = a + a
    with Runtime().active():
        del result  # freed while another runtime is active: the first allocator gets the bytes back
    assert heard[-1][0] == "free" and outer.live_bytes == a.numel() * a.element_size()
