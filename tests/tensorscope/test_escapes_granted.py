"""Escape attempts through what issue 12 granted: the standard library modules, generators,
`__class__`, `__getattr__`, `__copy__`/`__deepcopy__`. Each is refused in one line with nothing
happening behind it (the audit hooks, the environment canary and the empty folder of
test_escapes), and the session keeps working.

The families: callables that would be called from C unchecked (partial, reduce, lru_cache,
starmap, sort keys, defaultdict factories, dataclass factories, properties, class dunders),
attribute reads that would skip the policy (attrgetter, methodcaller, super(), generic aliases,
`__class__`), exec and compile reached through namedtuple, dataclass and typing, copy reaching
the interpreter's objects or the engine's internals, io reaching files or growing without
bound, random's sizes, itertools explosions, generator frames, global state every session
shares (ABC registries, functions' attributes), and classes made without a class statement.
"""

from __future__ import annotations

import pytest

from .conftest import Session
from .test_escapes import SETUP, cases, refused

IMPORTS = ("import functools, itertools, operator, copy, io, random, collections, dataclasses, typing, heapq, "
           "bisect, statistics, string, time, numbers, enum, abc\nimport collections.abc\n")


def refused_after_imports(source: str, error_type: str, fragment: str) -> None:
    refused(IMPORTS + source, error_type, fragment)


# ----------------------------------------------------------------------------- callables called from C

@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("functools.partial(type, 'X', (), {'__getattr__': f})()", "TypeError", "type() takes 1 argument"),
    ("functools.partial(np.ndarray, (1,), object, b)()", "TypeError", "'buffer', 'offset' and 'strides'"),
    ("functools.partial(type(y.grad_fn))()", "TypeError", "cannot create 'SumBackward0' objects"),
    ("functools.partial(print)._func", "AttributeError", "'_func'"),
    ("functools.partial(print).__reduce__()", "AttributeError", "'__reduce__'"),
    ("functools.reduce(np.ndarray, ['O'], (1,))", "TypeError", "object, void and structured dtypes"),
    ("functools.reduce(lambda a, b: a * b, [[0] * 10**4, 10**5])", "MemoryError", "the repeated sequence would be"),
    ("functools.lru_cache(maxsize=None)(type(t.untyped_storage()))(t)", "TypeError", "cannot create 'UntypedStorage'"),
    ("functools.cache(lambda: f.__globals__)()", "AttributeError", "'__globals__'"),
    ("functools.cache(f).__wrapped__", "AttributeError", "'__wrapped__'"),
    ("sorted([1, 2], key=functools.cmp_to_key(type(y.grad_fn)))", "TypeError", "cannot create 'SumBackward0'"),
    ("functools.update_wrapper(torch.relu, f)", "TypeError", "update_wrapper() updates functions and objects defined"),
    ("functools.wraps(f)(print)", "TypeError", "update_wrapper() updates functions and objects defined"),
    ("functools.total_ordering(torch.Tensor)", "TypeError", "total_ordering() takes a class defined in your code"),
    ("functools.cached_property(np.ndarray)", "TypeError", "cached_property() takes a function defined with def"),
    ("functools.singledispatch", "AttributeError", "module 'functools' has no attribute 'singledispatch' (not available"),
    ("list(itertools.starmap(np.ndarray, [((1,), object, b)]))", "TypeError", "'buffer', 'offset' and 'strides'"),
    ("list(itertools.accumulate([(1,), 'O'], np.ndarray))", "TypeError", "object, void and structured dtypes"),
    ("list(itertools.filterfalse(type(y.grad_fn), [1]))", "TypeError", "cannot create 'SumBackward0'"),
    ("list(itertools.groupby([1], key=lambda v: f.__code__))", "AttributeError", "'__code__'"),
    ("sorted([b], key=type(t.untyped_storage()))", "TypeError", "cannot create 'UntypedStorage' objects"),
    ("max([1], key=type(y.grad_fn))", "TypeError", "cannot create 'SumBackward0' objects"),
    ("xs = [1]\nxs.sort(key=type(y.grad_fn))", "TypeError", "cannot create 'SumBackward0' objects"),
    ("list.sort([1], key=type(y.grad_fn))", "TypeError", "cannot create 'SumBackward0' objects"),
    ("heapq.nlargest(1, [1, 2], key=type(y.grad_fn))", "TypeError", "cannot create 'SumBackward0' objects"),
    ("list(heapq.merge([1], [2], key=lambda v: v.__class__.__mro__))", "AttributeError", "'__mro__'"),
    ("bisect.insort([1, 3], 2, key=type(y.grad_fn))", "TypeError", "cannot create 'SumBackward0' objects"),
    ("collections.defaultdict(type(y.grad_fn))[0]", "TypeError", "cannot create 'SumBackward0' objects"),
    ("d = collections.defaultdict(list)\nd.default_factory = type(t.untyped_storage())\nd[0]", "TypeError",
     "cannot create 'UntypedStorage' objects"),
    ("operator.call(type, 'X', (), {})", "TypeError", "type() takes 1 argument"),
    ("operator.methodcaller('__init_subclass__')(Plain)", "AttributeError", "'__init_subclass__'"),
    ("staticmethod(np.ndarray)((1,), object, b)", "TypeError", "'buffer', 'offset' and 'strides'"),
    ("class K:\n    m = classmethod(type(y.grad_fn))\nK.m()", "TypeError", "cannot create 'SumBackward0' objects"),
    ("type[int]('A', (), {'__array_interface__': {}})", "TypeError", "type() takes 1 argument"),
    ("list[int].__origin__", "AttributeError", "'__origin__'"),
    ("type(collections.abc.Sequence)('X', (), {'__getattr__': f})", "TypeError",
     "cannot create classes with 'ABCMeta'"),
    ("type(enum.Enum)('X', (), {})", "TypeError", "cannot create classes with 'EnumType'"),
    ("enum.Enum('X', [('__array_interface__', {'data': (0, False)})])", "TypeError",
     "enum classes are made with `class`"),
    ("enum.IntEnum('X', 'A B', type=np.ndarray)", "TypeError", "enum classes are made with `class`"),
    ("B = type(b)\nclass E(B, enum.Enum):\n    A = (10**10,)", "TypeError", "an enum may not mix in 'bytes'"),
    ("class K(typing.Any):\n    pass", "TypeError", "its metaclass '_AnyMeta' would make the class"),
))
def test_callables_run_through_the_interpreter(source, error_type, fragment):
    refused_after_imports(source, error_type, fragment)


