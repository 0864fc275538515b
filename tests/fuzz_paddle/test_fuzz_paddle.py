"""The Paddle fuzzer: its pieces on their own, and a fixed seeded slice of programs run in real
Paddle 3.3.1 and in the dialect (skipped where Paddle is not installed)."""

import numpy as np
import pytest

from tests.fuzz_paddle import observe
from tests.fuzz_paddle.driver import campaign, run_dialect
from tests.fuzz_paddle.generate import program
from tests.fuzz_paddle.shrink import shrink

SLICE = range(300)
# Programs of the slice where the dialect is known to differ, and why (they must still differ:
# a fix shows up here as well as a regression).
KNOWN: dict[int, str] = {}


def test_a_seed_always_gives_the_same_program():
    assert program(7) == program(7)
    assert program(7) != program(8)
    assert program(7).statements[0].startswith("t1 = paddle.")


def test_identical_runs_agree_and_a_changed_value_is_caught():
    statements = program(3).statements
    first, second = run_dialect(statements), run_dialect(statements)
    assert observe.first_difference(first, second) is None
    name = next(iter(second[-1].tensors))
    second[-1].tensors[name].values = second[-1].tensors[name].values + 1
    assert f"{name}'s values" in observe.first_difference(first, second)


def test_floats_are_compared_with_a_tolerance_and_integers_exactly():
    assert observe.close(np.array([1.0, np.nan], "float32"), np.array([1.0 + 1e-7, np.nan], "float32"))
    assert not observe.close(np.array([1, 2]), np.array([1, 3]))
    assert not observe.close(np.array([1.0], "float32"), np.array([1.0], "float64"))


def test_the_shrinker_keeps_only_what_the_difference_needs():
    statements = tuple(f"s{i}" for i in range(10))
    needed = {"s2", "s7"}
    assert shrink(statements, lambda s: needed <= set(s)) == ("s2", "s7")


def test_a_fixed_slice_agrees_with_real_paddle(real_paddle):
    outcomes = campaign(len(SLICE), SLICE.start, minimise=False)
    differing = {o.program.seed: o.difference for o in outcomes if o.difference is not None}
    assert set(differing) == set(KNOWN), differing


@pytest.fixture(scope="module")
def real_paddle():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytest.importorskip("paddle")
