"""The small pure modules: heapq, bisect, statistics, string, time, numbers, abc, enum.

They compute, nothing else. What they need here: key functions called through the interpreter
(heapq.nlargest/nsmallest/merge, bisect with key=), metered iterators out (heapq.merge), a bound
on `statistics.quantiles(n=)`; `time` offers only its clocks (no sleep, no local time, which
reads the time zone files); `string` its constants and capwords; ABC `register` is refused by the
attribute policy; `enum` classes are made by the enum metaclass from a checked class body.
"""

from __future__ import annotations

import abc
import bisect
import enum
import heapq
import numbers
import statistics
import string
import time
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.callbacks import through
from tensorscope.sandbox.classes import runs_user_code
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import Counted
from tensorscope.sandbox.sizes import check_sequence_bytes, is_int

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

HEAPQ_NAMES = ("heappush", "heappop", "heapify", "heappushpop", "heapreplace", "nlargest", "nsmallest", "merge")
HEAPQ_FREE = ("heappush", "heappop", "heappushpop", "heapreplace")  # a logarithmic step, not one per item
BISECT_NAMES = ("bisect_left", "bisect_right", "bisect", "insort_left", "insort_right", "insort")
STATISTICS_NAMES = ("mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low", "median_high",
                    "median_grouped", "mode", "multimode", "quantiles", "pstdev", "pvariance", "stdev", "variance",
                    "correlation", "covariance", "linear_regression", "StatisticsError")
STRING_NAMES = ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits", "octdigits",
                "punctuation", "printable", "whitespace", "capwords")
TIME_NAMES = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
              "process_time_ns")
NUMBERS_NAMES = ("Number", "Complex", "Real", "Rational", "Integral")
ABC_NAMES = ("ABC", "abstractmethod")
ENUM_NAMES = ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "auto", "unique")


@gateway
def make_heapq_module(sandbox: Sandbox) -> dict[str, Any]:
    meter, call = sandbox.meter, sandbox.call

    def nlargest(n: Any, iterable: Any, key: Any = None) -> list[Any]:
        return heapq.nlargest(n, iterable, key=through(call, key))

    def nsmallest(n: Any, iterable: Any, key: Any = None) -> list[Any]:
        return heapq.nsmallest(n, iterable, key=through(call, key))

    def merge(*iterables: Any, key: Any = None, reverse: bool = False) -> Counted:
        return Counted(heapq.merge(*iterables, key=through(call, key), reverse=reverse), meter)

    plain = {name: getattr(heapq, name) for name in ("heappush", "heappop", "heapify", "heappushpop", "heapreplace")}
    return {**plain, "nlargest": nlargest, "nsmallest": nsmallest, "merge": merge}


@gateway
def make_bisect_module(sandbox: Sandbox) -> dict[str, Any]:
    call = sandbox.call

    def keyed(function: Any) -> Any:
        def with_key(a: Any, x: Any, lo: Any = 0, hi: Any = None, *, key: Any = None) -> Any:
            return function(a, x, lo, hi, key=through(call, key))

        with_key.__name__ = with_key.__qualname__ = function.__name__
        with_key.__doc__ = function.__doc__
        return with_key

    names = {name: keyed(getattr(bisect, name)) for name in ("bisect_left", "bisect_right", "insort_left", "insort_right")}
    return {**names, "bisect": names["bisect_right"], "insort": names["insort_right"]}


@gateway
def make_statistics_module(sandbox: Sandbox) -> dict[str, Any]:
    meter = sandbox.meter

    def quantiles(data: Any, *, n: Any = 4, method: str = "exclusive") -> list[float]:
        if is_int(n):
            check_sequence_bytes("quantiles()", n * 8)
            meter.tick(max(n, 0))
        return statistics.quantiles(data, n=n, method=method)

    names = {name: getattr(statistics, name) for name in STATISTICS_NAMES}
    return {**names, "quantiles": quantiles}


@gateway
def make_string_module(sandbox: Sandbox) -> dict[str, Any]:
    return {name: getattr(string, name) for name in STRING_NAMES}


@gateway
def make_time_module(sandbox: Sandbox) -> dict[str, Any]:
    return {name: getattr(time, name) for name in TIME_NAMES}


@gateway
def make_numbers_module(sandbox: Sandbox) -> dict[str, Any]:
    return {name: getattr(numbers, name) for name in NUMBERS_NAMES}


@gateway
def make_abc_module(sandbox: Sandbox) -> dict[str, Any]:
    def abstractmethod(funcobj: Any) -> Any:
        """abc.abstractmethod marks what it is given: only user code (torch.relu is every session's)."""
        if not (runs_user_code(funcobj) or isinstance(funcobj, (property, classmethod, staticmethod))):
            raise TypeError("abstractmethod() takes a function defined in your code in tensorscope")
        return abc.abstractmethod(funcobj)

    return {"ABC": abc.ABC, "abstractmethod": abstractmethod}


@gateway
def make_enum_module(sandbox: Sandbox) -> dict[str, Any]:
    return {name: getattr(enum, name) for name in ENUM_NAMES}
