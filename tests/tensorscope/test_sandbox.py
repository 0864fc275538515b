"""The sandbox: every way out we could think of is refused with a one-line error, the session keeps
working afterwards, and runaway statements are stopped by the step, depth and size limits.

The last tests feed random token soup and random valid-looking programs to the interpreter: `run`
must never raise and never report an InternalError.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.allocator import allocator
from tensorscope.interpreter import ErrorInfo, Interpreter, UserError, parse

from .conftest import Session

SETUP = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np
import math
def f(x, y=1):
    return x
g = (i for i in range(3))
t = torch.ones(2, requires_grad=True)
y = t * 2
a = np.ones(3)
try:
    1 / 0
except ZeroDivisionError as caught:
    err = caught
class Plain:
    pass
"""


def assert_refused(source: str, error_type: str, fragment: str, **limits: int) -> None:
    """source fails with a one-line `error_type` mentioning fragment; the session still works."""
    session = Session(**limits)
    session.ok(SETUP)
    error = session.error(source)
    assert error.type == error_type, error
    assert fragment in error.message
    assert session.ok("print(len([t, a, f(1)]))") == "3"


# ----------------------------------------------------------------------------- names

@pytest.mark.parametrize("name", [
    "open", "__import__", "eval", "exec", "compile", "globals", "locals", "vars", "input", "breakpoint",
    "help", "memoryview", "exit", "quit", "__builtins__", "bytearray", "__build_class__",
])
def test_dangerous_builtins_are_not_names(name):
    assert_refused(f"{name}", "NameError", f"name '{name}' is not defined (tensorscope does not provide it)")


def test_user_code_may_shadow_builtins_and_get_them_back(session):
    assert session.ok("print = 5\nprint") == "5"
    assert session.ok("del print\nprint('back')") == "back"


def test_dir_lists_only_what_the_attribute_policy_allows(torch_session):
    names = torch_session.ok("dir(torch.ones(1))")
    assert "'shape'" in names and "'_storage'" not in names and "'__class__'" not in names
    assert torch_session.ok("x = 1\ndir()") == "['F', 'math', 'nn', 'np', 'torch', 'x']"


def test_metered_builtins_behave_like_pythons(torch_session):
    out = torch_session.ok("""
        xs = [3, 1, 2]
        (list(reversed(xs)), list(filter(None, [0, 1, 2])), list(filter(lambda v: v > 1, xs)),
        list(map(lambda a, b: a * b, xs, xs)), list(enumerate('ab', 1)), list(zip(xs, 'abc')),
        sum(xs), sum([[1], [2]], []), sum((0.5, 0.25)), pow(2, 10), pow(2, 10, 5), format(3.14159, '.2f'),
        getattr(xs, 'nope', 'default'), hasattr(xs, 'append'), hasattr(xs, '__dict__'),
        next(iter(xs)), list(iter(lambda it=iter(xs): next(it), 2)), min(xs), max(xs, key=lambda v: -v), sorted(xs),
        any(v > 2 for v in xs), all(xs), divmod(7, 2), round(2.675, 2), repr(iter(xs))[:15])
    """)
    assert out == ("([2, 1, 3], [1, 2], [3, 2], [9, 1, 4], [(1, 'a'), (2, 'b')], [(3, 'a'), (1, 'b'), (2, 'c')], 6, "
                   "[1, 2], 0.75, 1024, 4, '3.14', 'default', True, False, 3, [3, 1], 1, 1, [1, 2, 3], True, True, "
                   "(3, 1), 2.67, '<list_iterator ')")
    assert torch_session.error("sum(['a'], '')") == ErrorInfo("TypeError", "sum() can't sum str [use ''.join(seq) instead]")
    assert torch_session.error("map(abs)") == ErrorInfo("TypeError", "map() must have at least two arguments.")
    assert torch_session.error("iter(1, 2)") == ErrorInfo("TypeError", "iter(v, w): v must be callable")
    assert torch_session.error("print(1, file=1)") == ErrorInfo("TypeError", "print(file=...) is not supported in tensorscope")
    assert torch_session.error("getattr(1, 'a', 2, 3)") == ErrorInfo("TypeError", "getattr expected at most 3 arguments, got 4")