# ----------------------------------------------------------------------------- attributes

@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("operator.attrgetter('__globals__')(f)", "AttributeError", "'__globals__'"),
    ("operator.attrgetter('x.__class__.__mro__')(collections.namedtuple('P', 'x')(1))", "AttributeError", "'__mro__'"),
    ("operator.methodcaller('tofile', 'x')(a)", "AttributeError", "'tofile'"),
    ("operator.methodcaller('view', 'O')(a)", "TypeError", "object, void and structured dtypes"),
    ("np.ndarray[int].tofile(a, 'x')", "AttributeError", "'tofile'"),
    ("typing.List[np.ndarray].tofile", "AttributeError", "'tofile'"),
    ("super(np.float64, np.float64(1.0)).tofile('x')", "AttributeError", "'tofile'"),
    ("super(np.float64, np.float64(1.0)).view('O')", "TypeError", "object, void and structured dtypes"),
    ("t.__class__.__subclasses__()", "AttributeError", "'__subclasses__'"),
    ("().__class__.__base__", "AttributeError", "'__base__'"),
    ("f.__class__._interpreter", "AttributeError", "'_interpreter'"),
    ("type(f).__call__", "AttributeError", "'__call__'"),
    ("torch.__class__", "AttributeError", "private name of a module"),
    ("typing.Optional['X'].__args__", "AttributeError", "'__args__'"),
    ("dataclasses.fields.__globals__", "AttributeError", "'__globals__'"),
    ("copy.deepcopy.__closure__", "AttributeError", "'__closure__'"),
    ("random._inst", "AttributeError", "private name of a module"),
    ("random.Random()._generator", "AttributeError", "'_generator'"),
    ("random.random.__self__", "AttributeError", "'__self__'"),
    ("io.BytesIO()._file", "AttributeError", "'_file'"),
    ("class K(functools.partial):\n    pass\nK(print)._func", "AttributeError", "'_func'"),
    ("collections.abc.Mapping.register(Plain)", "AttributeError", "'register'"),
    ("typing.Sequence.register(Plain)", "AttributeError", "'register'"),
    ("numbers.Number.register(Plain)", "AttributeError", "'register'"),
    ("torch.relu.tag = 1", "AttributeError", "cannot set attributes of 'function' objects"),
    ("math.sqrt.tag = 1", "AttributeError", "cannot set attributes of 'builtin_function_or_method'"),
    ("typing.Mapping[str, int].flag = 1", "AttributeError", "cannot set attributes of the class 'Mapping'"),
    ("abc.abstractmethod(torch.relu)", "TypeError", "abstractmethod() takes a function defined in your code"),
    ("class K:\n    def __getattr__(self, name):\n        return {'shape': (1,), 'typestr': '|O', 'data': (0, False), "
     "'version': 3}\nnp.asarray(K())", "TypeError", "numpy does not take instances of your own classes"),
    ("class K:\n    def __getattr__(self, name):\n        return name\nK().__array_interface__", "AttributeError",
     "'__array_interface__'"),
    ("class K:\n    def __getattr__(self, name):\n        return getattr(self, name + 'x')\nK().a", "RecursionError",
     "maximum recursion depth exceeded"),
    ("class K:\n    def __getattr__(self, name):\n        while True:\n            pass\nK().a", "RuntimeError",
     "statement exceeded"),
))
def test_attributes_follow_the_policy(source, error_type, fragment):
    refused_after_imports(source, error_type, fragment)


