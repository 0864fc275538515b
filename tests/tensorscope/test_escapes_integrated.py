"""Escape attempts against the integrated product: the engine surface typed code reaches since
the last audit (callbacks the engine calls, torch.save/torch.load, copying engine objects, custom
autograd Functions, hooks, checkpoint, DataLoader, dtypes, the Paddle dialect), and the front ends
around the worker. Each sandbox attempt is refused in one line with nothing happening behind it
(test_escapes' audit hooks, environment canary and empty folder) and the session going on.

The families:
- classes the engine would construct unchecked: every engine API that calls what it is given
  (Module.apply, hooks, lr lambdas, collate_fn, checkpoint, decorators, a replaced `forward`)
  handed `type`, `np.ndarray`, an enum class without members, a graph node's class or one of the
  interpreter's own (they reach user code only as stand-ins whose call is the interpreter's check);
- torch.load of pickles made by hand: every opcode that names a class or calls one, persistent
  ids, extensions, storages of other dtypes or bogus geometry, recursion, huge lengths;
- copies of engine objects, custom Functions and their ctx, DataLoader pieces, dtypes through
  ml_dtypes, the Paddle dialect's new modules;
- stand-ins keep ordinary code working (isinstance, identity, enums, `np.ndarray[int]`...);
- the front ends: replay of a script and of a scenario, check, the REPL and compare meet the same
  refusals; completion runs no code; user output cannot forge a reply on the wire; floods of
  output and snapshots too large for the wire stop in one line and the session goes on;
- the wall: a probe that enters the worker's confinement as the worker does checks what an
  attacker who escaped the sandbox would face.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tensorscope.worker.client import WorkerSession
from tensorscope.worker.limits import Limits, landlock_abi
from tensorscope.worker.process import WorkerProcess, environment, package_root, sweep_orphans

from .conftest import Session
from .test_escapes import CANARY, SETUP, cases, refused

PRELUDE = """\
import functools, enum, typing, collections, copy, io
import collections.abc
from torch.utils.data import DataLoader, Dataset, TensorDataset
from torch.utils.checkpoint import checkpoint
Node = type(y.grad_fn)
Storage = type(t.untyped_storage())
Fn = type(f)
"""


def attempt(source: str, error_type: str, fragment: str) -> None:
    refused(PRELUDE + source, error_type, fragment)


BUILDS_A_CLASS = "type() takes 1 argument in tensorscope"
RAW_MEMORY = "'buffer', 'offset' and 'strides' are not available"
NODE = "cannot create 'SumBackward0' objects"

# ----------------------------------------------------------------------------- callables the engine calls


@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    # Module.apply, hooks, forward
    ("nn.Linear(2, 2).apply(Node)", "TypeError", NODE),
    ("nn.Linear(2, 2).apply(Fn)", "TypeError", "cannot create 'UserFunction' objects"),
    ("m = nn.Linear(2, 2)\nm.register_forward_hook(np.ndarray)\nm(torch.ones(2))", "TypeError", RAW_MEMORY),
    ("m = nn.Linear(2, 2)\nm.register_forward_hook(Node)\nm(torch.ones(2))", "TypeError", NODE),
    ("m = nn.Linear(2, 2)\nm.register_forward_pre_hook(Node)\nm(torch.ones(2))", "TypeError", NODE),
    ("m = nn.Linear(2, 2)\nm.register_forward_pre_hook(type)\nm('X', (object,), {})", "TypeError", BUILDS_A_CLASS),
    ("m = nn.Linear(2, 2)\nm.register_full_backward_hook(Node)\nm(t).sum().backward()", "TypeError", NODE),
    ("m = nn.Module()\nm.forward = type\nm('X', (object,), {'__array_interface__': {}})", "TypeError", BUILDS_A_CLASS),
    ("m = nn.Module()\nm.forward = np.ndarray\nm((16,), 'u1', b, -32)", "TypeError", RAW_MEMORY),
    ("m = nn.Module()\nsetattr(m, 'forward', Storage)\nm(t)", "TypeError", "cannot create 'UntypedStorage' objects"),
    ("class M(nn.Module):\n    forward = type\nM()('X', (object,), {})", "TypeError", BUILDS_A_CLASS),
    ("class M(nn.Module):\n    forward = staticmethod(np.ndarray)\nM()((1,), 'O', b)", "TypeError", RAW_MEMORY),
    ("seq = nn.Sequential(nn.Identity())\nseq._modules['0'] = Node\nseq(t)", "TypeError", NODE),
    ("seq = nn.Sequential(nn.Identity(), nn.Identity())\nseq[1].forward = Fn\nseq(t)", "TypeError",
     "cannot create 'UserFunction' objects"),
    ("nn.ModuleList([nn.Identity()]).apply(type(collections.abc.Sequence))", "TypeError",
     "cannot create classes with 'ABCMeta'"),
    # optimizers and schedulers
    ("opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)\nopt.step(Node)", "TypeError", NODE),
    ("opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)\n"
     "torch.optim.lr_scheduler.LambdaLR(opt, Node)", "TypeError", NODE),
    ("opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)\n"
     "torch.optim.lr_scheduler.LambdaLR(opt, [Node])", "TypeError", NODE),
    ("opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)\n"
     "s = torch.optim.lr_scheduler.MultiplicativeLR(opt, Storage)\ns.step()", "TypeError",
     "cannot create 'UntypedStorage' objects"),
    ("opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)\n"
     "s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0)\ns.lr_lambdas[0] = Node\ns.step()", "TypeError", NODE),
    ("opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)\n"
     "s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0)\ns.lr_lambdas.append(Node)\n"
     "s.lr_lambdas.reverse()\ns.step()", "TypeError", NODE),
    # data loading
    ("list(DataLoader([1], batch_size=None, collate_fn=Node))", "TypeError", NODE),
    ("list(DataLoader([((16,), 'u1', b, -32)], batch_size=None, collate_fn=functools.partial(np.ndarray)))",
     "TypeError", "cannot be interpreted as an integer"),
    ("dl = DataLoader([1], batch_size=None)\ndl.collate_fn = type(iter([]))\nlist(dl)", "TypeError",
     "cannot create 'Counted' objects"),
    ("list(DataLoader([[0]], batch_sampler=[[0]], collate_fn=Node))", "TypeError", NODE),
    ("class D(Dataset):\n    def __len__(self):\n        return 1\n    __getitem__ = Node\nD()[0]", "TypeError",
     "classes may not set __getitem__ to a 'type' object"),
    # checkpoint and decorators: the caller's own arguments, passed on
    ("checkpoint(type, 'X', (object,), {'__module__': 'q'}, use_reentrant=False)", "TypeError", BUILDS_A_CLASS),
    ("checkpoint(type, 'X', (object,), {}, use_reentrant=True)", "TypeError", BUILDS_A_CLASS),
    ("checkpoint(np.ndarray, (16,), 'u1', b, -32, use_reentrant=False)", "TypeError", RAW_MEMORY),
    ("checkpoint(np.ndarray, (16,), 'u1', buffer=b, use_reentrant=False)", "TypeError", "'buffer=' is not available"),
    ("checkpoint(enum.Enum, 'E', [('__array_interface__', 1)], use_reentrant=False)", "TypeError",
     "enum classes are made with `class`"),
    ("checkpoint(type(enum.Enum), 'E', (), {}, use_reentrant=False)", "TypeError",
     "cannot create classes with 'EnumType'"),
    ("checkpoint(type[int], 'X', (object,), {}, use_reentrant=False)", "TypeError", BUILDS_A_CLASS),
    ("checkpoint(typing.Type[int], 'X', (object,), {}, use_reentrant=False)", "TypeError", BUILDS_A_CLASS),
    ("checkpoint(typing.get_origin(typing.Type[int]), 'X', (), {}, use_reentrant=False)", "TypeError",
     BUILDS_A_CLASS),
    ("checkpoint(np.ndarray[int], (1,), 'O', b, use_reentrant=False)", "TypeError", RAW_MEMORY),
    ("checkpoint(staticmethod(type), 'X', (), {}, use_reentrant=False)", "TypeError", BUILDS_A_CLASS),
    ("checkpoint(type(iter([])), iter([1]), None, use_reentrant=False)", "TypeError", "cannot create 'Counted'"),
    ("checkpoint(type(torch), 'm', (), None, None, use_reentrant=False)", "TypeError",
     "cannot create 'ModuleProxy' objects"),
    ("checkpoint(type(print), None, {}, use_reentrant=False)", "TypeError", "cannot create 'function' objects"),
    ("checkpoint(type(nn.Linear(1, 1).forward), print, 1, use_reentrant=False)", "TypeError",
     "cannot create 'method' objects"),
    ("checkpoint(type(np.dtype('f4')), 'O', use_reentrant=False)", "TypeError", "only the no-argument instantiation"),
    ("torch.no_grad()(type)('X', (object,), {})", "TypeError", BUILDS_A_CLASS),
    ("torch.enable_grad()(type)('X', (object,), {})", "TypeError", BUILDS_A_CLASS),
    ("torch.inference_mode()(np.ndarray)((1,), 'O', b)", "TypeError", RAW_MEMORY),
    ("torch.autocast('cpu')(Node)()", "TypeError", NODE),
    # custom autograd Functions whose methods are classes
    ("class F(torch.autograd.Function):\n    forward = staticmethod(np.ndarray)\nF.apply((1,), 'O', b)", "TypeError",
     RAW_MEMORY),
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x * 2\n"
     "    backward = staticmethod(Node)\nF.apply(t).sum().backward()", "TypeError", NODE),
    ("class F(torch.autograd.Function):\n    pass\nF.forward = type\nF.apply('X', (object,), {})", "TypeError",
     BUILDS_A_CLASS),
    # where a class reaches user code from: every way gives the stand-in
    ("T = y.grad_fn.__class__\nnn.Linear(1, 1).apply(T)", "TypeError", NODE),
    ("from numpy import ndarray\ncheckpoint(ndarray, (1,), 'O', b, use_reentrant=False)", "TypeError", RAW_MEMORY),
    ("for T in [type(y.grad_fn)]:\n    nn.Linear(1, 1).apply(T)", "TypeError", NODE),
    ("T, = (type(y.grad_fn),)\nnn.Linear(1, 1).apply(T)", "TypeError", NODE),
    ("d = {'k': type}\ncheckpoint(d['k'], 'X', (), {}, use_reentrant=False)", "TypeError", BUILDS_A_CLASS),
    ("checkpoint(*[type, 'X', (), {}], use_reentrant=False)", "TypeError", BUILDS_A_CLASS),
    ("checkpoint(type, **{'use_reentrant': False})", "TypeError", BUILDS_A_CLASS),
    ("class Base(enum.Enum):\n    pass\ncheckpoint(Base, 'X', 'A B', use_reentrant=False)", "TypeError",
     "enum classes are made with `class`"),
    ("checkpoint(type(type(a)), 'X', (), {}, use_reentrant=False)", "TypeError", BUILDS_A_CLASS),
    ("checkpoint(type(collections.abc.Sequence), 'X', (), {}, use_reentrant=False)", "TypeError",
     "cannot create classes with 'ABCMeta'"),
    ("import operator\ncheckpoint(type(operator.attrgetter('x')), '__globals__', use_reentrant=False)(f)",
     "AttributeError", "'__globals__'"),
))
def test_callables_the_engine_calls_are_checked_whoever_calls_them(source, error_type, fragment):
    attempt(source, error_type, fragment)


# ----------------------------------------------------------------------------- torch.load of hand-made pickles

MAGIC = "tensorscope-save-1"


def _saved(tree: object, blobs: object) -> bytes:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # the deep tree below
    try:
        return pickle.dumps((MAGIC, tree, blobs), protocol=4)
    finally:
        sys.setrecursionlimit(limit)


def _tensor(index: int = 0, offset: int = 0, shape: object = (4,), stride: object = (1,), dtype: str = "float64",
            *flags: object) -> tuple:
    return ("tensor", index, offset, list(shape), list(stride), dtype, *(flags or (False, False)))


_F8 = {0: ("<f8", b"\x00" * 32)}
_LOOP: list = []
_CYCLE = ("list", _LOOP)
_LOOP.append(_CYCLE)  # a list that holds the entry that holds it
_DEEP: tuple = ("value", 1)
for _ in range(600):
    _DEEP = ("list", [_DEEP])

PICKLES = [
    ("GLOBAL os.system", b"cos\nsystem\n(S'id'\ntR.", "refusing to load os.system"),
    ("STACK_GLOBAL", b"\x80\x04\x8c\x02os\x8c\x06system\x93\x8c\x02id\x85R.", "refusing to load os.system"),
    ("INST", b"(S'id'\nios\nsystem\n.", "refusing to load os.system"),
    ("OBJ", b"(cbuiltins\neval\nS'1'\no.", "refusing to load builtins.eval"),
    ("NEWOBJ of a class", b"\x80\x02cbuiltins\nobject\n)\x81.", "refusing to load builtins.object"),
    ("find_class of the engine", b"\x80\x02cengine.storage\nStorage\n.", "refusing to load engine.storage.Storage"),
    ("find_class of the sandbox", b"\x80\x02ctensorscope.interpreter\nInterpreter\n.", "refusing to load"),
    ("EXT1", b"\x80\x02\x82\x01.", "unregistered extension code 1"),
    ("EXT2", b"\x80\x02\x83\x01\x00.", "unregistered extension code 1"),
    ("EXT4", b"\x80\x02\x84\x01\x00\x00\x00.", "unregistered extension code 1"),
    ("PERSID", b"Pstorage\n.", "persistent"),
    ("BINPERSID", b"\x80\x02X\x03\x00\x00\x00fooQ.", "persistent"),
    ("REDUCE of no callable", b"(S'x'\nt)R.", "not callable"),
    ("BUILD on a dict", b"}(S'__class__'\nS'x'\ndb.", "torch.load: not a file saved by torch.save"),
    ("BUILD on a list", b"]}b.", "torch.load: not a file saved by torch.save"),
    ("unhashable key", b"}]K\x01s.", "unhashable type"),
    ("memo miss", b"\x80\x02h\x05.", "Memo value not found"),
    ("unbalanced MARK", b"\x80\x04" + b"(" * 100_000 + b".", "unexpected MARK found"),
    ("huge BINBYTES8", b"\x80\x04\x8e" + (2**62).to_bytes(8, "little") + b".", "torch.load: not a file saved"),
    ("huge BINUNICODE8", b"\x80\x04\x8d" + (2**40).to_bytes(8, "little") + b".", "torch.load: not a file saved"),
    ("huge LONG4", b"\x80\x02\x8b\xff\xff\xff\x7f\x00.", "pickle data was truncated"),
    ("huge FRAME", b"\x80\x04\x95" + (2**60).to_bytes(8, "little") + b"N.", "torch.load: not a file saved"),
    ("empty", b"", "Ran out of input"),
    ("text", b"hello world", "torch.load: not a file saved"),
    ("a number", pickle.dumps(7), "it does not start as one does"),
    ("another magic", pickle.dumps(("x", ("value", 1), {})), "it does not start as one does"),
    ("an object storage", _saved(_tensor(shape=(1,)), {0: ("|O", b"\x00" * 8)}), "of a dtype the engine does not have"),
    ("a void storage", _saved(_tensor(shape=(1,)), {0: ("|V8", b"\x00" * 8)}), "of a dtype the engine does not have"),
    ("a structured storage", _saved(_tensor(shape=(1,)), {0: ("i4,O", b"\x00" * 16)}), "does not have"),
    ("storage bytes not whole elements", _saved(_tensor(shape=(1,)), {0: ("<f8", b"\x00" * 9)}), "whole number"),
    ("storage of no bytes", _saved(_tensor(shape=(1,)), {0: ("<f8", "text")}), "is malformed"),
    ("storages not a dict", _saved(("value", 1), [("<f8", b"")]), "its storages are malformed"),
    ("dtype of another storage", _saved(_tensor(dtype="int8", shape=(100,)), _F8), "over a storage of another dtype"),
    ("unknown dtype", _saved(_tensor(dtype="object"), _F8), "unknown dtype"),
    ("missing storage", _saved(_tensor(index=5), _F8), "a storage the file does not hold"),
    ("past the storage", _saved(_tensor(shape=(100,)), _F8), "out of bounds for storage of size 32"),
    ("offset past the storage", _saved(_tensor(offset=10**12), _F8), "out of bounds for storage of size 32"),
    ("stride past the storage", _saved(_tensor(shape=(2,), stride=(10**9,)), _F8), "out of bounds"),
    ("negative offset", _saved(_tensor(offset=-64), _F8), "geometry is malformed"),
    ("negative stride", _saved(_tensor(stride=(-1,)), _F8), "geometry is malformed"),
    ("shape a string", _saved(_tensor(shape="abcd"), _F8), "geometry is malformed"),
    ("shape and stride lengths", _saved(_tensor(shape=(2, 2), stride=(1,)), _F8), "geometry is malformed"),
    ("flags not bools", _saved(_tensor(0, 0, (4,), (1,), "float64", "yes", False), _F8), "geometry is malformed"),
    ("a tensor of too few fields", _saved(("tensor", 0, 0), _F8), "a tensor entry is malformed"),
    ("an unknown kind", _saved(("bogus", 1), {}), "an entry of kind 'bogus' is malformed"),
    ("a value that is a list", _saved(("value", [1]), {}), "an entry of kind 'value' is malformed"),
    ("a dict of no pairs", _saved(("dict", [1, 2]), {}), "a dict entry is not a pair"),
    ("a dict with a list key", _saved(("dict", [(("list", []), ("value", 1))]), {}), "unhashable type"),
    ("a cycle", _saved(_CYCLE, {}), "nested more than 500 levels deep"),
    ("600 levels deep", _saved(_DEEP, {}), "nested more than 500 levels deep"),
]


@pytest.mark.parametrize(("payload", "fragment"), [pytest.param(p, f, id=name) for name, p, f in PICKLES])
def test_torch_load_of_a_pickle_made_by_hand_is_refused(payload: bytes, fragment: str) -> None:
    attempt(f"torch.load(io.BytesIO({payload!r}))", "RuntimeError", fragment)


@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    ("torch.save(t, 'x.pt')", "RuntimeError", "never files"),
    ("torch.load('/etc/passwd')", "RuntimeError", "never files"),
    ("torch.save(t, b'x.pt')", "RuntimeError", "never files"),
    ("torch.save(Plain(), io.BytesIO())", "TypeError", "cannot save an object of type Plain"),
    ("torch.save(f, io.BytesIO())", "TypeError", "cannot save an object of type UserFunction"),
    ("torch.save(y.grad_fn, io.BytesIO())", "TypeError", "cannot save an object of type SumBackward0"),
    ("torch.save(np.ndarray, io.BytesIO())", "TypeError", "cannot save"),
    ("l = []\nl.append(l)\ntorch.save(l, io.BytesIO())", "RecursionError", "maximum recursion depth"),
    ("class R:\n    def read(self):\n        return 'not bytes'\ntorch.load(R())", "RuntimeError", "not a file saved"),
    ("class R:\n    read = type\ntorch.load(R())", "TypeError", BUILDS_A_CLASS),
    ("class W:\n    write = Node\ntorch.save(t, W())", "TypeError", NODE),
    ("torch.load(io.BytesIO(), pickle_module=Plain)", "RuntimeError", "Ran out of input"),
))
def test_saving_and_loading_reach_no_file_and_no_class(source, error_type, fragment):
    attempt(source, error_type, fragment)


def test_a_file_torch_save_wrote_still_loads_with_its_sharing() -> None:
    session = Session()
    session.ok(SETUP + PRELUDE)
    assert session.ok("base = torch.arange(6.)\nf2 = io.BytesIO()\ntorch.save({'b': base, 'v': base[2:]}, f2)\n"
                      "_ = f2.seek(0)\nback = torch.load(f2)\nback['v'][0] = 9.\nprint(back['b'].tolist())") \
        == "[0.0, 1.0, 9.0, 3.0, 4.0, 5.0]"


# ----------------------------------------------------------------------------- copies, Functions, data, dtypes, paddle

@pytest.mark.parametrize(("source", "error_type", "fragment"), cases(
    # copying engine objects
    ("copy.deepcopy(y.grad_fn)", "TypeError", "cannot pickle 'SumBackward0' object"),
    ("copy.copy(y.grad_fn)", "TypeError", "cannot pickle 'SumBackward0' object"),
    ("copy.deepcopy(t.untyped_storage())", "TypeError", "cannot pickle 'UntypedStorage' object"),
    ("copy.deepcopy(torch)", "TypeError", "cannot pickle 'ModuleProxy' object"),
    ("copy.deepcopy(iter([1]))", "TypeError", "cannot pickle 'Counted' object"),
    ("copy.deepcopy(g)", "TypeError", "cannot pickle 'generator' object"),
    ("copy.deepcopy([y.grad_fn])", "TypeError", "cannot pickle 'SumBackward0' object"),
    ("opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)\nsd = opt.state_dict()\n"
     "sd['param_groups'][0]['x'] = y.grad_fn\nopt.load_state_dict(sd)", "TypeError",
     "cannot pickle 'SumBackward0' object"),
    ("opt = torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)\nsd = opt.state_dict()\n"
     "sd['param_groups'][0]['x'] = g\nopt.load_state_dict(sd)", "TypeError", "cannot pickle 'generator' object"),
    ("m = nn.Linear(2, 2)\nm.forward = np.ndarray\ncopy.deepcopy(m)((1,), 'O', b)", "TypeError", RAW_MEMORY),
    ("m = nn.Linear(2, 2)\nm.register_forward_hook(Node)\ncopy.deepcopy(m)(torch.ones(2))", "TypeError", NODE),
    ("copy.deepcopy(np.ndarray)((1,), 'O', b)", "TypeError", RAW_MEMORY),
    ("copy.copy(type)('X', (), {})", "TypeError", BUILDS_A_CLASS),
    ("m = nn.Linear(2, 2)\nm.__reduce_ex__(4)", "AttributeError", "'__reduce_ex__'"),
    ("nn.Linear(2, 2).__getstate__()", "AttributeError", "'__getstate__'"),
    ("nn.Linear(2, 2).__setstate__({})", "AttributeError", "'__setstate__'"),
    # custom autograd Functions and their ctx
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return ctx.__dict__\n"
     "F.apply(t)", "AttributeError", "'__dict__'"),
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return ctx._saved\n"
     "F.apply(t)", "AttributeError", "'_saved'"),
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
     "        ctx.__class__ = Plain\n        return x\nF.apply(t)", "AttributeError", "'__class__'"),
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
     "        return type(ctx)(None, (), ())\nF.apply(t)", "TypeError", "__init__() takes 1 positional"),
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x * 2\n"
     "    @staticmethod\n    def backward(ctx, g):\n        return ctx._backward\nF.apply(t).sum().backward()",
     "AttributeError", "'_backward'"),
    ("class F(torch.autograd.Function):\n    def __init_subclass__(cls):\n        pass", "TypeError",
     "may not define __init_subclass__"),
    ("torch.autograd.Function.apply = f", "AttributeError", "cannot set attributes of the class 'Function'"),
    # data loading pieces
    ("TensorDataset(t).tensors[0]._storage", "AttributeError", "'_storage'"),
    ("class D(Dataset):\n    def __getitems__(self, i):\n        return i", "TypeError", "may not define __getitems__"),
    ("class D(Dataset):\n    def __len__(self):\n        return 2\n    def __getitem__(self, i):\n        return f.__code__"
     "\nlist(DataLoader(D()))", "AttributeError", "'__code__'"),
    ("list(DataLoader(range(10**7), batch_size=1))", "RuntimeError", "statement exceeded 1000000 steps"),
    ("dl = DataLoader([1])\ndl._index_sampler", "AttributeError", "'_index_sampler'"),
    ("dl = DataLoader([1])\ndl.sampler.__class__.__iter__", "AttributeError", "'__iter__'"),
    # dtypes through ml_dtypes and numpy
    ("np.dtype('bfloat16')", "TypeError", "object, void and structured dtypes"),
    ("torch.ones(2, dtype=torch.bfloat16).numpy()", "TypeError", "numpy object, void and structured arrays"),
    ("np.asarray(torch.ones(2, dtype=torch.bfloat16))", "TypeError", "numpy object, void and structured arrays"),
    ("np.zeros(2, dtype=type(np.dtype('f4')))", "TypeError", "object, void and structured dtypes"),
    ("np.zeros(2).view(np.ndarray[int])", "TypeError", "Cannot interpret 'numpy.ndarray[int]' as a data type"),
    ("type(np.dtype('f4'))('O')", "TypeError", "only the no-argument instantiation"),
    ("t.apply_(print)", "AttributeError", "'Tensor' object has no attribute 'apply_'"),
    ("t.map_(t, print)", "AttributeError", "'Tensor' object has no attribute 'map_'"),
    ("t.map2_(t, t, print)", "AttributeError", "'Tensor' object has no attribute 'map2_'"),
    # the Paddle dialect's new modules
    ("import paddle\npaddle.no_grad()(type)('X', (object,), {})", "TypeError", BUILDS_A_CLASS),
    ("import paddle\nclass L(paddle.nn.Layer):\n    forward = staticmethod(np.ndarray)\nL()((1,), 'O', b)", "TypeError",
     RAW_MEMORY),
    ("import paddle\nw = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(Plain()))\n"
     "paddle.nn.Linear(2, 2, weight_attr=w)", "TypeError", "not 'Plain'"),
    ("import paddle\npaddle.ParamAttr(initializer=type)", "TypeError", "The type of 'initializer' in ParamAttr"),
    ("import paddle\nd = paddle.utils.dlpack.to_dlpack(paddle.ones([2]))\ntype(d)(t)", "TypeError",
     "cannot create 'Capsule' objects"),
    ("import paddle\npaddle.utils.dlpack.from_dlpack(Plain())", "TypeError", "from_dlpack"),
    ("import paddle\npaddle.ones([2])._grad_ivar.__self__", "AttributeError", "'__self__'"),
    ("import paddle\npaddle.ones([2])._t", "AttributeError", "'_t'"),
    ("import paddle\npaddle.tensor.__dict__", "AttributeError", "private name of a module"),
    ("import paddle.tensor\npaddle.tensor.os", "AttributeError", "module 'paddle.tensor' has no attribute 'os'"),
    ("import paddle\npaddle.save", "AttributeError", "module 'paddle' has no attribute 'save'"),
    ("import paddle\npaddle.load", "AttributeError", "module 'paddle' has no attribute 'load'"),
    ("import paddle\npaddle.utils.cpp_extension", "AttributeError", "module 'paddle.utils' has no attribute"),
    # threads and processes: there is nothing to start them with
    ("import threading", "ModuleNotFoundError", "No module named 'threading'"),
    ("import concurrent.futures", "ModuleNotFoundError", "No module named 'concurrent.futures'"),
    ("import asyncio", "ModuleNotFoundError", "No module named 'asyncio'"),
    ("import signal", "ModuleNotFoundError", "No module named 'signal'"),
    ("import _thread", "ModuleNotFoundError", "No module named '_thread'"),
))
def test_engine_objects_granted_since_the_last_audit_lead_nowhere(source, error_type, fragment):
    attempt(source, error_type, fragment)


# ----------------------------------------------------------------------------- stand-ins keep ordinary code working

def test_classes_behave_as_themselves_in_ordinary_code() -> None:
    session = Session()
    session.ok(SETUP + PRELUDE)
    program = textwrap.dedent("""\
        T = type(a)
        print(T, T is np.ndarray, a.__class__ is T, type(type(a)) is type, isinstance(a, np.ndarray | int))
        print(issubclass(T, object), issubclass(np.ndarray, T), type(a).__name__, {T: 1}[np.ndarray])
        print(a.view(np.ndarray).tolist(), np.ndarray[int], isinstance(T, type), type(y.grad_fn).__name__)
        class Base(enum.Enum):
            def shout(self):
                return self.name.upper()
        class Color(Base):
            red = 1
        print(Color.red.shout(), isinstance(Color.red, Base), list(Base), Color['red'], type(Base).__name__)
        print(isinstance(y.grad_fn, type(y.grad_fn)), type(f).__name__, isinstance(f, type(f)))
        from numpy import ndarray
        print(ndarray is np.ndarray, [k is T for k in [T]], typing.Optional[np.ndarray])
    """)
    assert session.ok(program) == textwrap.dedent("""\
        <class 'numpy.ndarray'> True True True True
        True True ndarray 1
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] numpy.ndarray[int] True SumBackward0
        RED True [] Color.red EnumType
        True UserFunction True
        True [True] typing.Optional[numpy.ndarray]""")


def test_engine_callbacks_given_user_code_still_run() -> None:
    session = Session()
    session.ok(SETUP + PRELUDE)
    program = textwrap.dedent("""\
        seen = []
        m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        _ = m.apply(lambda mod: seen.append(type(mod).__name__))
        h = m[0].register_forward_hook(lambda mod, inp, out: seen.append('hook'))
        _ = m(torch.ones(2))
        opt = torch.optim.SGD(m.parameters(), lr=1.0)
        s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)
        opt.step()
        s.step()
        batches = list(DataLoader([1, 2, 3], batch_size=2, collate_fn=lambda b: sum(b)))
        out = checkpoint(lambda v: (v * 3).sum(), t, use_reentrant=False)
        print(seen, opt.param_groups[0]['lr'], batches, out.item())
    """)
    assert session.ok(program) == "['Linear', 'ReLU', 'Sequential', 'hook'] 0.5 [3, 3] 6.0"


# ----------------------------------------------------------------------------- the front ends

ESCAPE = "checkpoint(type, 'X', (object,), {}, use_reentrant=False)"


def _tensorscope(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TENSORSCOPE_CANARY": CANARY}
    return subprocess.run([sys.executable, "-m", "tensorscope", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_replay_of_a_script_refuses_in_one_line(tmp_path: Path) -> None:
    script = tmp_path / "attack.py"
    script.write_text("import torch\nfrom torch.utils.checkpoint import checkpoint\n" + ESCAPE + "\nprint('still here')\n")
    run = _tensorscope("replay", "--json", str(script), cwd=tmp_path)
    steps = [json.loads(line) for line in run.stdout.splitlines()]
    assert steps[2]["error"]["type"] == "TypeError" and BUILDS_A_CLASS in steps[2]["error"]["message"]
    assert steps[3]["output"] == "still here"
    assert CANARY not in run.stdout + run.stderr and "Traceback" not in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["attack.py"]


def test_check_and_replay_of_a_scenario_refuse_in_one_line(tmp_path: Path) -> None:
    scenario = tmp_path / "attack.yaml"
    scenario.write_text(textwrap.dedent(f"""\
        title: An attack
        summary: A class made by the engine's checkpoint.
        setup: |
          import torch
          from torch.utils.checkpoint import checkpoint
        steps:
          - code: "{ESCAPE}"
            expect:
              error: {{type: TypeError, contains: "type() takes 1 argument"}}
          - code: print('after')
    """))
    run = _tensorscope("replay", str(scenario), cwd=tmp_path)
    assert BUILDS_A_CLASS in run.stdout and "after" in run.stdout
    checked = _tensorscope("check", str(scenario), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tagged = tmp_path / "tagged.yaml"
    tagged.write_text("title: !!python/object/apply:os.system ['echo owned > owned']\nsummary: s\n"
                      "steps:\n  - code: x = 1\n")
    refusal = _tensorscope("check", str(tagged), cwd=tmp_path)
    assert refusal.returncode != 0 and "tagged.yaml:1:" in refusal.stdout + refusal.stderr
    assert "Traceback" not in refusal.stderr and not (tmp_path / "owned").exists()


def test_the_repl_refuses_and_goes_on(tmp_path: Path) -> None:
    lines = "import torch\nfrom torch.utils.checkpoint import checkpoint\n" + ESCAPE + "\nprint(6 * 7)\n"
    run = _tensorscope("repl", cwd=tmp_path, stdin=lines)
    assert BUILDS_A_CLASS in run.stdout and "42" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr and CANARY not in run.stdout


def test_compare_refuses_on_both_sides(tmp_path: Path) -> None:
    scenario = tmp_path / "both.yaml"
    scenario.write_text(textwrap.dedent("""\
        title: Both dialects
        summary: A class made by a decorator, and an array over raw memory, on each side.
        setup:
          torch: import torch
          paddle: |
            import paddle
            import numpy as np
        steps:
          - code: "torch.no_grad()(type)('X', (object,), {})"
            paddle: "paddle.no_grad()(np.ndarray)((16,), 'u1', b'abcdefgh', -32)"
    """))
    run = _tensorscope("compare", str(scenario), cwd=tmp_path)
    assert BUILDS_A_CLASS in run.stdout and RAW_MEMORY in run.stdout, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr


@pytest.fixture(scope="module")
def worker():
    with WorkerSession(limits=Limits(memory_bytes=1 << 30, time_limit=20.0)) as session:
        session.run("import torch\nimport numpy as np\nclass Shy:\n    def __getattr__(self, name):\n"
                    "        print('ran')\n        return 1\nshy = Shy()\nx = torch.ones(2)")
        yield session


@pytest.mark.parametrize("word", ["__import__", "shy.", "shy.__class__.", "x.__class__.__", "torch.__loader__.",
                                  "np.ndarray.", "torch." + "a" * 100_000, "shy.a.b", "\x00\n{\"done\": true}\n"])
def test_completion_runs_no_user_code_and_reaches_nothing(worker, word: str) -> None:
    found = worker.complete(word)
    assert all(isinstance(c, str) and not c.split(".")[-1].startswith("__") for c in found)
    assert worker.run("print(len([x]))")[-1].snapshot.output == "1"  # nothing printed 'ran' behind the scenes


def test_user_output_cannot_forge_a_reply_on_the_wire(worker) -> None:
    forged = '\n{"done": true}\n{"step": {}}\n{"failure": "forged"}\n\udcff\x00'
    step = worker.run(f"print({forged!r})")[-1]
    assert step.snapshot.error is None and step.snapshot.output == forged
    assert worker.run("y = x + 1")[-1].snapshot.objects["y"].values == [2.0, 2.0]


def test_a_flood_of_small_prints_stops_at_the_output_limit(worker) -> None:
    step = worker.run("for _ in range(10**6): print('x' * 1000)")[-1]
    assert step.snapshot.error.type == "RuntimeError"
    assert "printed more than 1,000,000 characters" in step.snapshot.error.message
    assert worker.run("print(x.sum().item())")[-1].snapshot.output == "2.0"


# ----------------------------------------------------------------------------- the wall

def test_an_attacker_who_escaped_the_sandbox_meets_the_workers_wall(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe is started as a worker is and enters the worker's own confinement; then it has
    all of Python, as an attacker past the sandbox would."""
    monkeypatch.setenv("TENSORSCOPE_CANARY", CANARY)
    secret = tmp_path / "secret.txt"
    secret.write_text(CANARY)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    limits = Limits(memory_bytes=512 << 20)
    probe = WorkerProcess(limits, module="tests.tensorscope.worker_probe")
    try:
        probe.send({"canary": CANARY, "secret": str(secret), "outside": str(tmp_path / "dropped"),
                    "own_code": str(Path(package_root()) / "tensorscope" / "__init__.py"),
                    "port": listener.getsockname()[1]})
        found = probe.receive(time.monotonic() + 120)
        folder = Path(probe.folder)
    finally:
        probe.close()
        listener.close()
    assert found["limits"] == {"AS": [512 << 20] * 2, "CPU": [3600] * 2, "NOFILE": [64] * 2, "CORE": [0, 0]}
    assert (found["cwd"], found["cwd_entries"], found["cwd_mode"]) == (str(folder.resolve()), [], "0o700")
    assert set(found["environment"]) <= set(environment(str(folder))) and not found["canary_seen"]
    assert (found["allocate_past_limit"], found["open_many_files"]) == ("MemoryError", "EMFILE")
    assert not folder.exists() and not (tmp_path / "dropped").exists()
    if found["isolation"]["network_isolated"]:
        assert found["connect"] != "ok" and found["resolve"] != "ok"
    if found["isolation"]["files_isolated"]:
        assert found["read_own_code"] == "ok"
        denied = {key: found[key] for key in ("read_secret", "read_parent_environ", "write_cwd", "write_outside",
                                              "execute")}
        assert set(denied.values()) == {"EACCES"}, denied
        if landlock_abi() >= 6:
            assert found["signal_parent"] == "EPERM"
    if os.getuid() != 0:  # the kernel does not hold root to RLIMIT_NPROC
        assert (found["fork"], found["thread"]) == ("EAGAIN", "RuntimeError")


