"""Random programs over views, in-place ops and autograd, the tool's own subject.

A program is a list of statements, each tagged with the kind of template it came from (the kind
names a failure when the engine and torch disagree). Statements are drawn one at a time and run in
real torch as they are drawn, so the next one can pick names by what they hold: a shape a view can
take, a tensor that requires grad, a loss to call backward on. A statement torch rejects is kept
now and then (the error is behaviour to compare too), otherwise redrawn.

    program = generate(seed=7, torch=torch)
    print(program.source())
"""

from __future__ import annotations

import contextlib
import io
import math
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# torch's initial seed in a fresh process: the engine's Session starts from it too.
DEFAULT_SEED = 67280421310721
# Programs from this seed on also draw the wider templates (other dtypes, more in-place ops, views
# and autograd calls); programs below it are drawn exactly as before they existed.
WIDER_FROM = 46000
NAMES = ("a", "b", "c", "d", "e", "f", "g", "h")
KEEP_ERROR = 0.25  # how often a statement torch rejects stays in the program


def torch_is_dense(t: Any) -> bool:
    """torch's is_non_overlapping_and_dense (the layouts its overlap checks can judge): contiguous
    (any empty tensor is), or a permutation of a contiguous layout, size-1 dims aside."""
    shape, stride = tuple(t.shape), tuple(t.stride())
    if 0 in shape or t.is_contiguous():
        return True
    expected = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: stride[d]):
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


def _undecidable_alias(a: Any, b: Any) -> bool:
    """Two tensors over the same memory where torch's overlap check gives up (a layout that is not
    non-overlapping and dense)."""
    return _shares_memory(a, b) and not (torch_is_dense(a) and torch_is_dense(b))


def _overlaps_itself_undecidably(t: Any) -> bool:
    """Elements of t that share memory without a stride-0 dim (unfold's windows, as_strided): torch's
    internal-overlap check cannot tell, so it writes them one after another and the result is its
    kernel's order (a stride-0 dim it refuses, which is well defined)."""
    shape, stride = tuple(t.shape), tuple(t.stride())
    if any(n > 1 and st == 0 for n, st in zip(shape, stride)) or 0 in shape:
        return False
    positions = {0}
    for n, st in zip(shape, stride):
        positions = {p + i * st for p in positions for i in range(n)}
    return len(positions) != math.prod(shape)


def _shares_memory(a: Any, b: Any) -> bool:
    sa, sb = a.untyped_storage(), b.untyped_storage()
    return sa.nbytes() > 0 and sa.data_ptr() == sb.data_ptr()


@dataclass(frozen=True)
class Statement:
    kind: str  # the template it came from: "view.narrow", "inplace.add_", "autograd.backward", ...
    source: str


@dataclass
class Program:
    seed: int
    statements: list[Statement] = field(default_factory=list)

    def source(self) -> str:
        return "\n".join(s.source for s in self.statements) + "\n"


def generate(seed: int, torch: Any, length: int | None = None) -> Program:
    """A program of `length` statements (10 to 22 when not given), drawn from `seed`."""
    return _Generator(seed, torch).program(length)