def test_a_user_getattr_never_sees_dunder_probes_nor_runs_outside_a_statement(torch):
    session = Session()
    session.ok("calls = []\nclass Proxy:\n    def __getattr__(self, name):\n        calls.append(name)\n"
               "        return 1\np = Proxy()\nimport copy\nq = copy.deepcopy(p)\nr = copy.copy(p)")
    assert session.ok("calls, p.anything, calls") == "(['anything'], 1, ['anything'])"
    proxy = session.interpreter.namespace["p"]
    assert getattr(proxy, "whatever", "absent") == "absent"  # outside a statement: as if missing
    assert session.ok("calls") == "['anything']"


# ----------------------------------------------------------------------------- exec and compile

@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("collections.namedtuple('P', 'x=__import__(\"os\").system(\"id\")')", "ValueError",
     "Type names and field names must be valid identifiers"),
    ("collections.namedtuple('P', ['x', 'lambda'])", "ValueError", "cannot be a keyword: 'lambda'"),
    ("collections.namedtuple('os.system', 'x')", "ValueError", "must be valid identifiers: 'os.system'"),
    ("collections.namedtuple('P', ['__globals__'])", "ValueError", "Field names cannot start with an underscore"),
    ("collections.namedtuple('P', 'x x')", "ValueError", "Encountered duplicate field name: 'x'"),
    ("typing.NamedTuple('P', [('a b', int)])", "ValueError", "must be valid identifiers: 'a b'"),
    ("P = collections.namedtuple('P', 'x')\nP.__new__", "AttributeError", "'__new__'"),
    ("P = collections.namedtuple('P', 'x')\nP(1, 2)", "TypeError", "P.__new__() takes 2 positional arguments but 3 were given"),
    ("@dataclasses.dataclass\nclass C:\n    y: int\n    __annotations__['x: int = __import__(\"os\")'] = int\n"
     "C(**{'z': 1})",
     "TypeError", "C.__init__() got an unexpected keyword argument 'z'"),
    ("@dataclasses.dataclass\nclass C:\n    x: list = []", "ValueError", "mutable default <class 'list'> for field x"),
    ("@dataclasses.dataclass\nclass C:\n    x: int = 1\n    y: int", "TypeError", "non-default argument 'y' follows default"),
    ("@dataclasses.dataclass\nclass C:\n    x: int = dataclasses.field(default_factory=type(y.grad_fn))\nC()",
     "TypeError", "cannot create 'SumBackward0' objects"),
    ("@dataclasses.dataclass\nclass C:\n    x: int = 1\n    def __post_init__(self):\n        self.x = f.__code__\nC()",
     "AttributeError", "'__code__'"),
    ("@dataclasses.dataclass(frozen=True)\nclass C:\n    x: int = 1\nc = C()\nc.x = 2", "FrozenInstanceError",
     "cannot assign to field 'x'"),
    ("@dataclasses.dataclass(frozen=True)\nclass C:\n    x: int = 1\nobject.__setattr__(C(), 'x', 2)", "AttributeError",
     "'__setattr__'"),
    ("dataclasses.dataclass(torch.Tensor)", "TypeError", "dataclass() takes a class defined in your code"),
    ("dataclasses.dataclass(slots=True)", "TypeError", "dataclass(slots=True) is not supported"),
    ("dataclasses.make_dataclass", "AttributeError", "module 'dataclasses' has no attribute 'make_dataclass' (not"),
    ("@dataclasses.dataclass\nclass C:\n    x: int = 1\ndataclasses.fields(C)[0]._field_type", "AttributeError",
     "'_field_type'"),
    ("@dataclasses.dataclass\nclass C:\n    x: object = None\ndataclasses.asdict(C(torch))", "TypeError",
     "cannot pickle 'ModuleProxy' object"),
    ("dataclasses.fields(f)", "TypeError", "must be called with a dataclass type or instance"),
    ("@dataclasses.dataclass\nclass C:\n    x: int = dataclasses.field(default=0, metadata={'m': 1})\n"
     "md = dataclasses.fields(C)[0].metadata\nmd['m'] = 2", "TypeError", "'mappingproxy' object does not support item"),
    ("@dataclasses.dataclass\nclass C:\n    x: int = dataclasses.field(default=0, metadata={'m': 1})\n"
     "type(dataclasses.fields(C)[0].metadata)(Plain.__dict__)", "AttributeError", "'__dict__'"),
    ("typing.get_type_hints", "AttributeError", "module 'typing' has no attribute 'get_type_hints' (not available"),
    ("typing.ForwardRef('__import__(\"os\")')", "AttributeError", "module 'typing' has no attribute 'ForwardRef'"),
    ("typing.Optional['__import__(\"os\").system(\"id\")'].__forward_code__", "AttributeError",
     "'__forward_code__'"),
    ("typing.get_args(typing.Optional['x'])[0]._evaluate(None, None, frozenset())", "AttributeError", "'_evaluate'"),
    ("typing.Optional[int] | '__import__(\"os\")'", "TypeError", "tensorscope does not take a string in `|`"),
))
def test_no_text_reaches_a_compiler(source, error_type, fragment):
    refused_after_imports(source, error_type, fragment)