def test_guarded_methods_work_normally_below_their_limits(torch_session):
    out = torch_session.ok("""
        ('-'.join(['a', 'b']), 'ab'.ljust(4, '.'), 'x'.zfill(3), 'a-b'.replace('-', '+'), 'a\\tb'.expandtabs(2),
        'ab'.translate({97: 'A'}), '{k}'.format_map({'k': 2}),
        str.join(',', 'ab'), b'-'.join([b'a', b'b']), math.factorial(5), math.comb(5, 2), math.perm(5, 2),
        math.perm(3), math.prod([1, 2, 3]), int.from_bytes(b'\\x01\\x00', 'big'), np.arange(3).tolist(),
        np.ones((2, 2)).sum(), (np.ones(2) @ np.ones(2)), torch.ones(2).tolist())
    """)
    assert out == ("('a-b', 'ab..', '00x', 'a+b', 'a b', 'Ab', '2', 'a,b', b'a-b', 120, 10, 20, 6, 6, 256, [0, 1, 2], "
                   "np.float64(4.0), np.float64(2.0), [1.0, 1.0])")
    assert torch_session.error("str.format(5)") == ErrorInfo(
        "TypeError", "descriptor 'format' for 'str' objects doesn't apply to a 'int' object")
    assert torch_session.error("np.zeros('a')").type == "TypeError"  # numpy's own error for bad arguments


# ----------------------------------------------------------------------------- modules

@pytest.mark.parametrize("statement", [
    "import os", "import sys", "import builtins", "import subprocess", "import torch.distributed",
    "import numpy.lib", "import ctypes", "from os import system", "import importlib",
])
def test_only_listed_modules_can_be_imported(statement):
    assert_refused(statement, "ModuleNotFoundError", "tensorscope provides: torch, torch.nn")


@pytest.mark.parametrize(("source", "fragment"), [
    ("np.load", "module 'numpy' has no attribute 'load' (not available in tensorscope)"),
    ("np.save", "module 'numpy' has no attribute 'save'"),
    ("np.fromfile", "module 'numpy' has no attribute 'fromfile'"),
    ("np.memmap", "module 'numpy' has no attribute 'memmap'"),
    ("np.ctypeslib", "module 'numpy' has no attribute 'ctypeslib'"),
    ("np.lib", "module 'numpy' has no attribute 'lib'"),
    ("np.testing", "module 'numpy' has no attribute 'testing'"),
    ("np.f2py", "module 'numpy' has no attribute 'f2py'"),
    ("np.random.default_rng", "module 'numpy.random' has no attribute 'default_rng'"),
    ("torch.ops", "module 'torch' has no attribute 'ops' (not available in tensorscope)"),
    ("torch.allocator", "module 'torch' has no attribute 'allocator'"),
    ("torch.autograd.engine", "module 'torch.autograd' has no attribute 'engine'"),
    ("F.np", "module 'torch.nn.functional' has no attribute 'np'"),
    ("torch.nn.init.math", "module 'torch.nn.init' has no attribute 'math'"),
    ("math.sys", "module 'math' has no attribute 'sys'"),
    ("torch._C", "access to '_C' is not allowed in tensorscope (private name of a module)"),
    ("torch.__dict__", "access to '__dict__' is not allowed"),
    ("np.__loader__", "access to '__loader__' is not allowed"),
    ("type(torch)._values", "access to '_values' is not allowed in tensorscope (interpreter internals)"),
    ("torch._values", "access to '_values' is not allowed"),
    ("from torch import _C", "access to '_C' is not allowed"),
])
def test_modules_expose_only_listed_names(source, fragment):
    error_type = "ImportError" if source.startswith("from") else "AttributeError"
    assert_refused(source, error_type, fragment) if error_type == "AttributeError" else None
    if error_type == "ImportError":
        assert_refused(source, "ImportError", "cannot import name '_C' from 'torch'")


