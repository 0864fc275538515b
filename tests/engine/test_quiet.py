"""The engine's ops never warn about inf or nan results, as torch never does, while numpy goes on
warning, raising or calling back for the code around the engine exactly as that code asked."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine
from engine.quiet import quietly

INF = float("inf")


def engine_results() -> list[engine.Tensor]:
    """Small ops whose numpy forward meets overflow and invalid values."""
    big = engine.tensor([3e38, -INF, INF])
    return [big + big, big * engine.zeros(3), big.sigmoid(), (-big).exp(), big.sum(), big.add_(big)]


def test_engine_ops_do_not_warn_where_numpy_would() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = engine_results()
    assert results[0].tolist()[1:] == [-INF, INF]
    assert np.isnan(results[1].tolist()[1])


def test_numpy_still_warns_for_the_code_around_the_engine() -> None:
    engine_results()
    with pytest.warns(RuntimeWarning, match="invalid value"):
        np.subtract(np.array([INF]), np.array([INF]))


def test_a_raising_errstate_around_the_engine_holds_for_numpy_not_for_the_engine() -> None:
    with np.errstate(all="raise"):
        engine_results()
        with pytest.raises(FloatingPointError):
            np.multiply(np.array([INF]), np.array([0.0]))
    assert np.geterr()["invalid"] == "warn"


def test_quietly_ignores_every_float_error_whatever_the_caller_set() -> None:
    with np.errstate(all="raise"), np.errstate(call=print, under="call"):
        inside = quietly(np.geterr)
        assert np.geterr()["under"] == "call"
    assert set(inside.values()) == {"ignore"}


def test_quietly_nests_and_works_from_other_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    def nested() -> dict[str, str]:
        return quietly(np.geterr)

    assert set(quietly(nested).values()) == {"ignore"}
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: quietly(nested), range(16)))
    assert all(set(r.values()) == {"ignore"} for r in results)
    assert np.geterr()["invalid"] == "warn"


def test_quietly_lets_exceptions_through_and_restores_numpy_state() -> None:
    def fail() -> None:
        raise ValueError("boom")

    before = np.geterr()
    with pytest.raises(ValueError, match="boom"):
        quietly(fail)
    assert np.geterr() == before


def test_backward_runs_quietly_and_gives_numpy_state_back() -> None:
    x = engine.tensor([0.0, 1.0], requires_grad=True)
    seen = []
    x.register_hook(lambda grad: seen.append(np.geterr()["invalid"]))
    with np.errstate(all="raise"):
        (x.log() * engine.tensor([0.0, INF])).sum().backward()  # 0 * inf and inf / 0: no error
        with pytest.raises(FloatingPointError):
            np.multiply(np.array([INF]), np.array([0.0]))
    assert seen == ["ignore"]
    assert np.geterr()["invalid"] == "warn"
    assert np.isnan(x.grad.tolist()[0])
