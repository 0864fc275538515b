"""The meters that stop a statement: steps, call depth, memory growth and printed output.

Per-operation size guards live in `sizes`; this module counts what a statement does as it runs.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from engine.allocator import allocator
from tensorscope.sandbox.gateways import gateway

try:
    import resource
except ImportError:  # pragma: no cover - Windows has no resource module: no memory meter there
    resource = None

MAX_ITEMS = 10_000_000  # longest list, tuple, string or bytes one operation may build
MAX_INT_BITS = 100_000  # largest integer `*`, `**`, `<<` and friends may produce
MAX_FORMAT_WIDTH = 100_000  # widest field a format spec or %-format may ask for
MAX_ARRAY_ITEMS = 2**27  # largest numpy array a numpy call or operator may produce
MAX_OUTPUT_CHARS = 1_000_000  # most one statement may print
GRACE_STEPS = 1_000  # steps each __exit__ or finally block may still take after the step limit
MEMORY_CHECK_STEPS = 1_024  # how often (in steps) the meter looks at the process's memory
LARGE_RESULT = 100_000  # a result with more items than this makes the meter look at memory at once


class Uncatchable(BaseException):
    """Base of what user code must never catch: control flow and exceeded limits."""


class LimitExceeded(Uncatchable):
    """A statement ran too long or printed too much; reported as `kind: message`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


_STATM = "/proc/self/statm"
_PAGE_SIZE = resource.getpagesize() if resource is not None else 4096


def _memory_bytes() -> int:
    """The process's resident size (Linux), else its peak resident size, else 0."""
    try:
        with open(_STATM) as statm:
            return int(statm.read().split()[1]) * _PAGE_SIZE
    except OSError:
        if resource is None:
            return 0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


class Meter:
    """Steps (loop iterations, calls, items consumed by builtins), user-function call depth, and
    the growth of the process's memory during one statement.

    Per-operation size guards cannot see memory piling up (`[big[:] for _ in range(1000)]`), so
    the meter also looks at the resident size every MEMORY_CHECK_STEPS steps and after any
    large result, and stops a statement that grew it by more than the engine's memory budget.
    """

    def __init__(self, max_steps: int, max_depth: int) -> None:
        self.max_steps = max_steps
        self.max_depth = max_depth
        self.steps = 0
        self.depth = 0
        self._memory_start = 0
        self._next_memory_check = 0

    def reset(self) -> None:
        self.steps = 0
        self.depth = 0
        self._memory_start = _memory_bytes()
        self._next_memory_check = MEMORY_CHECK_STEPS

    def tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > self.max_steps:
            raise LimitExceeded("RuntimeError", f"statement exceeded {self.max_steps} steps (an endless loop?)")
        if self.steps >= self._next_memory_check:
            self.check_memory()

    def check_memory(self) -> None:
        self._next_memory_check = self.steps + MEMORY_CHECK_STEPS
        grown = _memory_bytes() - self._memory_start
        if grown > allocator.budget_bytes:
            raise LimitExceeded("MemoryError", f"statement grew memory by {grown:,} bytes; tensorscope's limit "
                                               f"is {allocator.budget_bytes:,} (the engine's memory budget)")

    @gateway
    def enter(self) -> None:
        if self.depth >= self.max_depth:
            raise RecursionError("maximum recursion depth exceeded")
        self.depth += 1

    def leave(self) -> None:
        self.depth -= 1

    @contextlib.contextmanager
    def grace(self) -> Iterator[None]:
        """A small budget for cleanup code (__exit__, finally) while a statement that hit the step
        limit unwinds, so `with torch.no_grad():` still restores grad mode."""
        spent = self.steps
        self.steps = min(spent, self.max_steps - GRACE_STEPS)
        try:
            yield
        finally:
            self.steps = spent


class Counted:
    """An iterator that costs a step per item, so C code consuming it (list.extend, sum, ...) is
    metered too; what the sandbox's iter, zip, map, filter, enumerate and reversed return."""

    __slots__ = ("_iterator", "_meter")
    public_attributes: frozenset[str] = frozenset()

    def __init__(self, iterator: Iterator[Any], meter: Meter) -> None:
        self._iterator = iterator
        self._meter = meter

    def __iter__(self) -> Counted:
        return self

    @gateway
    def __next__(self) -> Any:
        self._meter.tick()
        return next(self._iterator)

    def __repr__(self) -> str:
        return repr(self._iterator)


def refuse_size(what: str, size: int, limit: int, unit: str = "items") -> MemoryError:
    return MemoryError(f"{what} would be too large: {size:,} {unit}, tensorscope's limit is {limit:,}")


COSTED = frozenset({list, tuple, dict, set, frozenset, range})  # containers a call pays a step per item for


def is_large(value: Any) -> bool:
    """A container or array big enough that building it is worth a look at memory."""
    if type(value) in COSTED or isinstance(value, (str, bytes, bytearray)):
        return len(value) > LARGE_RESULT
    return isinstance(value, np.ndarray) and value.size > LARGE_RESULT
