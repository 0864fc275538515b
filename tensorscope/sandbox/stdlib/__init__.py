"""The standard library user code may import: the pure parts of some modules, each a read-only
proxy of listed names built per sandbox (so `random` is the session's own generator).

What is granted, module by module, and how each keeps to the policy, is in the module that
builds it. The common rules: nothing reaches files, processes, threads, the network or the
interpreter's internals; every callable user code hands to a granted function is called back
through the interpreter (`callbacks.through`); every iterator handed out is metered; anything
that could grow large is bounded in bytes before it is built; no source text is ever compiled
(namedtuple and dataclass are built without exec).
"""

from __future__ import annotations

import abc
import bisect
import collections
import collections.abc
import copy
import dataclasses
import enum
import functools
import heapq
import io
import itertools
import numbers
import operator
import random
import statistics
import string
import time
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.stdlib import (
    collections_module,
    copying,
    dataclasses_module,
    functools_module,
    io_module,
    itertools_module,
    operator_module,
    pure_modules,
    random_module,
    typing_module,
)

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox


@dataclass(frozen=True)
class Grant:
    """A granted module: the real one (to tell a name it has but we do not grant from a name it
    lacks), what builds its names for a sandbox, and the functions that cost one step however
    large the containers they are given (their own work is logarithmic or metered inside)."""

    module: types.ModuleType
    build: Callable[[Sandbox], dict[str, Any]]
    free: tuple[str, ...] = ()


GRANTS: dict[str, Grant] = {
    "random": Grant(random, random_module.make_random_module,
                    free=("choice", "choices", "sample", "shuffle", "randrange", "randint")),
    "copy": Grant(copy, copying.make_copy_module, free=("copy", "deepcopy")),
    "io": Grant(io, io_module.make_io_module),
    "collections": Grant(collections, collections_module.make_collections_module),
    "collections.abc": Grant(collections.abc, collections_module.make_abc_module),
    "dataclasses": Grant(dataclasses, dataclasses_module.make_dataclasses_module),
    "typing": Grant(typing, typing_module.make_typing_module),
    "functools": Grant(functools, functools_module.make_functools_module),
    "itertools": Grant(itertools, itertools_module.make_itertools_module),
    "operator": Grant(operator, operator_module.make_operator_module,
                      free=("getitem", "setitem", "delitem", "length_hint", "index", "is_", "is_not", "truth", "not_")),
    "heapq": Grant(heapq, pure_modules.make_heapq_module, free=pure_modules.HEAPQ_FREE),
    "bisect": Grant(bisect, pure_modules.make_bisect_module, free=pure_modules.BISECT_NAMES),
    "statistics": Grant(statistics, pure_modules.make_statistics_module),
    "string": Grant(string, pure_modules.make_string_module),
    "time": Grant(time, pure_modules.make_time_module),
    "numbers": Grant(numbers, pure_modules.make_numbers_module),
    "abc": Grant(abc, pure_modules.make_abc_module),
    "enum": Grant(enum, pure_modules.make_enum_module),
}
