"""Paddle's own dygraph tests (tests/paddle/ported), each run in the dialect and compared with real
PaddlePaddle 3.3.1: live where Paddle is installed, and always with its recording. A case the
dialect is known to get wrong is a strict xfail naming why (tests/paddle/PORTED.md)."""

import json

import pytest

from tests.paddle.harness import run_dialect
from tests.paddle.ported.catalog import TABLE, UPSTREAM_DIFFERS, all_cases, render
from tests.paddle.record import PORTED_FILE
from tests.paddle.test_differential import _same

CASES = all_cases()
RECORDED = json.loads(PORTED_FILE.read_text(encoding="utf-8"))


def _params():
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
        yield pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", _params())
def test_ported_case_matches_recorded_paddle(case):
    _same(RECORDED[case.name], run_dialect(case.program()).text())


@pytest.mark.parametrize("case", _params())
def test_ported_case_matches_live_paddle(case, real_paddle):
    _same(real_paddle.run(case.program()).text(), run_dialect(case.program()).text())


def test_recording_is_current(real_paddle):
    stale = [case.name for case in CASES if real_paddle.run(case.program()).text() != RECORDED.get(case.name)]
    assert not stale, f"re-record with `python -m tests.paddle.record`: {stale}"


def test_every_case_is_recorded_once():
    names = [case.name for case in CASES]
    assert len(names) == len(set(names)) and set(names) == set(RECORDED)


def test_paddle_fails_only_the_upstream_assertions_we_list():
    """An upstream assertion 3.3.1 does not meet is a documented fact, never a silent one."""
    failing = {name for name, text in RECORDED.items() if "FAILED" in text}
    assert failing == set(UPSTREAM_DIFFERS)


def test_the_table_is_current():
    assert TABLE.read_text(encoding="utf-8") == render(), "regenerate with `python -m tests.paddle.ported.catalog`"
