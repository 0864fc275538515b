"""`itertools`: CPython's iterators, each handed out as a metered iterator (a step per item; an
item of product, permutations or combinations costs its length), with every function argument
called through the interpreter. Infinite ones (count, cycle, repeat) stop at the step limit; the
pools product/permutations/combinations copy and the index arrays they allocate (`r` of them)
are bounded in bytes before they are built."""

from __future__ import annotations

import itertools
import operator
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.callbacks import through
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import Counted
from tensorscope.sandbox.sizes import check_sequence_bytes, is_int
from tensorscope.sandbox.stdlib.operator_module import guarded_binary

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

NAMES = ("count", "cycle", "repeat", "accumulate", "chain", "compress", "dropwhile", "filterfalse", "groupby",
         "islice", "pairwise", "starmap", "takewhile", "tee", "zip_longest", "product", "permutations",
         "combinations", "combinations_with_replacement")
_POINTER = 8


@gateway
def make_itertools_module(sandbox: Sandbox) -> dict[str, Any]:
    meter, call = sandbox.meter, sandbox.call

    def counted(iterator: Any, weight: int = 1) -> Counted:
        return Counted(iterator, meter, max(weight, 1))

    def pool(iterable: Any) -> tuple[Any, ...]:
        return tuple(Counted(iter(iterable), meter))

    def count(start: Any = 0, step: Any = 1) -> Counted:
        return counted(itertools.count(start, step))

    def cycle(iterable: Any, /) -> Counted:
        return counted(itertools.cycle(iterable))

    def repeat(obj: Any, times: Any = None) -> Counted:
        return counted(itertools.repeat(obj) if times is None else itertools.repeat(obj, times))

    def accumulate(iterable: Any, func: Any = None, *, initial: Any = None) -> Counted:
        add = guarded_binary(operator.add) if func is None else through(call, func)
        return counted(itertools.accumulate(iterable, add, initial=initial))

    class chain:  # noqa: N801 - CPython's name
        """chain(*iterables) and chain.from_iterable(iterables), metered."""

        def __new__(cls, *iterables: Any) -> Counted:  # type: ignore[misc]
            return counted(itertools.chain(*iterables))

        @staticmethod
        def from_iterable(iterables: Any, /) -> Counted:
            return counted(itertools.chain.from_iterable(iterables))

    def compress(data: Any, selectors: Any) -> Counted:
        return counted(itertools.compress(data, selectors))

    def dropwhile(predicate: Any, iterable: Any, /) -> Counted:
        return counted(itertools.dropwhile(through(call, predicate), iterable))

    def filterfalse(predicate: Any, iterable: Any, /) -> Counted:
        return counted(itertools.filterfalse(through(call, predicate), iterable))

    def takewhile(predicate: Any, iterable: Any, /) -> Counted:
        return counted(itertools.takewhile(through(call, predicate), iterable))

    def groupby(iterable: Any, key: Any = None) -> Counted:
        return counted(itertools.groupby(iterable, through(call, key)))

    def islice(iterable: Any, /, *args: Any) -> Counted:
        return counted(itertools.islice(iterable, *args))

    def pairwise(iterable: Any, /) -> Counted:
        return counted(itertools.pairwise(iterable))

    def starmap(function: Any, iterable: Any, /) -> Counted:
        return counted(itertools.starmap(through(call, function), iterable))

    def tee(iterable: Any, n: Any = 2, /) -> tuple[Counted, ...]:
        if is_int(n):
            check_sequence_bytes("tee()", n * _POINTER)
            meter.tick(max(n, 0))
        return tuple(counted(t) for t in itertools.tee(iterable, n))

    def zip_longest(*iterables: Any, fillvalue: Any = None) -> Counted:
        return counted(itertools.zip_longest(*iterables, fillvalue=fillvalue))

    def product(*iterables: Any, repeat: Any = 1) -> Counted:
        pools = [pool(iterable) for iterable in iterables]
        if is_int(repeat):
            check_sequence_bytes("product()", sum(map(len, pools)) * max(repeat, 0) * _POINTER)
            return counted(itertools.product(*pools, repeat=repeat), len(pools) * repeat)
        return counted(itertools.product(*pools, repeat=repeat))

    def choose(kind: Any, iterable: Any, r: Any) -> Counted:
        items = pool(iterable)
        size = len(items) if r is None else r
        if is_int(size):
            check_sequence_bytes(f"{kind.__name__}()", (size + len(items)) * _POINTER)
            return counted(kind(items) if r is None else kind(items, r), size)
        return counted(kind(items, r))

    def permutations(iterable: Any, r: Any = None) -> Counted:
        return choose(itertools.permutations, iterable, r)

    def combinations(iterable: Any, r: Any) -> Counted:
        return choose(itertools.combinations, iterable, r)

    def combinations_with_replacement(iterable: Any, r: Any) -> Counted:
        return choose(itertools.combinations_with_replacement, iterable, r)

    chain.__module__ = "itertools"
    return {"count": count, "cycle": cycle, "repeat": repeat, "accumulate": accumulate, "chain": chain,
            "compress": compress, "dropwhile": dropwhile, "filterfalse": filterfalse, "groupby": groupby,
            "islice": islice, "pairwise": pairwise, "starmap": starmap, "takewhile": takewhile, "tee": tee,
            "zip_longest": zip_longest, "product": product, "permutations": permutations,
            "combinations": combinations, "combinations_with_replacement": combinations_with_replacement}