@pytest.mark.parametrize("source", [
    "torch.ones = None", "del torch.ones", "setattr(np, 'pi', 3)", "F.relu = print",
    "torch.nn.Module = None",
])
def test_modules_are_read_only(source):
    assert_refused(source, "AttributeError", "in tensorscope")


def test_module_versions_and_public_names_are_readable(torch_session):
    assert torch_session.ok("torch.__version__.startswith('2.13'), isinstance(np.__version__, str)") == "(True, True)"
    assert torch_session.ok("'relu' in dir(F), 'np' in dir(F)") == "(True, False)"


# ----------------------------------------------------------------------------- attributes

@pytest.mark.parametrize(("source", "fragment"), [
    ("().__class__.__bases__", "access to '__bases__' is not allowed in tensorscope (names starting with '__' are blocked)"),
    ("().__class__.__base__.__subclasses__()", "'__base__'"),
    ("object.__subclasses__()", "'__subclasses__'"),
    ("type(t).__subclasses__()", "'__subclasses__'"),
    ("type(t).__mro__", "'__mro__'"),
    ("type(t).mro()", "'mro'"),
    ("t.__dict__", "'__dict__'"),
    ("t.__reduce__()", "'__reduce__'"),
    ("t.__reduce_ex__(2)", "'__reduce_ex__'"),
    ("t.__getattribute__('_storage')", "'__getattribute__'"),
    ("super(type(t), t).__getattribute__('_storage')", "'__getattribute__'"),
    ("t.__setattr__('_version', 5)", "'__setattr__'"),
    ("getattr(t, '__class__').__mro__", "'__mro__'"),
    ("getattr(Plain(), '__dict__')", "'__dict__'"),
    ("'{0.__class__.__dict__}'.format(t)", "'__dict__'"),
    ("'{0.__init__.__globals__}'.format(t)", "'__globals__'"),
    ("'{0._storage}'.format(t)", "'_storage'"),
    ("'{x.__class__.__subclasses__}'.format_map({'x': 1})", "'__subclasses__'"),
    ("str.format('{0.__class__.__bases__}', 1)", "'__bases__'"),
    ("f'{t.__class__.__mro__}'", "'__mro__'"),
    ("f.__globals__", "'__globals__'"),
    ("f.__code__", "'__code__'"),
    ("f.__closure__", "'__closure__'"),
    ("f.__dict__", "'__dict__'"),
    ("f.func_globals", "'func_globals'"),
    ("f.func_code", "'func_code'"),
    ("f._interpreter", "'_interpreter'"),
    ("f._scope", "'_scope'"),
    ("f.__call__", "'__call__'"),
    ("f.__get__", "'__get__'"),
    ("print.__globals__", "'__globals__'"),
    ("print.__closure__", "'__closure__'"),
    ("len.__self__", "'__self__'"),
    ("'x'.join.__closure__", "'__closure__'"),
    ("np.zeros.__wrapped__", "'__wrapped__'"),
    ("np.zeros.__globals__", "'__globals__'"),
    ("torch.ones.__globals__", "'__globals__'"),
    ("F.relu.__module__", "'__module__'"),
    ("g.gi_frame", "'gi_frame'"),
    ("g.gi_code", "'gi_code'"),
    ("g.gi_yieldfrom", "'gi_yieldfrom'"),
    ("err.__traceback__", "'__traceback__'"),
    ("err.__context__", "'__context__'"),
    ("err.with_traceback(None).__traceback__", "'__traceback__'"),
    ("t.grad_fn", ""),  # a leaf: None, no error; replaced below
    ("y.grad_fn._backward", "'_backward'"),
    ("t._storage", "access to '_storage' is not allowed in tensorscope (private attribute of 'Tensor')"),
    ("t._make", "'_make'"),
    ("torch.Tensor._make", "'_make'"),
    ("nn.Module._get_name", "'_get_name'"),
    ("a.ctypes", "access to 'ctypes' is not allowed in tensorscope (numpy file, raw-memory and class attributes)"),
    ("a.tofile('/tmp/tensorscope-escape')", "'tofile'"),
    ("a.dump('/tmp/tensorscope-escape')", "'dump'"),
    ("a.dumps()", "'dumps'"),
    ("a.__array_interface__", "'__array_interface__'"),
    ("a.setflags(write=True)", "'setflags'"),
    ("a.resize(10**9)", "'resize'"),
    ("np.float64(1).tofile('/tmp/tensorscope-escape')", "'tofile'"),
    ("np.ndarray.tofile(a, '/tmp/tensorscope-escape')", "'tofile'"),
    ("type(a).dump", "'dump'"),
    ("type(g).gi_frame", "'gi_frame'"),
    ("iter([1])._iterator", "'_iterator'"),
])
def test_attribute_escapes_are_refused(source, fragment):
    if source == "t.grad_fn":
        source = "y.grad_fn.__class__.__dict__"
        fragment = "'__dict__'"
    assert_refused(source, "AttributeError", fragment)


