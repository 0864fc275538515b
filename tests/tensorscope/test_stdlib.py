"""The standard library people paste, granted: tutorial code runs in tensorscope and prints what
CPython (with real torch) prints for the same program."""

from __future__ import annotations

import random

import pytest

import engine
from tensorscope.interpreter import ErrorInfo

from .conftest import Session
from .reference import python_output

needs_deepcopy = pytest.mark.skipif(not hasattr(engine.Tensor, "__deepcopy__"),
                                    reason="the engine defines Tensor.__deepcopy__ (not merged yet)")
needs_save = pytest.mark.skipif(not hasattr(engine, "save"), reason="the engine's torch.save (not merged yet)")


def same_as_python(source: str) -> str | None:
    out = Session().ok(source)
    assert out == python_output(source)
    return out


# ----------------------------------------------------------------------------- tutorials

def test_nanogpt_config_dataclass(torch):
    out = same_as_python("""
        from dataclasses import dataclass, asdict, replace, fields
        import torch
        import torch.nn as nn
        @dataclass
        class GPTConfig:
            block_size: int = 1024
            vocab_size: int = 50304 # GPT-2 vocab_size of 50257, padded up to nearest multiple of 64 for efficiency
            n_layer: int = 12
            n_head: int = 12
            n_embd: int = 768
            dropout: float = 0.0
            bias: bool = True # True: bias in Linears and LayerNorms, like GPT-2. False: a bit better and faster
        model_args = dict(n_layer=2, n_head=2, n_embd=8, block_size=16, bias=False, vocab_size=None, dropout=0.0)
        model_args['vocab_size'] = 65
        gptconf = GPTConfig(**model_args)
        print(gptconf)
        class MLP(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
                self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
                self.dropout = nn.Dropout(config.dropout)
            def forward(self, x):
                return self.dropout(self.c_proj(torch.relu(self.c_fc(x))))
        mlp = MLP(gptconf)
        sum(p.numel() for p in mlp.parameters())
        mlp(torch.ones(2, gptconf.n_embd)).shape
        asdict(gptconf)['n_embd'], replace(gptconf, dropout=0.1).dropout, [f.name for f in fields(GPTConfig)][:3]
        GPTConfig() == GPTConfig(), GPTConfig.__doc__, GPTConfig.__init__.__qualname__
    """)
    assert out.startswith("GPTConfig(block_size=16, vocab_size=65, n_layer=2, n_head=2, n_embd=8, dropout=0.0, bias=False)")


def test_dcgan_weights_init(torch):
    same_as_python("""
        import torch
        import torch.nn as nn
        _ = torch.manual_seed(999)
        def weights_init(m):
            classname = m.__class__.__name__
            if classname.find('Conv') != -1:
                nn.init.normal_(m.weight.data, 0.0, 0.02)
            elif classname.find('BatchNorm') != -1:
                nn.init.normal_(m.weight.data, 1.0, 0.02)
                nn.init.constant_(m.bias.data, 0)
        netD = nn.Sequential(nn.Conv2d(3, 4, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                             nn.Conv2d(4, 8, 4, 2, 1, bias=False), nn.BatchNorm2d(8), nn.LeakyReLU(0.2, inplace=True))
        _ = netD.apply(weights_init)
        [type(m).__name__ for m in netD], netD[0].__class__.__qualname__
        round(netD[0].weight.std().item(), 4), round(netD[3].weight.mean().item(), 4), netD[3].bias.sum().item()
    """)


