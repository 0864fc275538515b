"""glibc's expf replayed bit for bit: numpy's exp rounded where the float is clear, glibc's steps
where exp lies close to a midpoint between two floats (where the two can round differently)."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

import numpy as np
import pytest

from engine.kernels.expf import expf_wide


def _glibc_expf() -> ctypes._CFuncPtr:
    name = ctypes.util.find_library("m")
    if name is None or platform.libc_ver()[0] != "glibc":
        pytest.skip("the replay is of glibc's expf")
    expf = ctypes.CDLL(name).expf
    expf.restype, expf.argtypes = ctypes.c_float, [ctypes.c_float]
    return expf


def test_expf_equals_the_c_library_where_the_nearest_float_does_not():
    """Over expf's normal results (below -87.33 they are subnormal floats, which the replay
    leaves to numpy's rounding: the sigmoid adds them to 1, where they vanish)."""
    expf = _glibc_expf()
    x = np.random.default_rng(3).uniform(-87.33, 88.72, 200_000).astype(np.float32)
    expected = np.array([expf(float(v)) for v in x], np.float32)
    nearest = np.exp(x.astype(np.float64)).astype(np.float32)
    assert np.count_nonzero(nearest != expected) > 20  # the cases the replay is for
    ours = expf_wide(x.astype(np.float64)).astype(np.float32)
    assert np.array_equal(ours.view(np.uint32), expected.view(np.uint32))


def test_special_values_are_the_c_library_s():
    expf = _glibc_expf()
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72283, 88.7229, -103.98, -110.0,
                  1e-30, -3e38, 3e38], np.float32)
    with np.errstate(all="ignore"):
        ours = expf_wide(x.astype(np.float64)).astype(np.float32)
    expected = np.array([expf(float(v)) for v in x], np.float32)
    assert np.array_equal(np.isnan(ours), np.isnan(expected))
    assert np.array_equal(ours[~np.isnan(ours)].view(np.uint32), expected[~np.isnan(expected)].view(np.uint32))
