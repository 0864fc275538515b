"""Paddle's own dygraph tests, ported as differential cases (see tests/paddle/PORTED.md).

Each upstream test becomes a Case: a short program that runs the test's steps and prints what the
test asserts, each assertion as `expect(label, condition)` or `raises(label, Error, fn, pattern)`
(so its verdict, `ok` or `FAILED`, is part of the transcript). The program runs in real Paddle
3.3.1 and in the dialect and the transcripts must be identical (tests/paddle/test_ported.py);
recordings in tests/data/paddle/ported.json stand in for Paddle where it is not installed.
Random inputs come from a seeded numpy generator, so both sides see the same data.
"""

from __future__ import annotations

from dataclasses import dataclass

PRELUDE = '''
import functools
import re
rng = np.random.default_rng(2024)

def expect(label, condition):
    print(label, "ok" if condition else "FAILED")

def same(a, b):
    """np.testing.assert_array_equal's notion of equal (NaNs in the same places count as equal)."""
    try:
        np.testing.assert_array_equal(a, b)
    except AssertionError:
        return False
    return True

def raises(label, error, fn, pattern=None):
    try:
        fn()
    except Exception as exc:
        matched = isinstance(exc, error) and (pattern is None or re.search(pattern, str(exc)) is not None)
        print(label, "raises", type(exc).__name__, "ok" if matched else "FAILED")
        return
    print(label, "FAILED: no exception")
'''


@dataclass(frozen=True)
class Case:
    """One upstream test: `upstream` is `file::Class::test`; `xfail` says why the dialect is
    known to differ (the test is then a strict xfail)."""

    upstream: str
    source: str
    xfail: str | None = None

    @property
    def name(self) -> str:
        return self.upstream.replace(".py::", "::")

    def program(self) -> str:
        return PRELUDE + self.source