@pytest.mark.parametrize(("source", "fragment"), [
    ("t._version = 3", "'_version'"),
    ("t._grad_fn = None", "'_grad_fn'"),
    ("setattr(t, '_storage', None)", "'_storage'"),
    ("t.__class__ = Plain", "'__class__'"),
    ("Plain.__init__ = f", "'__init__'"),
    ("torch.Tensor.add = f", "cannot set attributes of the class 'Tensor' in tensorscope"),
    ("nn.Module.__call__ = f", "cannot set attributes of the class 'Module' in tensorscope"),
    ("int.real = 1", "cannot set attributes of the class 'int' in tensorscope"),
    ("f.attribute = 1", "cannot set attributes of 'UserFunction' objects in tensorscope"),
    ("delattr(f, '_interpreter')", "cannot set attributes of 'UserFunction' objects"),
])
def test_attribute_writes_are_refused(source, fragment):
    assert_refused(source, "AttributeError", fragment)


def test_internal_classes_cannot_be_instantiated():
    assert_refused("type(f)(1)", "TypeError", "cannot create 'UserFunction' objects in tensorscope")
    assert_refused("type(torch)('os', {}, None)", "TypeError", "cannot create 'ModuleProxy' objects in tensorscope")
    assert_refused("type(iter([]))(iter([1]), None)", "TypeError", "cannot create 'Counted' objects in tensorscope")


def test_classes_cannot_be_made_with_type_or_define_finalizers():
    assert_refused("type('X', (), {})", "TypeError", "type() takes 1 argument in tensorscope")
    assert_refused("list(map(type, ['X'], [()], [{}]))", "TypeError", "type() takes 1 argument in tensorscope")
    assert_refused("class Leaky:\n    def __del__(self):\n        pass", "TypeError",
                   "classes may not define __del__ in tensorscope")
    assert_refused("class Meta(type):\n    pass", "TypeError", "classes may not inherit from 'type' in tensorscope")
    assert_refused("class Fake(type(torch)):\n    pass", "TypeError",
                   "classes may not inherit from 'ModuleProxy' in tensorscope")
    assert_refused("class Fn(type(f)):\n    pass", "TypeError", "classes may not inherit from 'UserFunction'")


def test_no_attribute_or_call_hands_out_a_module_frame_or_code_object():
    session = Session()
    session.ok("class Holder:\n    pass\nh = Holder()")
    session.interpreter.namespace["h"].module = sys  # as if some object kept a module
    assert session.error("h.module") == ErrorInfo(
        "TypeError", "attribute 'module' gave a 'module' object, which tensorscope does not expose")
    session.interpreter.namespace["get_frame"] = sys._getframe
    assert session.error("get_frame()") == ErrorInfo(
        "TypeError", "a call gave a 'frame' object, which tensorscope does not expose")