def test_forward_references_are_made_without_compiling():
    """typing would compile `'GPT'` into a code object; the audit hook sees no compile of it."""
    import sys

    seen: list[str] = []

    def hook(event: str, args: tuple) -> None:
        if event == "compile" and args[1] == "<string>":
            seen.append(str(args[0]))

    sys.addaudithook(hook)
    session = Session()
    out = session.ok("import typing\nT = typing.TypeVar('T', bound='GPT')\nclass G(typing.Generic[T]):\n    pass\n"
                     "typing.Optional['GPT'], typing.Callable[['GPT'], 'Block'], typing.Annotated['GPT', 'x'], "
                     "G['Module'], typing.Literal['train'], T.__bound__ if False else T")
    assert seen == []
    assert out.startswith("(typing.Optional[ForwardRef('GPT')], typing.Callable[[ForwardRef('GPT')], ForwardRef('Block')]")


# ----------------------------------------------------------------------------- copy

@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("copy.deepcopy(torch)", "TypeError", "cannot pickle 'ModuleProxy' object"),
    ("copy.copy(np)", "TypeError", "cannot pickle 'ModuleProxy' object"),
    ("copy.deepcopy(iter([1]))", "TypeError", "cannot pickle 'Counted' object"),
    ("copy.deepcopy(g)", "TypeError", "cannot pickle 'generator' object"),
    ("def gen():\n    yield 1\ncopy.copy(gen())", "TypeError", "cannot pickle 'generator' object"),
    ("copy.deepcopy(y.grad_fn)", "TypeError", "cannot pickle 'SumBackward0' object"),
    ("copy.copy(y.grad_fn)", "TypeError", "cannot pickle 'SumBackward0' object"),
    ("copy.deepcopy(t.untyped_storage())", "TypeError", "cannot pickle 'UntypedStorage' object"),
    ("class K:\n    pass\nk = K()\nk.module = torch\ncopy.deepcopy(k)", "TypeError", "cannot pickle 'ModuleProxy'"),
    ("copy.deepcopy([[0] * 10] * 2_000_000)", "RuntimeError", "statement exceeded 1000000 steps"),
    ("class K:\n    def __deepcopy__(self, memo):\n        return copy.deepcopy(self, memo)\ncopy.deepcopy(K())",
     "RecursionError", "maximum recursion depth exceeded"),
    ("class K:\n    def __copy__(self):\n        return f.__globals__\ncopy.copy(K())", "AttributeError", "'__globals__'"),
    ("copy.deepcopy(functools.partial(print, torch))", "TypeError", "cannot pickle 'ModuleProxy' object"),
))
def test_copy_reaches_nothing_of_the_interpreter_or_the_engine(source, error_type, fragment):
    refused_after_imports(source, error_type, fragment)


