"""A dtype is a constant, as torch's are: writing or deleting its fields fails with torch's words
(a user's `torch.float32.is_complex = True` must not change what every gradient formula reads)."""

from __future__ import annotations

import pytest

import engine

WRITES = [("is_complex", True), ("is_floating_point", False), ("is_signed", False), ("itemsize", 8),
          ("np", None), ("no_such_field", 1)]


def _error(module, action) -> str:
    with pytest.raises(AttributeError) as caught:
        action(module)
    return str(caught.value)


@pytest.mark.parametrize(("field", "value"), WRITES, ids=[field for field, _ in WRITES])
def test_writing_a_dtype_field_fails_as_in_torch(torch, field, value):
    def write(module):
        setattr(module.float32, field, value)

    expected = _error(torch, write)
    assert _error(engine, write) == expected
    assert engine.float32.is_complex is False and engine.float32.itemsize == 4


@pytest.mark.parametrize("field", ["is_signed", "is_complex"])
def test_deleting_a_dtype_field_fails_as_in_torch(torch, field):
    def delete(module):
        delattr(module.float64, field)

    assert _error(engine, delete) == _error(torch, delete)
    assert engine.float64.is_signed is True