def test_the_attributes_torch_users_need_are_readable(torch_session):
    out = torch_session.ok("""
        base = torch.arange(6.)
        v = base.view(2, 3).t()
        doubled = v.mul_(2)
        w = torch.ones(2, requires_grad=True)
        z = (w * w).sum()
        base._version, v._base is base, v._is_view(), type(z.grad_fn).__name__, z.grad_fn.next_functions[0][0].name()
    """)
    assert out == "(1, True, True, 'SumBackward0', 'MulBackward0')"
    assert torch_session.ok("m = (w * w)\nm.grad_fn._saved_self is w") == "True"
    assert torch_session.ok("lin = nn.Linear(2, 1)\nsorted(lin._parameters)") == "['bias', 'weight']"


def test_users_own_private_attributes_work(torch_session):
    out = torch_session.ok("""
        class Cache(nn.Module):
            def __init__(self):
                super().__init__()
                self._store = {}
                self.__hidden = 'mangled'
            def _key(self, n):
                return f'k{n}'
            def put(self, n):
                self._store[self._key(n)] = n
                return self._store, self.__hidden
        c = Cache()
        c.put(1), c._store, c._Cache__hidden
    """)
    assert out == "(({'k1': 1}, 'mangled'), {'k1': 1}, 'mangled')"
    assert torch_session.error("c._get_name()").message.startswith("access to '_get_name' is not allowed")


# ----------------------------------------------------------------------------- limits

def test_endless_loops_stop_at_the_step_limit_and_the_session_goes_on():
    session = Session(max_steps=10_000)
    for loop in ("while True:\n    pass", "for i in iter(int, 1):\n    pass", "x = [1]\nfor v in x:\n    x.append(v)"):
        assert session.error(loop) == ErrorInfo("RuntimeError", "statement exceeded 10000 steps (an endless loop?)")
        assert session.ok("1 + 1") == "2"


def test_the_step_limit_counts_per_statement():
    session = Session(max_steps=10_000)
    for _ in range(3):
        session.ok("for i in range(4000):\n    pass")


def test_the_step_limit_cannot_be_caught():
    session = Session(max_steps=10_000)
    error = session.error("try:\n    while True:\n        pass\nexcept BaseException:\n    print('caught')")
    assert error.message == "statement exceeded 10000 steps (an endless loop?)"
    [outcome] = session.outcomes("try:\n    while True:\n        pass\nfinally:\n    print('cleanup runs')")
    assert outcome.output == "cleanup runs" and outcome.error.type == "RuntimeError"


def test_cleanup_after_the_step_limit_gets_a_small_budget():
    session = Session(max_steps=10_000)
    session.ok("import torch")
    assert session.error("with torch.no_grad():\n    while True:\n        pass").type == "RuntimeError"
    assert session.ok("torch.is_grad_enabled()") == "True"
    error = session.error("try:\n    while True:\n        pass\nfinally:\n    while True:\n        pass")
    assert error == ErrorInfo("RuntimeError", "statement exceeded 10000 steps (an endless loop?)")


@pytest.mark.parametrize("source", [
    "list(range(10**12))", "sum(range(10**12))", "sorted(range(10**12))", "set(range(10**12))",
    "x = [1]\nx.extend(iter(x))", "x = [1]\nx.extend(enumerate(x))", "x = [1]\nx.extend(map(abs, x))",
    "list(zip(range(10**12), range(10**12)))", "list(iter(int, 1))", "[*range(10**12)]",
    "max(v for v in range(10**12))", "print(*range(10**12))",
])
def test_iteration_inside_builtins_is_counted(source):
    assert_refused(source, "RuntimeError", "statement exceeded 10000 steps (an endless loop?)", max_steps=10_000)


def test_the_default_step_limit():
    assert_refused("list(range(10**12))", "RuntimeError", "statement exceeded 1000000 steps (an endless loop?)")


def test_deep_recursion_is_a_recursion_error_not_a_crash():
    session = Session(max_depth=50)
    session.ok("def down(n):\n    return 0 if n == 0 else 1 + down(n - 1)")
    assert session.ok("down(49)") == "49"
    assert session.error("down(60)") == ErrorInfo("RecursionError", "maximum recursion depth exceeded")
    assert session.ok("try:\n    down(60)\nexcept RecursionError:\n    print('caught')") == "caught"