def test_copy_keeps_functions_and_the_session_intact():
    session = Session()
    session.ok(SETUP + IMPORTS)
    assert session.ok("copy.deepcopy(f) is f, copy.copy(print) is print, copy.deepcopy([f, f])[0] is f") == "(True, True, True)"
    assert session.ok("r = copy.deepcopy(random.Random(3))\nr.random() == random.Random(3).random()") == "True"
    assert session.ok("f(5)") == "5"


# ----------------------------------------------------------------------------- io, random, sizes

@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("io.open('x', 'w')", "AttributeError", "module 'io' has no attribute 'open' (not available"),
    ("io.FileIO('x', 'w')", "AttributeError", "module 'io' has no attribute 'FileIO'"),
    ("io.open_code('x')", "AttributeError", "module 'io' has no attribute 'open_code'"),
    ("io.BytesIO(b'x').getbuffer()", "AttributeError", "'BytesIO' object has no attribute 'getbuffer'"),
    ("io.BytesIO().fileno()", "UnsupportedOperation", "fileno"),
    ("fh = io.BytesIO()\nfh.seek(10**12)\nfh.write(b'x')", "MemoryError", "the in-memory file would be too large"),
    ("fh = io.StringIO()\nfh.seek(10**11)\nfh.write('x')", "MemoryError", "the in-memory file would be too large"),
    ("fh = io.BytesIO()\nfor i in range(10):\n    fh.write(b'x' * 2**25)", "MemoryError", "the in-memory file"),
    ("io.BytesIO().writelines(itertools.repeat(b'x'))", "RuntimeError", "statement exceeded 1000000 steps"),
    ("super(type(io.BytesIO()), io.BytesIO())._file", "AttributeError", "'_file'"),
    ("random.SystemRandom", "AttributeError", "module 'random' has no attribute 'SystemRandom' (not available"),
    ("random.getrandbits(10**9)", "MemoryError", "the integer would be too large"),
    ("random.randbytes(10**10)", "MemoryError", "randbytes() would be too large"),
    ("random.choices([1], k=10**9)", "MemoryError", "choices() would be too large"),
    ("random.sample(range(10**12), 10**8)", "RuntimeError", "statement exceeded"),
    ("random.setstate((3, tuple(range(10)), None))", "ValueError", "state vector is the wrong size"),
    ("list(itertools.count())", "RuntimeError", "statement exceeded 1000000 steps"),
    ("list(itertools.repeat(0, 10**12))", "RuntimeError", "statement exceeded 1000000 steps"),
    ("sum(itertools.cycle([1]))", "RuntimeError", "statement exceeded 1000000 steps"),
    ("itertools.product(range(10**4), repeat=10**4)", "MemoryError", "product() would be too large"),
    ("list(itertools.product(range(100), repeat=4))", "RuntimeError", "statement exceeded 1000000 steps"),
    ("itertools.permutations(range(3), 10**9)", "MemoryError", "permutations() would be too large"),
    ("list(itertools.permutations(range(10**6)))", "RuntimeError", "statement exceeded 1000000 steps"),
    ("list(itertools.combinations(range(10**3), 3))", "RuntimeError", "statement exceeded 1000000 steps"),
    ("itertools.tee([1], 10**9)", "MemoryError", "tee() would be too large"),
    ("list(itertools.accumulate(['x' * 10**7] * 100))", "MemoryError", "the concatenation would be too large"),
    ("list(collections.Counter(a=10**12).elements())", "RuntimeError", "statement exceeded 1000000 steps"),
    ("collections.deque([0] * 10**5) * 10**5", "MemoryError", "the repeated sequence would be too large"),
    ("dq = collections.deque([0] * 10**5)\ndq *= 10**5", "MemoryError", "the repeated sequence would be too large"),
    ("operator.mul([0], 10**12)", "MemoryError", "the repeated sequence would be too large"),
    ("operator.pow(10, 10**10)", "MemoryError", "the integer would be too large"),
    ("operator.lshift(1, 10**10)", "MemoryError", "the integer would be too large"),
    ("operator.concat('ab' * 10**8, 'ab' * 10**8)", "MemoryError", "the concatenation would be too large"),
    ("operator.contains(range(10**15), 1.5)", "RuntimeError", "statement exceeded 1000000 steps"),
    ("operator.countOf(itertools.count(), -1)", "RuntimeError", "statement exceeded 1000000 steps"),
    ("statistics.quantiles([1, 2], n=10**9)", "MemoryError", "quantiles() would be too large"),
    ("statistics.NormalDist", "AttributeError", "module 'statistics' has no attribute 'NormalDist' (not available"),
    ("time.sleep(10**6)", "AttributeError", "module 'time' has no attribute 'sleep' (not available"),
    ("time.localtime()", "AttributeError", "module 'time' has no attribute 'localtime'"),
    ("string.Template('$x').substitute(x=1)", "AttributeError", "module 'string' has no attribute 'Template'"),
    ("string.Formatter().format('{0.__globals__}', f)", "AttributeError", "module 'string' has no attribute 'Formatter'"),
))
def test_sizes_and_side_effects_stay_bounded(source, error_type, fragment):
    refused_after_imports(source, error_type, fragment)


