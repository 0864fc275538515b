"""The safe interpreter: runs PyTorch-style Python typed by users, one top-level statement at a time.

Security model
--------------
User text is parsed with `ast.parse` and walked by this package's own evaluator: it is never handed
to eval, exec or compile, so user code can only do what the evaluator does for it. Everything it
reaches is decided by allowlists (the policy lives in tensorscope.sandbox, one module per rule):

1. Names: a name is a user binding or one of an explicit table of builtins (no open, eval, exec,
   compile, __import__, globals, locals, vars, input, breakpoint, help, memoryview; `iter`, `zip`,
   `map`, `sum`, `print`, `pow`, `getattr`, ... are replaced by metered or policy-checked versions).
2. Modules: `import` resolves only torch (the engine) and its listed submodules, the Paddle
   dialect, numpy, numpy.random, math and the pure parts of some of the standard library (see
   tensorscope.sandbox.stdlib: random, copy, io's in-memory files, collections, dataclasses,
   typing, functools, itertools, operator, heapq, bisect, statistics, string, time's clocks,
   numbers, abc, enum), each as a read-only proxy exposing listed names. numpy calls take no
   `buffer=`/`offset=`/`strides=`, no object, void or structured dtype and no instance of a
   user class, and are refused when their result would be too large; no object or structured
   array ever reaches user code. namedtuple, dataclass and typing's forward references are built
   without exec or compile.
3. Calls: a callable user code hands to code that is not interpreted (a sort key, a reduce or
   partial function, a default factory) is called back through the interpreter, metered and
   checked as any call (`sorted([b], key=SomeClass)` is a construction the policy checks); calling
   a class through a generic alias, a staticmethod or a classmethod is checked as calling it;
   metaclasses and the enum functional API cannot make classes.
4. Attributes: every read, write and delete, including getattr/setattr/hasattr, str.format
   fields and operator.attrgetter, goes through one policy, applied to the object that holds the
   attribute (`super(C, x).m` is x's, `list[int].m` is list's): names starting with `__` are
   refused (except `__class__`, which is type(obj), the strings `__name__`, `__qualname__`,
   `__doc__`, a module's `__version__`, a user class's `__annotations__`, and methods that only
   do what an operator does, such as `__init__`, `__repr__`, `__len__`, `__eq__`, for
   `super().__init__()`); `_private` names only from a short allowlist (`_version`, `_base`,
   `_is_view`, `_saved_*` on graph nodes, a Module's `_parameters`/`_buffers`/`_modules`, and
   users' own `_names`); `gi_*`, `cr_*`, `ag_*`, `tb_*`, `co_*`, `func_*`, `im_*`, `mro`, an ABC's
   `register`, numpy's raw-memory and file attributes are refused; no attribute or call may
   return a module, frame, code, traceback, cell or memoryview; classes other than users' own,
   functions and modules are read-only. Our own classes are recognised by identity, never by an
   attribute a user can set, and cannot be copied.
5. Classes: a `class` body may define only the dunders of ordinary values (no array or buffer
   protocols, attribute hooks other than a wrapped `__getattr__`, descriptors, `__del__`,
   `__index__`, class-creation hooks), and those, like a property's accessors, must be user
   functions (Python calls them directly); it takes no keywords, and extends only classes user
   code may use whose metaclass is type, ABCMeta, the enum metaclass or typing.NamedTuple's.
   Engine classes reached only through `type(x)` cannot be called.
6. Strings: `str.format`, `format_map` and the growing string methods are recognised by identity
   however they are reached (a subclass, the class, `super()`) and replaced by guarded versions.

Counters bound what one statement may cost: a step counter (loop iterations, calls, items that
builtins and engine calls consume) stops it past `max_steps`; a depth counter raises RecursionError
past `max_depth` user-function calls (Python's own recursion limit is raised for the duration of a
statement so that the evaluator's frames fit); results that would be too large, in bytes
(`[0] * 10**12`, `10**10**10`, `'{:999999999}'`, `'x'.ljust(10**12)`, a `U2500` numpy array),
work that would take too long (`pow(3, 2**99999, m)`, a huge matrix product, `1.5 in range(10**15)`)
and tuples nested deep enough to crash Python's hash are refused before they happen, and a
statement whose memory grows past the engine's budget is stopped. Limits cannot be caught by user
code; `__exit__` and `finally` get a small budget to clean up. Tensor memory is the engine
allocator's job. User code runs only while a statement runs, in its thread: a user method reached
any other way (a snapshot, the garbage collector) raises OutsideStatement instead, and a user
generator resumed any other way too (each resume costs a step and a level of depth; one the
garbage collector closes runs no user code).

Errors read as Python's: NameError, AttributeError, TypeError, ... with Python's wording, engine
errors as raised (type name and str(exc)). An exception raised by the interpreter's own code
outside the places where user errors arise (sandbox.gateway) is a bug and is reported as
`InternalError: ...`; `run` never raises.

REPL behaviour: a module-level expression statement (also inside a module-level if/for/with)
echoes repr(value) unless it is None, as Python's interactive prompt does; this includes a bare
string, such as a docstring or a `'''Output: ...'''` block pasted from a tutorial.

The package, one concern per module: `parsing` (text to statements, Python's SyntaxErrors),
`scopes` (where names live), `functions` (user functions, argument binding), `names` (loading,
storing, unpacking), `statements` and `expressions` (what each node does), `operators` (the
operator tables), `core` (the Interpreter and the primitives every user value goes through),
`generators` (generator functions), `results` (what a run hands back).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensorscope.interpreter.results import ErrorInfo, Outcome, Statement, UserError

if TYPE_CHECKING:
    from tensorscope.interpreter.core import Interpreter
    from tensorscope.interpreter.parsing import parse

__all__ = ["ErrorInfo", "Interpreter", "Outcome", "Statement", "UserError", "parse"]


def __getattr__(name: str) -> Any:
    """The evaluator (and the sandbox and engine beneath it) loads when first asked for: a front
    end that only reads results (statements, errors, snapshots) starts without them."""
    if name == "Interpreter":
        from tensorscope.interpreter.core import Interpreter

        return Interpreter
    if name == "parse":
        from tensorscope.interpreter.parsing import parse

        return parse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