def test_default_depth_fits_the_evaluators_frames():
    """Every level of this recursion costs the evaluator many Python frames; at the default depth
    the interpreter's own limit is still what stops it."""
    session = Session()
    session.ok("""
        import torch.nn as nn
        class Chain(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.n = n
                self.next = Chain(n - 1) if n else None
            def forward(self, x):
                return x if self.next is None else [(1 + (2 * (self.next(x) - 1)) // 2) for _ in [0]][0]
        """)
    session.ok("Chain(150)(1)")
    assert session.error("Chain(250)(1)") == ErrorInfo("RecursionError", "maximum recursion depth exceeded")


def test_python_recursion_limit_is_restored_after_each_statement(session):
    before = sys.getrecursionlimit()
    session.ok("def f(n):\n    return n if n == 0 else f(n - 1)\nf(100)")
    assert sys.getrecursionlimit() == before


def test_deeply_nested_data_is_a_recursion_error(session):
    error = session.error("x = []\nfor i in range(30000):\n    x = [x]\nrepr(x)")
    assert error.type == "RecursionError"


@pytest.mark.parametrize(("source", "fragment"), [
    ("[0] * 10**12", "the repeated sequence would be too large: 8,000,000,000,000 bytes, tensorscope's limit is 268,435,456"),
    ("'a' * 10**12", "the repeated sequence would be too large"),
    ("10**12 * (0,)", "the repeated sequence would be too large"),
    ("x = [0]\nx *= 10**12", "the repeated sequence would be too large"),
    ("10**10**10", "the integer would be too large: 30,000,000,000 bits"),
    ("pow(10, 10**10)", "the integer would be too large"),
    ("1 << 10**10", "the integer would be too large"),
    ("x = 2**99999\nx * x", "the integer would be too large: 200,000 bits"),
    ("math.factorial(10**6)", "the integer would be too large"),
    ("math.comb(10**7, 10)", "the integer would be too large"),
    ("math.prod([2**1000] * 101)", "the integer would be too large"),
    ("int('9' * 50000)", "int() of a string would be too large"),
    ("int.from_bytes(b'x' * 10**6, 'big')", "the integer would be too large"),
    ("s = 'ab' * 10**8\ns = s + s", "the concatenation would be too large: 400,000,000 bytes"),
    ("sum([[0] * 10**7] * 4, [])", "the concatenation would be too large: 320,000,000 bytes"),
    ("'x'.ljust(10**12)", "ljust() would be too large"),
    ("'x'.center(10**12)", "center() would be too large"),
    ("'1'.zfill(10**12)", "zfill() would be too large"),
    ("('x' * 10**5).replace('', 'y' * 10**4)", "the replaced string would be too large"),
    ("'\\t'.expandtabs(10**12)", "expandtabs() would be too large"),
    ("('-' * 10**7).join(['a'] * 100)", "the joined string would be too large"),
    ("('a' * 10**4).translate({97: 'b' * 10**4})", "the translated string would be too large"),
    ("f'{1:1000000000}'", "the formatted field would be too large: 1,000,000,000 characters"),
    ("format(t, '1000000000')", "the formatted field would be too large"),
    ("'{:{}}'.format(1, 10**9)", "the formatted field would be too large"),
    ("'%1000000000d' % 1", "the formatted field would be too large"),
    ("'%*d' % (10**9, 1)", "the formatted field would be too large"),
    ("np.zeros(10**12)", "numpy.zeros() would be too large"),
    ("np.ones((10**5, 10**5))", "numpy.ones() would be too large"),
    ("np.arange(10**12)", "numpy.arange() would be too large"),
    ("np.linspace(0, 1, 10**12)", "numpy.linspace() would be too large"),
    ("np.eye(10**6)", "numpy.eye() would be too large"),
    ("np.random.randn(10**6, 10**6)", "numpy.random.randn() would be too large"),
    ("np.random.normal(0, 1, size=10**12)", "numpy.random.normal() would be too large"),
    ("np.ones((10**5, 1)) + np.ones((1, 10**5))", "the numpy result would be too large"),
    ("np.ones((10**5, 1)) @ np.ones((1, 10**5))", "the numpy result would be too large"),
    ("np.multiply(np.ones((10**5, 1)), np.ones((1, 10**5)))", "numpy.multiply() would be too large"),
    ("np.broadcast_to(a, (10**6, 10**6, 3)).copy()", "numpy.ndarray.copy() would be too large"),
    ("a.repeat(10**12)", "numpy.ndarray.repeat() would be too large"),
    ("np.ndarray((10**12,))", "numpy.ndarray() would be too large"),
    ("type(b'')(10**12)", "bytes() would be too large"),
    ("torch.ones(10**8, dtype=torch.uint8).tolist()", "the list would be too large: 3,300,000,000 bytes"),
])
def test_huge_results_are_refused_before_they_are_built(source, fragment):
    assert_refused(source, "MemoryError", fragment)