# ----------------------------------------------------------------------------- generators

@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("def gen():\n    yield 1\ngen().gi_frame", "AttributeError", "'gi_frame'"),
    ("def gen():\n    yield 1\ngen().gi_code", "AttributeError", "'gi_code'"),
    ("def gen():\n    yield from [1]\nn = gen()\nnext(n)\nn.gi_yieldfrom", "AttributeError", "'gi_yieldfrom'"),
    ("def gen():\n    yield 1\ngen()._generator", "AttributeError", "'_generator'"),
    ("def gen():\n    yield 1\ngen()._interpreter", "AttributeError", "'_interpreter'"),
    ("def gen():\n    yield 1\ngen()._state", "AttributeError", "'_state'"),
    ("def gen():\n    yield 1\ngen().__next__", "AttributeError", "'__next__'"),
    ("def gen():\n    yield 1\ngen().send.__self__", "AttributeError", "'__self__'"),
    ("def gen():\n    yield 1\ntype(gen())(1, 2, 3, 4)", "TypeError", "cannot create 'generator' objects"),
    ("class K(type(g)):\n    pass", "TypeError", "is not an acceptable base type"),
    ("def gen():\n    yield 1\nclass K(type(gen())):\n    pass", "TypeError", "classes may not inherit from 'generator'"),
    ("def gen():\n    while True:\n        yield 1\nlist(gen())", "RuntimeError", "statement exceeded 1000000 steps"),
    ("def gen(n):\n    yield n\n    yield from gen(n + 1)\nlist(gen(0))", "RecursionError", "maximum recursion depth"),
    ("def gen():\n    yield 1\nn = gen()\nnext(n)\nn.throw(StopIteration)", "RuntimeError", "generator raised StopIteration"),
    ("def gen():\n    try:\n        yield 1\n    finally:\n        yield 2\nn = gen()\nnext(n)\nn.close()", "RuntimeError",
     "generator ignored GeneratorExit"),
    ("def gen():\n    yield\nn = gen()\nnext(n)\nn.send(f.__globals__)", "AttributeError", "'__globals__'"),
    ("def gen():\n    x = yield\n    x.__class__.__bases__\nn = gen()\nnext(n)\nn.send(1)", "AttributeError", "'__bases__'"),
))
def test_generators_keep_their_frames(source, error_type, fragment):
    refused_after_imports(source, error_type, fragment)


# ----------------------------------------------------------------------------- class bodies

@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("class K:\n    __getattr__ = print", "TypeError", "classes may not set __getattr__ to a 'function' object"),
    ("class K:\n    __deepcopy__ = copy.deepcopy", "TypeError", "classes may not set __deepcopy__"),
    ("class K:\n    __copy__ = functools.partial(print)", "TypeError", "classes may not set __copy__ to a 'partial'"),
    ("class K:\n    __len__ = functools.lru_cache(len)", "TypeError", "classes may not set __len__"),
    ("class K:\n    p = functools.cached_property(f)\n    q = property(operator.itemgetter(0))", "TypeError",
     "the property 'q' must use functions"),
    ("class K:\n    __slots__ = ('a',)", "TypeError", "may not define __slots__"),
    ("class K:\n    __annotations__ = 5", "TypeError", "__annotations__ must be a dict"),
    ("class K:\n    __orig_bases__ = (Plain,)", "TypeError", "may not define __orig_bases__"),
    ("class K:\n    __setattr__ = object.__setattr__", "AttributeError", "'__setattr__'"),
    ("class K:\n    def __post_init__(self):\n        pass\n    __reduce_ex__ = __post_init__", "TypeError",
     "may not define __reduce_ex__"),
))
def test_class_bodies_still_define_only_ordinary_classes(source, error_type, fragment):
    refused_after_imports(source, error_type, fragment)