def test_the_worker_dies_with_its_front_end_and_its_folder_is_swept(tmp_path: Path) -> None:
    front_end = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""\
        import sys, time
        from tensorscope.worker.client import WorkerSession
        session = WorkerSession()
        session.run("x = 1")
        print(session.isolation["pid"], session._worker.folder, flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        pid, folder = front_end.stdout.readline().split()
        assert Path(folder).is_dir()
    finally:
        front_end.kill()
        front_end.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()
    sweep_orphans(str(Path(folder).parent))
    assert not Path(folder).exists()


# ----------------------------------------------------------------------------- floods the front end must survive

def test_a_snapshot_too_large_for_the_wire_stops_in_one_line_and_the_session_goes_on(worker) -> None:
    names = "=".join(f"n{i}" for i in range(7000))
    step = worker.run(f"{names} = torch.arange(1000.)")[-1]
    assert step.stopped and step.snapshot.error.type == "MemoryError"
    assert step.snapshot.error.message.startswith("its snapshot is past the 64.0 MiB limit of a front end: `n0=")
    assert "n0" not in worker.run("y = x + 1")[-1].snapshot.objects


def test_a_session_printing_without_end_stops_at_its_output_budget() -> None:
    session = Session()
    for _ in range(50):
        session.ok("print('x' * 999_999)")
    error = session.error("print('x' * 999_999)")
    assert (error.type, error.message) == ("RuntimeError", "the session printed more than 50,000,000 characters "
                                                           "(every step's output is kept; start a new session)")


def test_a_loop_that_warns_at_every_turn_keeps_each_warning_once(torch_session) -> None:
    outcome = torch_session.outcomes("x = torch.ones(2, requires_grad=True) * 2\nfor _ in range(10**4): g = x.grad\n"
                                     "for i in range(300): torch.utils.checkpoint.checkpoint(lambda v: v * i, x)")
    assert len(outcome[1].warnings) == 1 and outcome[1].warnings[0].startswith("UserWarning: The .grad attribute")
    assert len(outcome[2].warnings) == 1
