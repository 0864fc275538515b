"""The Paddle dialect against real PaddlePaddle 3.3.1, snippet by snippet (tests/paddle/snippets.py).

Each snippet's transcript (what it printed, the exception it ended with) must be identical. With
Paddle installed the dialect is compared with it live, and the recording in
tests/data/paddle/snippets.json with it too; without Paddle the dialect is compared with the
recording.
"""

import difflib
import json

import pytest

from tests.paddle.harness import run_dialect
from tests.paddle.record import SNIPPETS_FILE
from tests.paddle.snippets import SNIPPETS

RECORDED = json.loads(SNIPPETS_FILE.read_text(encoding="utf-8"))
NAMES = sorted(SNIPPETS)


def _same(expected: str, got: str) -> None:
    if expected != got:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), "paddle", "dialect"))
        pytest.fail("the dialect differs from Paddle:\n" + diff, pytrace=False)


@pytest.mark.parametrize("name", NAMES)
def test_dialect_matches_live_paddle(name, real_paddle):
    _same(real_paddle.run(SNIPPETS[name]).text(), run_dialect(SNIPPETS[name]).text())


@pytest.mark.parametrize("name", NAMES)
def test_dialect_matches_recorded_paddle(name):
    _same(RECORDED[name], run_dialect(SNIPPETS[name]).text())


def test_recording_is_current(real_paddle):
    stale = [name for name in NAMES if real_paddle.run(SNIPPETS[name]).text() != RECORDED.get(name)]
    assert not stale, f"re-record with `python -m tests.paddle.record`: {stale}"