def test_namedtuple_results_defaultdict_accumulation_and_counters(torch):
    same_as_python("""
        from collections import namedtuple, defaultdict, Counter, OrderedDict, deque
        import torch
        Batch = namedtuple('Batch', ['inputs', 'targets'])
        batch = Batch(torch.arange(4.).reshape(2, 2), torch.tensor([0, 1]))
        batch.inputs.shape, batch.targets, batch._fields
        inputs, targets = batch
        batch._replace(targets=None), batch._asdict()['targets'], Batch._make([1, 2])
        class Point(namedtuple('Point', 'x y', defaults=[0])):
            __slots__ = ()
            def norm(self):
                return (self.x ** 2 + self.y ** 2) ** 0.5
        Point(3, 4).norm(), Point(1), Point(x=2, y=5)
        history = defaultdict(list)
        for epoch in range(3):
            for name, value in [('loss', 1.0 / (epoch + 1)), ('acc', epoch * 0.25)]:
                history[name].append(round(value, 3))
        history, dict(history), sorted(history)
        words = 'the cat sat on the mat the end'.split()
        Counter(words).most_common(2), sorted(Counter(words).elements())[:4]
        od = OrderedDict(a=1, b=2); od.move_to_end('a'); od
        window = deque(maxlen=3)
        for i in range(5):
            window.append(i)
        window, sum(window) / len(window)
    """)


def test_functools_and_itertools_with_torch(torch):
    same_as_python("""
        import functools, itertools, operator
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        _ = torch.manual_seed(0)
        act = functools.partial(F.leaky_relu, negative_slope=0.2)
        act(torch.tensor([-1.0, 2.0])), act.func is F.leaky_relu, act.keywords
        encoder, decoder = nn.Linear(3, 2), nn.Linear(2, 3)
        opt = torch.optim.SGD(itertools.chain(encoder.parameters(), decoder.parameters()), lr=0.1)
        x = torch.ones(4, 3)
        loss = F.mse_loss(decoder(encoder(x)), x)
        opt.zero_grad(); loss.backward(); opt.step()
        len(opt.param_groups[0]['params']), round(F.mse_loss(decoder(encoder(x)), x).item(), 5)
        functools.reduce(operator.mul, [2, 3, 4]), functools.reduce(lambda a, b: a + b, [[1], [2]], [])
        @functools.lru_cache(maxsize=None)
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        fib(40), fib.cache_info().hits
        def logged(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs)
            return wrapper
        @logged
        def train_step(x):
            'One step.'
            return x * 2
        train_step(3), train_step.__name__, train_step.__doc__
        list(itertools.product([16, 32], [0.1, 0.01])), list(itertools.combinations('abc', 2))
        list(itertools.islice(itertools.cycle('ab'), 5)), list(itertools.accumulate([1, 2, 3])), list(itertools.pairwise('abc'))
        [(k, len(list(g))) for k, g in itertools.groupby('aaabbc')], list(itertools.zip_longest('ab', 'c', fillvalue='-'))
        list(itertools.starmap(pow, [(2, 3), (3, 2)])), list(itertools.takewhile(lambda v: v < 3, itertools.count()))
        sorted(['bb', 'a', 'ccc'], key=len), max([3, 1, 2], key=lambda v: -v), sorted([(1, 'b'), (1, 'a')], key=operator.itemgetter(1))
        functools.cmp_to_key(lambda a, b: b - a)(1) < functools.cmp_to_key(lambda a, b: b - a)(2)
        sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a)), operator.attrgetter('shape')(x), operator.methodcaller('sum')(x)
    """)


@pytest.mark.parametrize("seed", [0, 1, 42, 2**40 + 7, -5, "tensorscope", 3.5])
def test_random_seeded_draws_equal_cpythons(seed):
    """random.seed(n) then draws give CPython's values for the same n (the same generator)."""
    session = Session()
    out = session.ok(f"""
        import random
        random.seed({seed!r})
        xs = list(range(10))
        random.shuffle(xs)
        (random.random(), random.randint(1, 10**6), random.choice('abcdefg'), random.uniform(-1, 1), xs,
         random.sample(range(100), 5), random.gauss(0, 1), random.choices('abc', weights=[1, 2, 3], k=4),
         random.getrandbits(70), random.randrange(0, 100, 7), random.normalvariate(1, 2), random.betavariate(2, 3))
    """)
    reference = random.Random(seed)
    xs = list(range(10))
    reference.shuffle(xs)
    expected = (reference.random(), reference.randint(1, 10**6), reference.choice("abcdefg"), reference.uniform(-1, 1),
                xs, reference.sample(range(100), 5), reference.gauss(0, 1),
                reference.choices("abc", weights=[1, 2, 3], k=4), reference.getrandbits(70),
                reference.randrange(0, 100, 7), reference.normalvariate(1, 2), reference.betavariate(2, 3))
    assert out == repr(expected)


