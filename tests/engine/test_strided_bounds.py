"""as_strided, as_strided_, set_, resize_ and expand with negative, overflowing or out-of-bounds
layouts: the engine refuses (or accepts) each one as torch 2.13 does, with torch's message, and a
layout it accepts never reaches memory outside its storage."""

from __future__ import annotations

import itertools

import pytest

import engine

BIG = 2**40
LAYOUTS = [
    ((2,), (1,)), ((2,), (-1,)), ((2, 3), (3, -1)), ((-2,), (1,)), ((-1,), (1,)), ((10,), (1,)),
    ((BIG,), (BIG,)), ((2, 3), (1,)), ((0,), (-1,)), ((0, 5), (1, 100)), ((2,), (0,)), ((3,), (2,)),
    ((1,), (-5,)), ((2**62, 4), (4, 1)), ((0, -1), (1, 1)), ((-1, 3), (1, 1)), ((3, 2), (1, 3)),
    ((2,), (2**62,)), ((2, 0), (-1, 1)),
]
OFFSETS = [None, 0, 1, 5, -1, -5, 10, 2**62]


def _outcome(module, op, size, stride, offset):
    """What one call does: the layout it makes (and the storage size) or the error it raises."""
    base = module.arange(6.0)
    try:
        if op == "as_strided":
            result = base.as_strided(size, stride) if offset is None else base.as_strided(size, stride, offset)
        elif op == "as_strided_":
            result = base.as_strided_(size, stride) if offset is None else base.as_strided_(size, stride, offset)
        else:
            result = module.empty(0).set_(base.untyped_storage(), 0 if offset is None else offset, size, stride)
    except RuntimeError as exc:
        return "RuntimeError", str(exc).partition("\n")[0]
    return tuple(result.shape), tuple(result.stride()), result.storage_offset(), result.untyped_storage().nbytes()


@pytest.mark.needs_torch
@pytest.mark.parametrize("op", ["as_strided", "as_strided_", "set_"])
def test_layouts_are_refused_or_accepted_as_torch_does(torch, op):
    cases = [(size, stride, offset) for (size, stride), offset in itertools.product(LAYOUTS, OFFSETS)]
    differences = [(case, _outcome(engine, op, *case), _outcome(torch, op, *case)) for case in cases
                   if _outcome(engine, op, *case) != _outcome(torch, op, *case)]
    assert differences == []


def test_negative_strides_are_refused_with_torchs_message():
    with pytest.raises(RuntimeError, match=r"as_strided: Negative strides are not supported at the moment, "
                                           r"got strides: \[3, -1\]"):
        engine.arange(6.0).as_strided((2, 3), (3, -1), 2)


def test_set_grows_the_storage_it_is_pointed_past_as_torch_does():
    base = engine.arange(6.0)
    window = engine.empty(0).set_(base.untyped_storage(), 2, (6,), (1,))
    assert base.untyped_storage().nbytes() == 32
    assert window[:4].tolist() == [2.0, 3.0, 4.0, 5.0]


def test_an_accepted_layout_that_overflows_still_cannot_read_outside_its_storage():
    """torch accepts as_strided_ with a size that overflows its own arithmetic; so does the
    engine, but reading the tensor is refused rather than reaching other memory."""
    odd = engine.arange(6.0).as_strided_((BIG,), (BIG,))
    assert odd.shape == (BIG,)
    with pytest.raises(ValueError):
        odd.sum()


SIZES = [(-1,), (2, -3), (-1, 0), (0, -1), (2**62,), (2**40, 2**40), (2**31, 2**31, 4), (3,), (0,), (2, 3)]


def _resized(module, op, size):
    try:
        if op == "resize_":
            result = module.empty(0).resize_(*size)
        else:
            result = module.ones(*([1] * len(size))).expand(*size)
    except RuntimeError as exc:
        return "RuntimeError", str(exc).partition("\n")[0]
    return tuple(result.shape), tuple(result.stride())


@pytest.mark.needs_torch
@pytest.mark.parametrize("op", ["resize_", "expand"])
def test_negative_and_overflowing_sizes_are_refused_as_torch_does(torch, op):
    assert [_resized(engine, op, s) for s in SIZES] == [_resized(torch, op, s) for s in SIZES]