def test_memory_piling_up_in_one_statement_is_stopped(monkeypatch):
    """Each copy is small enough for the size guards; together they pass the memory budget (set
    low here), and the statement stops before it builds them all."""
    monkeypatch.setattr(allocator, "budget_bytes", 200 * 1024**2)
    session = Session()
    session.ok("big = [0] * 10**6")
    error = session.error("copies = [big[:] for _ in range(200)]")
    assert error.type == "MemoryError" and error.message.startswith("statement grew memory by ")
    assert session.ok("len(big)") == "1000000"


def test_tensor_memory_errors_come_from_the_engine_verbatim(torch_session):
    error = torch_session.error("torch.zeros(10**12)")
    assert error == ErrorInfo("RuntimeError", "DefaultCPUAllocator: not enough memory: you tried to allocate 4000000000000 bytes.")


def test_output_is_limited():
    error = Session().error("for i in range(20):\n    print('x' * 100000)")
    assert error == ErrorInfo("RuntimeError", "statement printed more than 1,000,000 characters")


def test_run_never_raises_even_when_str_of_the_error_loops():
    session = Session(max_steps=10_000)
    error = session.error("class Odd(Exception):\n    def __str__(self):\n        while True:\n            pass\nraise Odd()")
    assert error == ErrorInfo("Odd", "<str() of the exception failed: LimitExceeded>")


# ----------------------------------------------------------------------------- random programs

TOKENS = [
    "x", "y", "t", "f", "torch", "np", "print", "len", "range", "lambda", "def", "class", "return", "yield",
    "import", "from", "as", "with", "try", "except", "finally", "raise", "del", "pass", "break", "continue",
    "if", "elif", "else", "for", "while", "in", "not", "and", "or", "is", "None", "True", "global",
    "nonlocal", "assert", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "=", "+=", ":=", "+", "-", "*",
    "**", "/", "//", "%", "@", "<<", "<", ">", "==", "!=", "~", "...", "0", "1", "2.5", "10**9", "'s'",
    "b'b'", "f'{x}'", "2j", "__class__", "__globals__", "_storage", "gi_frame", "shape", "sum", "\n",
    "\n    ", "\n        ",
]
SETUP_SMALL = "import torch\nimport numpy as np\nx = [1, 2]\ny = 'text'\nt = torch.ones(2)\ndef f(v=1):\n    return v\n"


def _assert_runs_cleanly(session: Session, source: str) -> None:
    try:
        statements = parse(source)
    except UserError as exc:
        assert exc.info.type in ("SyntaxError", "IndentationError", "TabError")
        assert "\n" not in exc.info.message
        return
    for statement in statements:
        outcome = session.interpreter.run(statement)  # must not raise
        assert outcome.error is None or outcome.error.type != "InternalError", (statement.source, outcome.error)
        assert outcome.error is None or "\n" not in outcome.error.message or outcome.error.type == "RuntimeError"


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=14).map(" ".join))
def test_token_soup_never_breaks_the_interpreter(source):
    session = Session(max_steps=5_000)
    session.ok(SETUP_SMALL)
    _assert_runs_cleanly(session, source)
    assert session.interpreter.run(parse("1 + 1")[0]).output == "2"


