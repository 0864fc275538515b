"""The JSON trace serialises every value a namespace can hold, or names it plainly, and every line
is valid UTF-8 JSON that cannot act on a terminal."""

from __future__ import annotations

import json

import numpy as np

import engine
from tensorscope import trace
from tensorscope.interpreter import ErrorInfo
from tensorscope.snapshot_taker import SnapshotTaker


class Opaque:
    def __repr__(self) -> str:  # never called: printing user objects would run user code
        raise AssertionError("repr of a user object was called")


def traced(namespace: dict, output: str | None = None, error: ErrorInfo | None = None) -> dict:
    snapshot = SnapshotTaker().take(0, "x = ...", namespace, output, error, (), 0)
    line = trace.step_line(snapshot)
    line.encode("utf-8")  # strict: no lone surrogates left
    return json.loads(line)


def test_every_kind_of_array_is_serialised_or_named() -> None:
    record = traced({
        "c": np.array([1 + 2j, 3j]), "b": np.array([b"ab", b"\x1b[2J"]), "v": np.zeros(2, dtype="V3"),
        "r": np.zeros(2, dtype=[("a", "i4"), ("b", "f4")]), "d": np.array(["2020-01-01", "NaT"], dtype="datetime64[D]"),
        "td": np.array([1, 2], dtype="timedelta64[s]"), "o": np.array([1, "a", Opaque()], dtype=object),
        "s": np.array(["x", "y\x1b"]), "ld": np.array([1.5, np.inf], dtype=np.longdouble),
        "f": np.array([np.nan, -np.inf, -0.0, 5e-324, 1e308]), "h": np.array([1.5, 65504], dtype=np.float16),
        "u": np.array([2**64 - 1], dtype=np.uint64), "big": np.zeros(5000, dtype=complex),
        "bo": np.array([True, False]),
    })["objects"]
    assert record["c"]["values"] is None and record["c"]["summary"] == "[1.+2.j 0.+3.j]"
    assert record["b"]["summary"] == "[b'ab' b'\\x1b[2J']"
    assert record["v"]["values"] is None and "\\x00" in record["v"]["summary"]
    assert record["r"]["summary"] == "[(0, 0.) (0, 0.)]"
    assert record["d"]["summary"] == "['2020-01-01'        'NaT']" and record["td"]["values"] is None
    assert record["o"] == {"kind": "ndarray", "shape": [3], "dtype": "object", "storage": record["o"]["storage"],
                           "values": None, "summary": "array of 3 Python objects (Opaque, int, str): values not shown"}
    assert record["s"]["values"] == ["x", "y\x1b"]
    assert record["ld"]["values"] == [1.5, "inf"]
    assert record["f"]["values"] == ["nan", "-inf", -0.0, 5e-324, 1e308]
    assert record["h"]["values"] == [1.5, 65504.0] and record["u"]["values"] == [2**64 - 1]
    assert record["big"]["values"] is None and record["big"]["summary"].startswith("[0.+0.j 0.+0.j")
    assert record["bo"]["values"] == [True, False]


def test_text_that_could_act_on_a_terminal_is_escaped_in_the_json() -> None:
    record_line = trace.step_line(SnapshotTaker().take(
        0, "print(...)", {}, "\udc80\x1b[2J\x9b\u202e", ErrorInfo("ValueError", "\udcff"), (), 0))
    assert "\x9b" not in record_line and "\u202e" not in record_line and "\x1b" not in record_line
    assert "\\udc80" in record_line and "\\u009b" in record_line
    record = json.loads(record_line)
    assert record["output"] == "\udc80\x1b[2J\x9b\u202e" and record["error"]["message"] == "\udcff"


def test_tensors_keep_their_values() -> None:
    record = traced({"t": engine.tensor([1.0, float("nan")])})
    assert record["objects"]["t"]["values"] == [1.0, "nan"]
