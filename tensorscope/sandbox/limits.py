"""The meters that stop a statement: steps, call depth, memory growth and printed output.

Per-operation size guards live in `sizes`; this module counts what a statement does as it runs,
and holds every limit in one place. Sizes are counted in bytes, never in items: a list of
10,000 strings of 2,500 characters is 25 MB, not 10,000.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from engine.allocator import allocator
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.internal import internal

try:
    import resource
except ImportError:  # pragma: no cover - Windows has no resource module: no memory meter there
    resource = None

MAX_SEQUENCE_BYTES = 2**28  # largest str, bytes, list or tuple one operation may build (256 MiB)
MAX_ARRAY_BYTES = 2**30  # largest numpy array a numpy call or operator may produce (1 GiB)
MAX_INT_BITS = 100_000  # largest integer `*`, `**`, `<<` and friends may produce
MAX_POW_WORK = 2 * 10**11  # exponent bits x modulus bits squared of pow(b, e, m): about 0.3 s
MAX_MATMUL_WORK = 10**10  # multiply-adds of one numpy matrix product: a few seconds
MAX_FORMAT_WIDTH = 100_000  # widest field a format spec or %-format may ask for
MAX_TUPLE_DEPTH = 5_000  # deepest nesting of tuples (Python's hash of a tuple recurses unchecked)
MAX_OUTPUT_CHARS = 1_000_000  # most one statement may print
MAX_SESSION_OUTPUT_CHARS = 50_000_000  # most a whole session may print (front ends keep every step's output)
MAX_WARNINGS = 100  # distinct warnings kept per statement (a loop may warn a million times)
GRACE_STEPS = 1_000  # steps each __exit__ or finally block may still take after the step limit
MEMORY_CHECK_STEPS = 1_024  # how often (in steps) the meter looks at the process's memory
LARGE_RESULT_BYTES = 2**20  # a result bigger than this makes the meter look at memory at once


@internal()
class Uncatchable(BaseException):
    """Base of what user code must never catch: control flow and exceeded limits."""


@internal()
class LimitExceeded(Uncatchable):
    """A statement ran too long or printed too much; reported as `kind: message`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class OutsideStatement(RuntimeError):
    """User code was reached while no statement of its interpreter runs (in this thread)."""


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


@internal()
class Counted:
    """An iterator that costs a step per item (or `weight` steps: an item of itertools.product
    may be a long tuple), so C code consuming it (list.extend, sum, ...) is metered too; what the
    sandbox's iter, zip, map, filter, enumerate and reversed and the granted itertools return."""

    __slots__ = ("_iterator", "_meter", "_weight")

    def __init__(self, iterator: Iterator[Any], meter: Meter, weight: int = 1) -> None:
        self._iterator = iterator
        self._meter = meter
        self._weight = weight

    def __iter__(self) -> Counted:
        return self

    @gateway
    def __next__(self) -> Any:
        self._meter.tick(self._weight)
        return next(self._iterator)

    def __repr__(self) -> str:
        return repr(self._iterator)


def refuse_size(what: str, size: int, limit: int, unit: str = "bytes") -> MemoryError:
    return MemoryError(f"{what} would be too large: {size:,} {unit}, tensorscope's limit is {limit:,}")


def refuse_work(what: str, work: int, limit: int, unit: str) -> RuntimeError:
    return RuntimeError(f"{what} would take too long: {work:,} {unit}, tensorscope's limit is {limit:,}")


COSTED = frozenset({list, tuple, dict, set, frozenset, range})  # containers a call pays a step per item for
_SIZED_BY_PYTHON = (str, bytes, bytearray, list, tuple, dict, set, frozenset)


def is_large(value: Any) -> bool:
    """A result big enough (in bytes) that building it is worth a look at memory."""
    if isinstance(value, _SIZED_BY_PYTHON):
        return sys.getsizeof(value) > LARGE_RESULT_BYTES
    return isinstance(value, np.ndarray) and value.nbytes > LARGE_RESULT_BYTES


class NestingGuard:
    """Refuses tuples nested deeper than MAX_TUPLE_DEPTH: Python's hash of a tuple recurses into
    its items without a recursion check, so `t = (t,)` 200,000 times and then `hash(t)` (or using
    t as a dict key) would crash the process. Every tuple reaching user code passes here; depths of
    recent tuples are remembered, so a chain built one level at a time costs one look per level."""

    _REMEMBERED = 512

    def __init__(self) -> None:
        self._known: dict[int, tuple[tuple[Any, ...], int]] = {}

    @gateway
    def check(self, value: tuple[Any, ...]) -> None:
        for item in value:
            if isinstance(item, tuple):
                break
        else:
            return  # flat: the common case
        depth = self._depth(value)
        if depth > MAX_TUPLE_DEPTH:
            raise RecursionError(f"tuples nested more than {MAX_TUPLE_DEPTH:,} deep are not supported in tensorscope")

    def _depth(self, root: tuple[Any, ...]) -> int:
        depths: dict[int, int] = {}
        stack: list[tuple[tuple[Any, ...], bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            key = id(node)
            if key in depths:
                continue
            known = self._known.get(key)
            if known is not None and known[0] is node:
                depths[key] = known[1]
                continue
            children = [item for item in node if isinstance(item, tuple)]
            if not expanded:
                stack.append((node, True))
                stack.extend((child, False) for child in children if id(child) not in depths)
                continue
            depths[key] = 1 + max((depths[id(child)] for child in children), default=0)
            if depths[key] > MAX_TUPLE_DEPTH:
                return depths[key]
        self._remember(root, depths[id(root)])
        return depths[id(root)]

    def _remember(self, value: tuple[Any, ...], depth: int) -> None:
        if len(self._known) >= self._REMEMBERED:
            del self._known[next(iter(self._known))]
        self._known[id(value)] = (value, depth)