class _Generator:
    def __init__(self, seed: int, torch: Any) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.torch = torch
        torch.manual_seed(DEFAULT_SEED)
        self.ns: dict[str, Any] = {"torch": torch, "F": torch.nn.functional}
        self.templates: list[tuple[float, str, Callable[[], str | None]]] = [
            (1.5, "create", self.create), (2.0, "compute", self.compute), (4.0, "view", self.view),
            (4.0, "inplace", self.inplace), (1.5, "setitem", self.setitem), (1.0, "augassign", self.augassign),
            (1.0, "out", self.out), (3.0, "autograd", self.autograd), (1.5, "inspect", self.inspect),
        ]
        if seed >= WIDER_FROM:
            self.templates += [(1.0, "dtype", self.dtype_ops), (2.0, "inplace", self.inplace_more),
                               (1.5, "view", self.view_more), (1.5, "autograd", self.autograd_more)]

    # ------------------------------------------------------------------ driving
    def program(self, length: int | None) -> Program:
        program = Program(self.seed)
        length = length or self.rng.randint(10, 22)
        for _ in range(2):
            self._add(program, "create", self.create, force=True)
        attempts = 0
        while len(program.statements) < length and attempts < length * 20:
            attempts += 1
            weights = [w for w, _, _ in self.templates]
            _, family, template = self.rng.choices(self.templates, weights)[0]
            self._add(program, family, template)
        return program

    def _add(self, program: Program, family: str, template: Callable[[], str | None], force: bool = False) -> None:
        self.kind = family
        source = template()
        if source is None:
            return
        ok = self._run(source)
        if ok or force or self.rng.random() < KEEP_ERROR:
            program.statements.append(Statement(self.kind, source))

    def _run(self, source: str) -> bool:
        """Run in torch to learn what the names now hold; False when torch raised."""
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            try:
                exec(compile(source, "<fuzz>", "exec"), self.ns)  # noqa: S102 - our own generated test code
            except Exception:  # noqa: BLE001 - a rejected statement is part of the exploration
                return False
        return True

    # ------------------------------------------------------------------ picking
    def tensors(self, pred: Callable[[Any], bool] = lambda t: True) -> list[str]:
        out = []
        for name in NAMES:
            t = self.ns.get(name)
            if isinstance(t, self.torch.Tensor):
                try:
                    if pred(t):
                        out.append(name)
                except RuntimeError:
                    continue
        return out

    def pick(self, pred: Callable[[Any], bool] = lambda t: True) -> str | None:
        names = self.tensors(pred)
        return self.rng.choice(names) if names else None

    def target(self) -> str:
        """A name to bind: a fresh one while there are, else any (rebinding drops the old tensor)."""
        free = [n for n in NAMES if n not in self.ns]
        if free and self.rng.random() < 0.75:
            return free[0]
        return self.rng.choice(NAMES)

    def floating(self, t: Any) -> bool:
        return t.dtype.is_floating_point

    def choose(self, *options: Any) -> Any:
        return self.rng.choice(options)

    def shape(self, numel: int | None = None) -> tuple[int, ...]:
        ndim = self.rng.choice((1, 2, 2, 3))
        dims = [self.rng.randint(1, 4) for _ in range(ndim)]
        if numel is not None:
            return self.factor(numel)
        return tuple(dims)

    def factor(self, numel: int) -> tuple[int, ...]:
        """A random shape with `numel` elements."""
        if numel <= 0:
            return self.rng.choice(((0,), (0, 2), (2, 0)))
        dims = []
        rest = numel
        for _ in range(self.rng.randint(0, 2)):
            divisors = [d for d in range(1, rest + 1) if rest % d == 0]
            d = self.rng.choice(divisors)
            dims.append(d)
            rest //= d
        dims.append(rest)
        self.rng.shuffle(dims)
        return tuple(dims)

    def dim(self, t: Any) -> int:
        return self.rng.randrange(-t.ndim, t.ndim) if t.ndim else 0

    def scalar(self) -> str:
        return self.choose("2", "0.5", "-1", "3.0", "1")

    def other(self, t: Any, name: str, writing: bool = False, resized: Any = None) -> str:
        """An operand for an op on t: a broadcastable tensor name or a Python scalar. An op `writing`
        into t gets no operand that shares t's memory in a way torch cannot judge (either layout
        overlapping or not dense): torch checks nothing there and the result is its kernel's order.
        Nor does an op into an out= that it `resized` first: torch checks the overlap before the
        resize, and the kernel then reads what it wrote (from WIDER_FROM on: below, programs are
        drawn as they always were)."""
        shapes = self.tensors(lambda u: u.dtype.is_floating_point and _broadcasts(u.shape, t.shape)
                              and not (writing and _undecidable_alias(u, t))
                              and not (resized is not None and _shares_memory(u, resized)))
        if shapes and self.rng.random() < 0.6:
            return self.rng.choice(shapes)
        return self.scalar()

    @staticmethod
    def shape_text(shape: tuple[int, ...]) -> str:
        return ", ".join(str(s) for s in shape)

    # ------------------------------------------------------------------ creation
    def create(self) -> str:
        n = self.target()
        shape = self.shape()
        numel = math.prod(shape)
        s = self.shape_text(shape)
        choice = self.rng.randrange(9)
        self.kind = "create"
        if choice == 0:
            return f"{n} = torch.arange({numel}.).reshape({s})"
        if choice == 1:
            return f"{n} = (torch.arange({numel}.) - {numel // 2}).reshape({s}).requires_grad_()"
        if choice == 2:
            return f"{n} = torch.ones({s}, requires_grad=True)"
        if choice == 3:
            return f"{n} = torch.zeros({s})"
        if choice == 4:
            return f"{n} = torch.arange({numel}).reshape({s})"
        if choice == 5:
            return f"{n} = torch.linspace(-1.5, 2.0, {numel}, dtype=torch.float64).reshape({s})"
        if choice == 6:
            leaf = self.pick(lambda t: t.requires_grad and t.is_leaf)
            if leaf is not None:
                self.kind = "create.nonleaf"
                return f"{n} = {leaf} * 2"
            return f"{n} = torch.full(({s},), 2.0, requires_grad=True)"
        if choice == 7:
            values = [round(self.rng.uniform(-3, 3), 1) for _ in range(self.rng.randint(2, 6))]
            return f"{n} = torch.tensor({values}, requires_grad={self.choose('True', 'False')})"
        return f"{n} = torch.arange({numel}.).reshape({s}).clone()"

    # ------------------------------------------------------------------ out-of-place compute
    def compute(self) -> str | None:
        t = self.pick(self.floating)
        if t is None:
            return None
        x = self.ns[t]
        n = self.target()
        choice = self.rng.randrange(12)
        if choice == 0:
            op = self.choose("exp", "sigmoid", "tanh", "relu", "abs", "neg", "sin", "cos", "square")
            self.kind = f"compute.{op}"
            return f"{n} = {t}.{op}()"
        if choice == 1:
            op = self.choose("+", "-", "*", "/")
            self.kind = f"compute.binary{op}"
            return f"{n} = {t} {op} {self.other(x, t)}"
        if choice == 2:
            self.kind = "compute.clone"
            return f"{n} = {t}.clone()"
        if choice == 3:
            self.kind = "compute.reduce"
            if x.ndim and self.rng.random() < 0.5:
                return f"{n} = {t}.{self.choose('sum', 'mean', 'amax')}({self.dim(x)})"
            return f"{n} = {t}.{self.choose('sum', 'mean', 'max', 'prod')}()"
        if choice == 4:
            self.kind = "compute.pow"
            return f"{n} = {t}.pow({self.choose('2', '3', '0.5')})"
        if choice == 5 and x.ndim == 2:
            self.kind = "compute.matmul"
            return f"{n} = {t} @ {t}.t()" if self.rng.random() < 0.5 else f"{n} = {t}.t() @ {t}"
        if choice == 6 and x.ndim:
            self.kind = "compute.cat"
            return f"{n} = torch.{self.choose('cat', 'stack')}([{t}, {t} * 2], {self.dim(x)})"
        if choice == 7:
            self.kind = "compute.cast"
            return f"{n} = {t}.{self.choose('double()', 'float()', 'to(torch.float64)', 'contiguous()')}"
        if choice == 8:
            self.kind = "compute.where"
            return f"{n} = torch.where({t} > 0, {t}, {self.other(x, t)})"
        if choice == 9 and x.ndim:
            self.kind = "compute.index"
            idx = sorted(self.rng.sample(range(x.shape[0]), min(x.shape[0], 2)))
            return self.choose(f"{n} = {t}[{idx}]", f"{n} = {t}[{t} > 0]",
                               f"{n} = {t}.index_select(0, torch.tensor({idx}))")
        if choice == 10 and x.ndim:
            self.kind = "compute.gather"
            d = self.rng.randrange(x.ndim)
            index_shape = list(x.shape)
            index_shape[d] = self.rng.randint(1, 3)
            return f"{n} = {t}.gather({d}, torch.zeros({self.shape_text(tuple(index_shape))}, dtype=torch.long))"
        self.kind = "compute.masked_fill"
        return f"{n} = {t}.masked_fill({t} < 0, 0.0)"

    # ------------------------------------------------------------------ views
    def view(self) -> str | None:
        t = self.pick()
        if t is None:
            return None
        x = self.ns[t]
        n = self.target()
        nd = x.ndim
        ops: list[tuple[str, str]] = [
            ("view", f"{n} = {t}.view({self.shape_text(self.factor(x.numel()))})" if x.numel() else f"{n} = {t}.view(-1)"),
            ("reshape", f"{n} = {t}.reshape({self.shape_text(self.factor(x.numel()))})" if x.numel() else f"{n} = {t}.reshape(-1)"),
            ("flatten", f"{n} = {t}.flatten()"),
            ("unsqueeze", f"{n} = {t}.unsqueeze({self.rng.randrange(-nd - 1, nd + 1)})"),
            ("squeeze", f"{n} = {t}.squeeze()"),
            ("detach", f"{n} = {t}.detach()"),
            ("data", f"{n} = {t}.data"),
            ("alias", f"{n} = {t}[...]"),
        ]
        if nd >= 1:
            d = self.dim(x)
            size = x.shape[d]
            start = self.rng.randrange(size) if size else 0
            ops += [
                ("narrow", f"{n} = {t}.narrow({d}, {start}, {self.rng.randint(0, size - start)})"),
                ("select", f"{n} = {t}.select({d}, {self.rng.randrange(-size, size) if size else 0})"),
                ("slice", f"{n} = {t}[{self.rng.randint(0, 1)}:{self.choose('', '-1', '2')}]"),
                ("slice_step", f"{n} = {t}[::{self.choose(2, 3)}]"),
                ("index_int", f"{n} = {t}[{self.rng.randrange(-size, size) if size else 0}]"),
                ("unfold", f"{n} = {t}.unfold({d}, {self.rng.randint(1, max(size, 1))}, {self.rng.randint(1, 2)})"),
                ("split", f"{n} = {t}.split({self.rng.randint(1, 2)}, {d})[{self.choose(0, -1)}]"),
                ("chunk", f"{n} = {t}.chunk({self.rng.randint(1, 3)}, {d})[0]"),
                ("unbind", f"{n} = {t}.unbind({d})[{self.rng.randrange(size) if size else 0}]"),
                ("expand", f"{n} = {t}.unsqueeze(0).expand({self.rng.randint(1, 3)}, {self.shape_text(x.shape)})"),
                ("expand_as", f"{n} = {t}.expand_as(torch.empty(2, {self.shape_text(x.shape)}))"),
                ("as_strided", self._as_strided(t, x, n)),
                ("T", f"{n} = {t}.T"),
                ("none_index", f"{n} = {t}[None, ..., {self.choose(0, -1)}]"),
                ("tensor_split", f"{n} = {t}.tensor_split({self.rng.randint(1, 3)}, {d})[0]"),
                ("movedim", f"{n} = {t}.movedim({d}, {self.dim(x)})"),
            ]
        if nd >= 2:
            a, b = self.rng.sample(range(nd), 2)
            perm = list(range(nd))
            self.rng.shuffle(perm)
            ops += [
                ("t", f"{n} = {t}.t()") if nd == 2 else ("transpose", f"{n} = {t}.transpose({a}, {b})"),
                ("transpose", f"{n} = {t}.transpose({a}, {b})"),
                ("permute", f"{n} = {t}.permute({self.shape_text(tuple(perm))})"),
                ("diagonal", f"{n} = {t}.diagonal({self.rng.randint(-1, 1)}, {a}, {b})"),
                ("mT", f"{n} = {t}.mT"),
                ("slice2", f"{n} = {t}[:, {self.rng.randint(0, 1)}:]"),
                ("swapaxes", f"{n} = {t}.swapaxes({a}, {b})"),
            ]
        op, source = self.rng.choice(ops)
        self.kind = f"view.{op}"
        return source

    def _as_strided(self, t: str, x: Any, n: str) -> str:
        storage = x.untyped_storage().nbytes() // max(x.element_size(), 1)
        if storage < 2:
            return f"{n} = {t}.as_strided((1,), (1,))"
        rows = self.rng.randint(1, 2)
        cols = self.rng.randint(1, 2)
        return f"{n} = {t}.as_strided(({rows}, {cols}), ({self.rng.randint(0, 2)}, 1), {self.rng.randint(0, 1)})"

    # ------------------------------------------------------------------ in-place
    def inplace(self) -> str | None:
        t = self.pick()
        if t is None:
            return None
        x = self.ns[t]
        floating = x.dtype.is_floating_point
        choice = self.rng.randrange(16)
        if choice not in (7, 11, 12, 13) and _overlaps_itself_undecidably(x):
            choice = 7  # only a fill writes one value to every element, whatever the order
        if choice < 4:
            op = self.choose("add_", "sub_", "mul_", "div_")
            self.kind = f"inplace.{op}"
            return f"{t}.{op}({self.other(x, t, writing=True)})"
        if choice < 7:
            op = self.choose("exp_", "relu_", "sigmoid_", "tanh_", "neg_", "abs_", "sqrt_", "zero_", "sin_", "square_")
            self.kind = f"inplace.{op}"
            return f"{t}.{op}()"
        if choice == 7:
            self.kind = "inplace.fill_"
            return f"{t}.fill_({self.scalar()})"
        if choice == 8:
            self.kind = "inplace.clamp_"
            return f"{t}.clamp_({self.choose('-1, 1', 'min=0', 'max=2.5')})"
        if choice == 9:
            src = self.pick(lambda u: _broadcasts(u.shape, x.shape) and u.dtype == x.dtype
                            and not _undecidable_alias(u, x))
            self.kind = "inplace.copy_"
            return f"{t}.copy_({src or 'torch.ones(1)'})"
        if choice == 10 and floating:
            self.kind = "inplace.F"
            return self.choose(f"F.relu({t}, inplace=True)", f"F.leaky_relu({t}, {self.choose('0.1', '-0.5', '2.0')}, inplace=True)",
                               f"F.leaky_relu_({t}, {self.choose('0.1', '-0.5')})", f"F.hardtanh({t}, inplace=True)")
        if choice == 11:
            op = self.choose("t_", "transpose_", "squeeze_", "unsqueeze_", "as_strided_", "swapdims_")
            self.kind = f"inplace.{op}"
            return {
                "t_": f"{t}.t_()", "transpose_": f"{t}.transpose_(0, {max(x.ndim - 1, 0)})", "squeeze_": f"{t}.squeeze_()",
                "unsqueeze_": f"{t}.unsqueeze_(0)", "as_strided_": f"{t}.as_strided_((1,), (1,))",
                "swapdims_": f"{t}.swapdims_(0, -1)",
            }[op]
        if choice == 12:
            op = self.choose("detach_", "requires_grad_", "requires_grad_(False)", "retain_grad")
            self.kind = f"inplace.{op.split('(')[0]}"
            return f"{t}.{op}" if "(" in op else f"{t}.{op}()"
        if choice == 13:
            src = self.pick()
            self.kind = "inplace.set_"
            room = x.untyped_storage().nbytes() // x.element_size() - x.storage_offset()  # no garbage shows
            fits = self.pick(lambda u: u.numel() <= room)
            return self.choose(f"{t}.set_({src})", f"{t}.set_()", f"{t}.resize_({self.shape_text(self.factor(max(room, 0)))})",
                               f"{t}.resize_({self.rng.randint(0, max(room, 0))})", f"{t}.resize_as_({fits or t})")
        if choice == 14 and x.ndim:
            self.kind = "inplace.masked"
            return self.choose(f"{t}.masked_fill_({t} > 1, -1.0)", f"{t}.index_fill_(0, torch.tensor([0]), 7.0)",
                               f"{t}.index_add_(0, torch.tensor([0]), {t}[:1])")
        self.kind = "inplace.pow_"
        return f"{t}.pow_({self.choose('2', '0.5')})"

    def setitem(self) -> str | None:
        t = self.pick(lambda t: t.ndim > 0 and not _overlaps_itself_undecidably(t))
        if t is None:
            return None
        x = self.ns[t]
        size = x.shape[0]
        index = self.choose(f"{self.rng.randrange(size) if size else 0}", ":", f"{self.rng.randint(0, 1)}:",
                            f"..., {self.choose(0, -1)}", f"{t} > 0", "[0, -1]", "::2")
        values = [self.scalar()]
        src = self.pick(lambda u: u.dtype == x.dtype)
        if src is not None:
            values += [src, f"{src}.sum()"]
        self.kind = "setitem"
        return f"{t}[{index}] = {self.rng.choice(values)}"

    def augassign(self) -> str | None:
        t = self.pick(lambda t: not _overlaps_itself_undecidably(t))
        if t is None:
            return None
        op = self.choose("+=", "-=", "*=", "/=")
        self.kind = f"augassign{op}"
        return f"{t} {op} {self.other(self.ns[t], t, writing=True)}"

    def out(self) -> str | None:
        a = self.pick(self.floating)
        c = self.pick(lambda t: not _overlaps_itself_undecidably(t))
        if a is None or c is None:
            return None
        x = self.ns[a]
        op = self.rng.randrange(8)
        self.kind = "out"
        if op == 6:  # neg into a view: the view is the out
            c = self.pick(lambda u: u._is_view() and not _overlaps_itself_undecidably(u)) or c
        out = self.ns[c]
        undefined = op in (3, 4, 5) or not torch_is_dense(x) or not torch_is_dense(out) or out.shape != x.shape
        if undefined and _shares_memory(out, x):
            # (an out that is resized first and then overlaps what the op reads is no better)
            # a reduction or a matmul into memory it reads, or any op into memory an overlapping input
            # reads (torch cannot tell there), has no defined result: the numbers depend on its
            # kernel's order; cat into it grows out, then refuses, leaving uninitialised memory
            c = self.pick(lambda u: not _shares_memory(u, x))
            if c is None:
                return None
        resized = self.ns[c] if self.ns[c].shape != x.shape and self.seed >= WIDER_FROM else None
        if op == 0:
            return f"torch.add({a}, {self.other(x, a, writing=True, resized=resized)}, out={c})"
        if op == 1:
            return f"torch.mul({a}, {self.other(x, a, writing=True, resized=resized)}, out={c})"
        if op == 2:
            return f"torch.{self.choose('neg', 'exp', 'sigmoid', 'abs', 'tanh')}({a}, out={c})"
        if op == 3:
            return f"torch.sum({a}, 0, out={c})" if x.ndim else f"torch.sum({a}, out={c})"
        if op == 4 and x.ndim == 2 and x.numel() and c != a:  # torch itself crashes on some empty cases
            return f"torch.matmul({a}, {a}.t(), out={c})"
        if op == 5:
            return f"torch.cat([{a}, {a}], out={c})" if x.ndim else f"torch.clamp({a}, 0, 1, out={c})"
        if op == 6:
            return f"torch.neg({a}, out={c})"
        return f"torch.clamp({a}, -1, 1, out={c})"

    # ------------------------------------------------------------------ autograd
    def autograd(self) -> str | None:
        t = self.pick(lambda t: t.requires_grad)
        choice = self.rng.randrange(14)
        if t is None:
            return None
        x = self.ns[t]
        if choice < 3:
            self.kind = "autograd.backward"
            src = f"{t}.sum()" if x.numel() != 1 or self.rng.random() < 0.3 else t
            return f"{src}.backward({self.choose('', '', 'retain_graph=True')})"
        if choice == 3:
            self.kind = "autograd.backward_grad"
            return f"{t}.backward(torch.ones_like({t}){self.choose('', ', retain_graph=True')})"
        if choice == 4:
            self.kind = "autograd.loss"
            return f"{self.target()} = {t}.{self.choose('sum', 'mean')}()"
        if choice == 5:
            leaf = self.pick(lambda u: u.requires_grad and u.is_leaf)
            if leaf is None:
                return None
            self.kind = "autograd.grad"
            return f"{self.target()}, = torch.autograd.grad({t}.sum(), [{leaf}], retain_graph=True, allow_unused=True)"
        if choice == 6:
            self.kind = "autograd.retain_grad"
            return f"{t}.retain_grad()"
        if choice == 7 and x.dtype.is_floating_point and not x._is_view():  # torch crashes on some views
            self.kind = "autograd.hook"
            return f"{t}.register_hook(lambda g: g * {self.choose('2', '0.5')})"
        if choice == 8:
            inner = self.inplace() or f"{t}.mul_(2)"
            self.kind = "autograd.no_grad:" + self.kind
            return f"with torch.no_grad():\n    {inner}"
        if choice == 9:
            inner = self.view() or f"{self.target()} = {t}[:1]"
            self.kind = "autograd.no_grad:" + self.kind
            return f"with torch.no_grad():\n    {inner}"
        if choice == 10:
            self.kind = "autograd.grad_attr"
            return self.choose(f"{t}.grad", f"{t}.grad = None", f"{t}.grad.zero_()", f"{t}.grad_fn", f"{t}.is_leaf",
                               f"{t}.grad.add_(1)")
        if choice == 11:
            self.kind = "autograd.detach"
            return f"{self.target()} = {t}.{self.choose('detach()', 'data', 'clone().detach()')}"
        if choice == 12:
            other = self.pick()
            self.kind = "autograd.data_assign"
            return f"{t}.data = {other}" if other else None
        self.kind = "autograd.numpy"
        return self.choose(f"{self.target()}_np = {t}.numpy()", f"with torch.no_grad():\n    {t}.numpy()")

    # ------------------------------------------------------------------ the wider templates (WIDER_FROM)
    def dtype_ops(self) -> str | None:
        """Other dtypes: casts, dtype views of the same memory, integer and bool tensors, and
        in-place ops whose result type cannot be cast back."""
        t = self.pick()
        if t is None:
            return None
        x = self.ns[t]
        n = self.target()
        choice = self.rng.randrange(8)
        self.kind = "dtype.cast"
        if choice == 0:
            return f"{n} = {t}.to({self.choose('torch.int32', 'torch.int64', 'torch.bool', 'torch.float16', 'torch.bfloat16', 'torch.float64')})"
        if choice == 1:
            self.kind = "dtype.view"
            same_size = {"torch.float32": "torch.int32", "torch.float64": "torch.int64", "torch.int64": "torch.float64",
                         "torch.int32": "torch.float32"}.get(str(x.dtype), "torch.uint8")
            return f"{n} = {t}.view({self.choose(same_size, 'torch.uint8', 'torch.int16')})"
        if choice == 2:
            self.kind = "dtype.mask"
            return f"{n} = {t} {self.choose('>', '<=', '==', '!=')} {self.scalar()}"
        if choice == 3:
            self.kind = "dtype.promote"
            other = self.pick()
            return f"{n} = {t} {self.choose('+', '*', '-')} {other or self.scalar()}"
        if choice == 4:
            self.kind = "dtype.inplace_cast"
            other = self.pick(lambda u: _broadcasts(u.shape, x.shape) and not _undecidable_alias(u, x))
            return f"{t}.{self.choose('add_', 'mul_', 'sub_')}({other or self.choose('0.5', 'True', '2')})"
        if choice == 5:
            self.kind = "dtype.arange"
            return f"{n} = torch.arange({self.rng.randint(0, 6)}, dtype={self.choose('torch.int32', 'torch.bool', 'torch.float16', 'torch.uint8')})"
        if choice == 6:
            self.kind = "dtype.type_as"
            other = self.pick()
            return f"{n} = {t}.type_as({other or t})"
        self.kind = "dtype.where"
        return f"{n} = torch.where({t} > 0, {t}, {self.choose('0', '0.5', 'torch.tensor(1, dtype=torch.int32)')})"

    def inplace_more(self) -> str | None:
        """In-place ops the first templates never draw, with tensor operands that may be views."""
        t = self.pick(lambda u: not _overlaps_itself_undecidably(u))
        if t is None:
            return None
        x = self.ns[t]
        ok = self.tensors(lambda u: _broadcasts(u.shape, x.shape) and not _undecidable_alias(u, x))
        o1 = self.rng.choice(ok) if ok and self.rng.random() < 0.7 else self.scalar()
        o2 = self.rng.choice(ok) if ok and self.rng.random() < 0.7 else self.scalar()
        ops = [
            ("add_alpha", f"{t}.add_({o1}, alpha={self.choose('2', '-0.5')})"),
            ("addcmul_", f"{t}.addcmul_({o1}, {o2}, value={self.choose('1', '0.5')})"),
            ("addcdiv_", f"{t}.addcdiv_({o1}, {o2})"),
            ("lerp_", f"{t}.lerp_({o1}, {self.choose('0.5', '0.25')})"),
            ("clamp_min_", f"{t}.clamp_min_({self.choose('0', '-0.5')})"),
            ("div_mode", f"{t}.div_({o1}, rounding_mode={self.choose(repr('floor'), repr('trunc'))})"),
            ("remainder_", f"{t}.remainder_({self.choose('2', '1.5')})"),
            ("floor_", f"{t}.{self.choose('floor_', 'ceil_', 'round_', 'trunc_', 'sign_', 'reciprocal_', 'log_', 'rsqrt_')}()"),
            ("cumsum_", f"{t}.cumsum_({self.dim(x)})"),
            ("copy_bcast", f"{t}.copy_({o1 if ok else t})"),
            ("uniform_", f"{t}.{self.choose('uniform_()', 'normal_()', 'bernoulli_(0.5)', 'random_(0, 4)')}"),
            ("masked_scatter_", f"{t}.masked_scatter_({t} > 0, torch.ones({max(x.numel(), 1)}))"),
        ]
        if x.ndim:
            d = self.dim(x)
            size = x.shape[d]
            index = f"torch.tensor([{self.rng.randrange(size) if size else 0}])"
            ops += [
                ("scatter_", f"{t}.scatter_({d}, torch.zeros_like({t}, dtype=torch.long), {self.scalar()})"),
                ("index_copy_", f"{t}.index_copy_({d}, {index}, {t}.narrow({d}, 0, 1).clone())"),
                ("index_put_", f"{t}.index_put_(({index},), torch.tensor({self.scalar()}), accumulate={self.choose('True', 'False')})"),
                ("flip_copy", f"{t}.copy_({t}.flip({d}).clone())"),
            ]
        op, source = self.rng.choice(ops)
        self.kind = f"inplace.{op}"
        return source

    def view_more(self) -> str | None:
        """View ops the first templates never draw, some chained onto a view of a view."""
        t = self.pick()
        if t is None:
            return None
        x = self.ns[t]
        n = self.target()
        nd = x.ndim
        ops: list[tuple[str, str]] = [
            ("view_as", f"{n} = {t}.view_as({self.pick(lambda u: u.numel() == x.numel()) or t})"),
            ("view_neg", f"{n} = {t}.view(-1, {self.choose(1, 2)})" if x.numel() % 2 == 0 else f"{n} = {t}.view(-1)"),
            ("expand_neg", f"{n} = {t}.expand({', '.join(['-1'] * nd) or '()'})"),
            ("real", f"{n} = {t}.real" if x.dtype.is_floating_point else f"{n} = {t}.view_as({t})"),
            ("chain", f"{n} = {t}.reshape(-1)[{self.rng.randint(0, 1)}:].unsqueeze(0)"),
        ]
        if nd >= 1:
            d = self.dim(x)
            size = x.shape[d]
            ops += [
                ("unflatten", f"{n} = {t}.unflatten({d}, (1, {size}))"),
                ("split_sizes", f"{n} = {t}.split([{size // 2}, {size - size // 2}], {d})[{self.choose(0, 1)}]"),
                ("narrow_neg", f"{n} = {t}.narrow({d}, -{size} if {size} else 0, {size})" if size else f"{n} = {t}.narrow({d}, 0, 0)"),
                ("unbind_all", f"{n}, *_ = {t}.unbind({d})" if size else f"{n} = {t}"),
                ("select_view", f"{n} = {t}.select({d}, -1).unsqueeze(-1)" if size else f"{n} = {t}"),
                ("hsplit", f"{n} = {t}.chunk({self.rng.randint(2, 3)}, {d})[-1]"),
            ]
        if nd >= 2:
            ops += [("diag_embed_t", f"{n} = {t}.transpose(0, 1).diagonal()"),
                    ("flatten_range", f"{n} = {t}.flatten(0, 1)"),
                    ("unfold2", f"{n} = {t}.unfold(-1, 1, 1).squeeze(-1)")]
        op, source = self.rng.choice(ops)
        self.kind = f"view.{op}"
        return source

    def autograd_more(self) -> str | None:
        """Autograd calls the first templates never draw: grad with create_graph, backward with
        inputs=, hooks on leaves, grad mode switches, a loss through a functional op."""
        t = self.pick(lambda u: u.requires_grad)
        if t is None:
            return None
        x = self.ns[t]
        leaf = self.pick(lambda u: u.requires_grad and u.is_leaf)
        choice = self.rng.randrange(9)
        self.kind = "autograd.more"
        if choice == 0 and leaf is not None:
            self.kind = "autograd.create_graph"
            return f"{self.target()}, = torch.autograd.grad(({t} * {t}).sum(), [{leaf}], create_graph=True, allow_unused=True)"
        if choice == 1 and leaf is not None:
            self.kind = "autograd.backward_inputs"
            return f"{t}.sum().backward(inputs=[{leaf}]{self.choose('', ', retain_graph=True')})"
        if choice == 2 and leaf is not None:
            self.kind = "autograd.leaf_hook"
            return f"{leaf}.register_hook(lambda g: g.clamp({self.choose('-1, 1', 'min=0')}))"
        if choice == 3:
            self.kind = "autograd.enable_grad"
            return f"with torch.no_grad():\n    with torch.enable_grad():\n        {self.target()} = {t} * 2"
        if choice == 4 and x.dtype.is_floating_point:
            self.kind = "autograd.functional"
            op = self.choose("F.softmax", "F.log_softmax") if x.ndim else "F.gelu"
            dim = f", {self.dim(x)}" if x.ndim and "softmax" in op else ""
            return f"{self.target()} = {op}({t}{dim})"
        if choice == 5:
            self.kind = "autograd.inference"
            return f"with torch.inference_mode():\n    {self.target()} = {t} * 2"
        if choice == 6:
            self.kind = "autograd.grad_of_grad"
            return f"{self.target()} = torch.autograd.grad({t}.sum(), [{t}], retain_graph=True)[0]"
        if choice == 7:
            self.kind = "autograd.set_grad"
            return f"with torch.set_grad_enabled({self.choose('False', 'True')}):\n    {self.target()} = {t}.exp()"
        self.kind = "autograd.requires_grad_nonleaf"
        return f"{t}.requires_grad_({self.choose('False', 'True')})"

    # ------------------------------------------------------------------ looking at state
    def inspect(self) -> str | None:
        t = self.pick()
        if t is None:
            return None
        other = self.pick()
        self.kind = "inspect"
        return self.choose(f"print({t})", f"{t}", f"{t}._version", f"{t}.stride()", f"{t}.is_contiguous()",
                           f"{t}._base is {other}", f"{t}.requires_grad", f"del {t}", f"{t}.storage_offset()",
                           f"{t}.data_ptr() == {other}.data_ptr()", f"{t}.untyped_storage().nbytes()")


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Whether a broadcasts to exactly b (as an in-place op's operand must)."""
    if len(a) > len(b):
        return False
    return all(x == y or x == 1 for x, y in zip(reversed(a), reversed(b)))
