"""`collections` and `collections.abc`.

OrderedDict, deque and ChainMap are CPython's (a deque's `*` and `+` are size-guarded like a
list's). defaultdict calls its factory through the interpreter (CPython's calls it from C);
Counter's `elements()` is a metered iterator (`Counter(a=10**12).elements()` would otherwise
feed C code forever). namedtuple is built without exec (see `namedtuples`). The ABCs of
`collections.abc` serve isinstance() and subclassing; their `register` is refused (it would
change isinstance() for every session).
"""

from __future__ import annotations

import collections
import collections.abc
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.limits import Counted
from tensorscope.sandbox.stdlib.namedtuples import namedtuple

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

NAMES = ("OrderedDict", "defaultdict", "namedtuple", "Counter", "deque", "ChainMap", "abc")
ABC_NAMES = tuple(name for name in collections.abc.__all__ if not name.startswith(("Async", "Awaitable", "Coroutine")))


@gateway
def make_collections_module(sandbox: Sandbox) -> dict[str, Any]:
    meter, call = sandbox.meter, sandbox.call

    class defaultdict(collections.defaultdict):  # noqa: N801 - CPython's name
        __slots__ = ()

        def __missing__(self, key: Any) -> Any:
            if self.default_factory is None:
                raise KeyError(key)
            self[key] = value = call(self.default_factory)
            return value

    class Counter(collections.Counter):
        def elements(self) -> Counted:
            return Counted(super().elements(), meter)

    for cls in (defaultdict, Counter):
        cls.__module__ = "collections"
    return {"OrderedDict": collections.OrderedDict, "defaultdict": defaultdict, "namedtuple": namedtuple,
            "Counter": Counter, "deque": collections.deque, "ChainMap": collections.ChainMap,
            "abc": sandbox.modules.import_module("collections.abc")}


@gateway
def make_abc_module(sandbox: Sandbox) -> dict[str, Any]:
    return {name: getattr(collections.abc, name) for name in ABC_NAMES}