def test_random_is_the_sessions_own_and_replays_identically():
    source = "import random\n[random.random() for _ in range(3)], random.Random().random(), random.Random(5).random()"
    first, second = Session().ok(source), Session().ok(source)
    assert first == second
    assert Session().ok("import random\nrandom.seed()\nrandom.random()") == Session().ok(
        "import random\nrandom.random()")
    assert Session().ok("import random\nrandom.seed(5)\nrandom.random() == random.Random(5).random()") == "True"
    assert Session().ok("import random\ns = random.getstate()\na = random.random()\nrandom.setstate(s)\n"
                        "a == random.random(), len(s[1])") == "(True, 625)"


def test_typing_annotations_evaluate_as_in_python(torch):
    same_as_python("""
        from typing import Optional, List, Dict, Tuple, Callable, Union, Any, Iterator, TypeVar, Generic, NamedTuple
        import torch
        from torch import nn
        T = TypeVar('T')
        class Box(Generic[T]):
            def __init__(self, item: T) -> None:
                self.item = item
        def forward(x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, int]:
            return x if mask is None else x * mask, 0
        forward(torch.ones(2))[1], Box[int](3).item, Box.__name__
        Optional[int], List['Box'], Dict[str, Callable[..., Any]], Union[int, str]
        class Block(nn.Module):
            hidden: int
            def __init__(self, hidden: int = 4):
                super().__init__()
                self.hidden = hidden
        Block.__annotations__, Block().hidden
        class Result(NamedTuple):
            loss: float
            acc: float = 0.0
            def summary(self) -> str:
                return f'{self.loss:.2f}/{self.acc:.2f}'
        Result(0.5), Result(0.5).summary(), Result._fields, Result.__annotations__
        x: int = 3
        x
    """)


def test_future_annotations_are_left_as_text():
    out = Session().ok("""
        from __future__ import annotations
        class C:
            x: Undefined[int] = 1
        def f(a: AlsoUndefined) -> Nothing:
            return a
        C.__annotations__, f(2)
    """)
    assert out == "({'x': 'Undefined[int]'}, 2)"
    assert Session().error("def f(a: Undefined):\n    pass") == ErrorInfo("NameError", "name 'Undefined' is not defined")