NAMES = ["x", "y", "t", "n", "d", "s"]
ATOMS = NAMES + ["0", "1", "-2", "3.5", "'q'", "None", "True", "[]", "()", "{}", "f", "len", "abs", "str",
                 "sorted", "min", "max", "sum", "list", "range", "isinstance", "type", "getattr", "zip",
                 "enumerate", "iter", "next", "repr", "int", "round", "torch", "np", "print"]
ATTRIBUTES = ["shape", "sum", "append", "keys", "upper", "format", "join", "real", "T", "grad", "data",
              "_version", "item", "tolist", "__class__", "_storage", "gi_frame", "__init__", "mro"]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "@", "<<", "&", "|", "^", "and", "or", "<", "==", "in", "is not"]

expressions = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(
        st.builds("({} {} {})".format, inner, st.sampled_from(BINARY), inner),
        st.builds("({}{})".format, st.sampled_from(["-", "not ", "~"]), inner),
        st.builds("{}({})".format, inner, st.lists(inner, max_size=3).map(", ".join)),
        st.builds("{}.{}".format, inner, st.sampled_from(ATTRIBUTES)),
        st.builds("{}[{}]".format, inner, inner),
        st.builds("{}[{}:{}]".format, inner, inner, inner),
        st.builds("[{}]".format, st.lists(inner, max_size=3).map(", ".join)),
        st.builds("({},)".format, inner),
        st.builds("{{{}: {}}}".format, inner, inner),
        st.builds("[{} for v in {} if {}]".format, inner, inner, inner),
        st.builds("(lambda v: {})".format, inner),
        st.builds("({} if {} else {})".format, inner, inner, inner),
        st.builds("f'{{{}}}'".format, inner),
        st.builds("'{{}}'.format({})".format, inner),
    ),
    max_leaves=8,
)
simple_statements = st.one_of(
    expressions,
    st.builds("{} = {}".format, st.sampled_from(NAMES), expressions),
    st.builds("{} {}= {}".format, st.sampled_from(NAMES), st.sampled_from(["+", "*", "-", "|"]), expressions),
    st.builds("{}.{} = {}".format, expressions, st.sampled_from(ATTRIBUTES), expressions),
    st.builds("{}[{}] = {}".format, expressions, expressions, expressions),
    st.builds("del {}".format, st.sampled_from(NAMES)),
    st.builds("assert {}".format, expressions),
    st.builds("raise {}".format, expressions),
)
statements = st.one_of(
    simple_statements,
    st.builds("if {}:\n    {}\nelse:\n    {}".format, expressions, simple_statements, simple_statements),
    st.builds("for v in {}:\n    {}".format, expressions, simple_statements),
    st.builds("while {}:\n    {}\n    break".format, expressions, simple_statements),
    st.builds("def h(v):\n    {}\n    return {}\nh({})".format, simple_statements, expressions, expressions),
    st.builds("try:\n    {}\nexcept Exception as e:\n    print(type(e).__name__)".format, simple_statements),
    st.builds("with torch.no_grad():\n    {}".format, simple_statements),
    st.builds("class K:\n    a = {}\n    def m(self):\n        return {}\nK().m()".format, expressions, expressions),
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(statements, min_size=1, max_size=4).map("\n".join))
def test_random_valid_looking_programs_never_hit_an_interpreter_bug(source):
    session = Session(max_steps=5_000)
    session.ok(SETUP_SMALL + "n = 3\nd = {'k': 1}\ns = {1, 2}\n")
    _assert_runs_cleanly(session, source)
    assert session.interpreter.run(parse("len([1, 2])")[0]).output == "2"


def test_statements_from_another_interpreter_run_independently():
    first, second = Interpreter(), Interpreter()
    first.run_source("x = 1")
    assert second.run_source("x")[0][1].error == ErrorInfo("NameError", "name 'x' is not defined")