def test_class_names_isinstance_copy_io_and_small_modules(torch):
    same_as_python("""
        import collections, copy, io, heapq, bisect, statistics, string, numbers, enum, abc, time, operator
        import torch
        t = torch.ones(2)
        t.__class__.__name__, type(t).__name__, (1).__class__, [].__class__.__name__
        isinstance(collections.OrderedDict(), dict), isinstance(3, numbers.Integral), isinstance([], collections.abc.Sequence)
        nested = {'a': [1, [2, 3]], 'b': (4, [5])}
        deep, shallow = copy.deepcopy(nested), copy.copy(nested)
        deep['a'][1].append(9); shallow['b'][1].append(6)
        nested, deep
        class Node:
            def __init__(self, v):
                self.v, self.children = v, []
            def __repr__(self):
                return f'Node({self.v}, {self.children})'
        root = Node(1); root.children.append(Node(2)); root.children.append(root.children[0])
        clone = copy.deepcopy(root)
        clone, clone.children[0] is clone.children[1], clone is not root
        class Snapshot:
            def __init__(self):
                self.data = [1]
            def __deepcopy__(self, memo):
                copied = Snapshot()
                copied.data = self.data + ['copied']
                return copied
            def __copy__(self):
                return 'shallow'
        copy.deepcopy(Snapshot()).data, copy.copy(Snapshot())
        buffer = io.StringIO()
        print('epoch 1', file=None)
        buffer.write('loss=0.5\\n'); buffer.write('loss=0.4\\n')
        buffer.getvalue().splitlines(), io.BytesIO(b'ab').read(), isinstance(buffer, io.StringIO)
        with io.BytesIO() as f:
            n = f.write(b'weights')
            closed_inside = f.closed
        n, closed_inside, f.closed
        scores = [5, 1, 8, 3]
        heapq.nlargest(2, scores), heapq.nsmallest(1, scores, key=lambda v: -v)
        heap = []
        for s in scores:
            heapq.heappush(heap, s)
        [heapq.heappop(heap) for _ in range(len(heap))]
        bisect.bisect([1, 3, 5], 4), statistics.mean([1, 2, 3, 4]), statistics.stdev([1.0, 2.0, 4.0])
        string.ascii_lowercase[:5], string.capwords('hello world'), operator.add(2, 3)
        class Phase(enum.Enum):
            TRAIN = 1
            EVAL = enum.auto()
        Phase.TRAIN, Phase(2).name, [p.name for p in Phase]
        class Loss(abc.ABC):
            @abc.abstractmethod
            def __call__(self, x):
                ...
        class L1(Loss):
            def __call__(self, x):
                return abs(x)
        L1()(-2)
        start = time.perf_counter(); time.perf_counter() >= start
    """)


def test_getattr_wrappers_and_generators_in_a_dataloader_like_loop(torch):
    same_as_python("""
        import torch
        import torch.nn as nn
        class Wrapper:
            def __init__(self, module):
                self.module = module
            def __getattr__(self, name):
                return getattr(self.module, name)
        w = Wrapper(nn.Linear(3, 2))
        w.in_features, w.weight.shape, hasattr(w, 'nothing'), getattr(w, 'nothing', 'default')
        class Parallel(nn.Module):
            def __init__(self, module):
                super().__init__()
                self.module = module
            def __getattr__(self, name):
                try:
                    return super().__getattr__(name)
                except AttributeError:
                    return getattr(self.module, name)
        p = Parallel(nn.Linear(3, 2))
        p.out_features, type(p.module).__name__
        def loader(n, batch):
            for i in range(0, n, batch):
                yield torch.arange(i, min(i + batch, n))
        [b.tolist() for b in loader(7, 3)]
    """)


@needs_deepcopy
def test_deepcopy_follows_torch(torch):
    same_as_python("""
        import copy
        import torch
        import torch.nn as nn
        lin = nn.Linear(2, 2)
        shared = nn.Sequential(lin, lin)
        clone = copy.deepcopy(shared)
        clone[0] is clone[1], clone[0].weight is lin.weight, torch.equal(clone[0].weight, lin.weight)
        leaf = torch.ones(2, requires_grad=True)
        c = copy.deepcopy(leaf)
        c.requires_grad, c is leaf, c._version
        opt = torch.optim.SGD(lin.parameters(), lr=0.1)
        copy.deepcopy(opt.state_dict())['param_groups'][0]['lr']
        try:
            copy.deepcopy(leaf * 2)
        except RuntimeError as e:
            print(str(e)[:60])
    """)


@needs_save
def test_torch_save_and_load_through_an_in_memory_file(torch):
    same_as_python("""
        import io
        import torch
        import torch.nn as nn
        _ = torch.manual_seed(0)
        model = nn.Linear(2, 2)
        buffer = io.BytesIO()
        torch.save(model.state_dict(), buffer)
        _ = buffer.seek(0)
        state = torch.load(buffer)
        list(state), torch.equal(state['weight'], model.weight), len(buffer.getvalue()) > 0
    """)
