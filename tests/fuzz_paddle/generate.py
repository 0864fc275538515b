"""Random Paddle programs over views, in-place ops, stop_gradient and backward.

A program is a list of statements (source text). The generator keeps a small model of every
tensor name (shape, dtype, whether it may carry a gradient) so that most statements are valid;
some are meant to fail (leaf in-place writes, stale saved tensors, a second backward), since the
errors are part of what is compared. The model is deliberately rough: a statement the model
believes valid may still raise in Paddle, and that is compared too.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

Shape = tuple[int, ...]


@dataclass
class Var:
    shape: Shape
    dtype: str = "float32"


@dataclass
class Model:
    vars: dict[str, Var] = field(default_factory=dict)
    counter: int = 0

    def new_name(self) -> str:
        self.counter += 1
        return f"t{self.counter}"

    def floats(self) -> list[str]:
        return [n for n, v in self.vars.items() if v.dtype == "float32"]


@dataclass(frozen=True)
class Program:
    seed: int
    statements: tuple[str, ...]

    def source(self) -> str:
        return "\n".join(self.statements) + "\n"


def _values(rng: random.Random, shape: Shape) -> str:
    count = 1
    for n in shape:
        count *= n
    flat = [round(rng.uniform(-2, 2), 2) for _ in range(count)]
    return f"np.array({flat}, dtype='float32').reshape({list(shape)})"


def _shape(rng: random.Random) -> Shape:
    return rng.choice([(4,), (2, 3), (3, 2), (2, 2), (2, 3, 2), (6,), (1, 4), (4, 1)])


# --------------------------------------------------------------------------- statement makers
# Each maker takes (rng, model) and returns a statement, updating the model, or None when it does
# not apply to the current names.
Maker = Callable[[random.Random, Model], "str | None"]


def make_tensor(rng: random.Random, m: Model) -> str:
    name, shape = m.new_name(), _shape(rng)
    m.vars[name] = Var(shape)
    kind = rng.random()
    if kind < 0.45:
        sg = rng.choice(["True", "False"])
        return f"{name} = paddle.to_tensor({_values(rng, shape)}, stop_gradient={sg})"
    if kind < 0.6:
        return f"{name} = paddle.rand({list(shape)})"
    if kind < 0.75:
        return f"{name} = paddle.full({list(shape)}, {round(rng.uniform(-2, 2), 1)})"
    if kind < 0.85:
        return f"{name} = paddle.ones({list(shape)})"
    return f"{name} = paddle.randn({list(shape)})"


def _pick(rng: random.Random, m: Model) -> tuple[str, Var] | None:
    names = m.floats()
    if not names:
        return None
    name = rng.choice(names)
    return name, m.vars[name]


def set_stop_gradient(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    return f"{picked[0]}.stop_gradient = {rng.choice(['False', 'False', 'True'])}"


def view(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    src, var = picked
    name, shape = m.new_name(), var.shape
    numel = 1
    for n in shape:
        numel *= n
    choices: list[tuple[str, Shape]] = [(f"{src}.reshape([-1])", (numel,)), (f"{src}.detach()", shape),
                                        (f"{src}.unsqueeze(0)", (1, *shape)), (f"{src}.flatten()", (numel,))]
    if len(shape) >= 2:
        perm = list(range(len(shape)))
        perm[0], perm[1] = perm[1], perm[0]
        out = list(shape)
        out[0], out[1] = out[1], out[0]
        choices += [(f"{src}.transpose({perm})", tuple(out)), *([(f"{src}[1:]", (shape[0] - 1, *shape[1:]))] if shape[0] > 1 else []),
                    (f"{src}[0]", shape[1:]), (f"{src}[:, 0]", (shape[0], *shape[2:]))]
        if len(shape) == 2:
            choices.append((f"{src}.t()", (shape[1], shape[0])))
            choices.append((f"paddle.diagonal({src})", (min(shape),)))
    elif shape:
        choices += [(f"{src}[::2]", ((shape[0] + 1) // 2,)), (f"{src}[0]", ())]
        if shape[0] > 1:  # (an empty slice's layout is Paddle's own affair: not generated)
            choices.append((f"{src}[1:3]", (min(shape[0], 3) - 1,)))
    if 1 in shape:
        squeezed = tuple(n for n in shape if n != 1)
        choices.append((f"{src}.squeeze()", squeezed))
    if shape:
        choices.append((f"{src}.unbind()[0]", shape[1:]))
        choices.append((f"paddle.unsqueeze({src}, -1)", (*shape, 1)))
    expr, out_shape = rng.choice(choices)
    m.vars[name] = Var(out_shape)
    return f"{name} = {expr}"


def copies(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    src, var = picked
    shape = var.shape
    name = m.new_name()
    choices: list[tuple[str, Shape]] = [(f"{src}.clone()", shape), (f"paddle.assign({src})", shape),
                                        (f"{src}.astype('float32')", shape), (f"{src}.expand([2, *{list(shape)}])",
                                                                               (2, *shape))]
    if shape and shape[0] % 2 == 0:
        choices.append((f"paddle.split({src}, 2)[0]", (shape[0] // 2, *shape[1:])))
        choices.append((f"paddle.chunk({src}, 2)[1]", (shape[0] // 2, *shape[1:])))
    expr, out_shape = rng.choice(choices)
    m.vars[name] = Var(out_shape)
    return f"{name} = {expr}"


UNARY = ["exp", "sin", "tanh", "sigmoid", "abs", "square", "cos", "floor", "neg"]
FUNCTIONAL = ["paddle.nn.functional.relu", "paddle.nn.functional.softmax"]


def math_op(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    src, var = picked
    name = m.new_name()
    same = [n for n in m.floats() if m.vars[n].shape == var.shape]
    other = rng.choice(same)
    kind = rng.random()
    shape = var.shape
    if kind < 0.35:
        expr = f"{src} {rng.choice(['+', '-', '*', '/'])} {other}"
    elif kind < 0.5:
        expr = f"{src} {rng.choice(['+', '-', '*'])} {round(rng.uniform(-2, 2), 1)}"
    elif kind < 0.75:
        expr = f"{src}.{rng.choice(UNARY)}()"
    elif kind < 0.85:
        expr = f"{rng.choice(FUNCTIONAL)}({src})"
    elif kind < 0.92:
        expr, shape = f"{src}.sum()", ()
    else:
        expr, shape = f"{src}.mean()", ()
    m.vars[name] = Var(shape)
    return f"{name} = {expr}"


def matmul(rng: random.Random, m: Model) -> str | None:
    mats = [n for n in m.floats() if len(m.vars[n].shape) == 2]
    if not mats:
        return None
    a = rng.choice(mats)
    rows, inner = m.vars[a].shape
    partners = [n for n in mats if m.vars[n].shape[0] == inner]
    if not partners:
        return None
    b = rng.choice(partners)
    name = m.new_name()
    m.vars[name] = Var((rows, m.vars[b].shape[1]))
    return f"{name} = paddle.matmul({a}, {b})"


INPLACE_UNARY = ["exp_", "sin_", "tanh_", "sqrt_", "abs_", "zero_", "ceil_"]


def inplace(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    src, var = picked
    same = [n for n in m.floats() if m.vars[n].shape == var.shape]
    kind = rng.random()
    if kind < 0.3:
        return f"{src}.{rng.choice(['add_', 'subtract_', 'multiply_'])}({rng.choice(same)})"
    if kind < 0.45:
        return f"{src}.scale_({round(rng.uniform(-2, 2), 1)})"
    if kind < 0.65:
        return f"{src}.{rng.choice(INPLACE_UNARY)}()"
    if kind < 0.72:
        return f"paddle.nn.functional.relu_({src})"
    if kind < 0.8:
        return f"{src}.clip_(-0.5, 0.5)"
    if kind < 0.88:
        return f"{src}.fill_({round(rng.uniform(-2, 2), 1)})"
    if len(var.shape) >= 2 and kind < 0.91:
        perm = list(range(len(var.shape)))[::-1]
        m.vars[src] = Var(tuple(var.shape[p] for p in perm))
        return f"{src}.transpose_({perm})"
    if kind < 0.94:
        return rng.choice([f"{src}.divide_({rng.choice(same)})", f"{src}.pow_(2)",
                           f"{src}.masked_fill_({src} > 0, 0.5)", f"paddle.nn.functional.tanh_({src})"])
    if kind < 0.97:
        numel = 1
        for n in var.shape:
            numel *= n
        m.vars[src] = Var((numel,))
        return f"{src}.{rng.choice(['reshape_([-1])', 'flatten_()'])}"
    m.vars[src] = Var((1, *var.shape))
    return f"{src}.unsqueeze_(0)"


def setitem(rng: random.Random, m: Model) -> str | None:
    candidates = [n for n in m.floats() if m.vars[n].shape]
    if not candidates:
        return None
    src = rng.choice(candidates)
    shape = m.vars[src].shape
    index = rng.choice(["0", "1:", "...", "-1"] if shape[0] > 1 else ["0", "..."])
    if rng.random() < 0.5:
        return f"{src}[{index}] = {round(rng.uniform(-2, 2), 1)}"
    sources = [n for n in m.floats() if m.vars[n].shape == ()]
    if not sources:
        return f"{src}[{index}] = {round(rng.uniform(-2, 2), 1)}"
    return f"{src}[{index}] = {rng.choice(sources)}"


def writes_without_autograd(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    src, var = picked
    same = [n for n in m.floats() if m.vars[n].shape == var.shape and n != src]
    kind = rng.random()
    if same and kind < 0.35:
        return f"paddle.assign({rng.choice(same)}, {src})"
    if same and kind < 0.6:
        return f"{src}.copy_({rng.choice(same)}, True)"
    if kind < 0.8:
        return f"{src}.set_value({_values(rng, var.shape)})"
    return f"{src}.data = paddle.zeros({list(var.shape)})"


def backward(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    src = picked[0]
    retain = rng.random() < 0.3
    target = f"{src}.sum()" if picked[1].shape and rng.random() < 0.7 else src
    return f"{target}.backward({'retain_graph=True' if retain else ''})"


def grad_ops(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    src, var = picked
    if rng.random() < 0.3:  # hold on to a gradient: later backwards may add into it or replace it
        name = m.new_name()
        m.vars[name] = Var(var.shape)
        return f"{name} = {src}.grad if {src}.grad is not None else paddle.zeros({list(var.shape)})"
    return rng.choice([f"{src}.clear_grad()", f"{src}.grad = None", f"{src}.retain_grads()",
                       f"{src}.clear_gradient(False)"])


def parameters(rng: random.Random, m: Model) -> str | None:
    """A parameter, initialised, stepped by an optimizer or re-initialised."""
    params = [n for n in m.floats() if n.startswith("p")]
    kind = rng.random()
    if not params or kind < 0.4:
        m.counter += 1
        name, shape = f"p{m.counter}", _shape(rng)
        m.vars[name] = Var(shape)
        init = rng.choice(["", ", default_initializer=paddle.nn.initializer.Constant(0.3)",
                           ", default_initializer=paddle.nn.initializer.Normal()",
                           ", default_initializer=paddle.nn.initializer.Uniform()"])
        return f"{name} = paddle.create_parameter({list(shape)}, 'float32'{init})"
    name = rng.choice(params)
    if kind < 0.7:
        optimizer = rng.choice(["SGD(0.1", "Momentum(0.1, 0.9", "Adam(0.01"])
        return f"paddle.optimizer.{optimizer}, parameters=[{name}]).step()"
    return f"paddle.nn.initializer.{rng.choice(['Constant(0.5)', 'Normal()', 'XavierUniform()'])}({name})"


def dropout(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    name = m.new_name()
    m.vars[name] = Var(picked[1].shape)
    return f"{name} = paddle.nn.functional.dropout({picked[0]}, {rng.choice([0.3, 0.5])})"


def no_grad_block(rng: random.Random, m: Model) -> str | None:
    picked = _pick(rng, m)
    if picked is None:
        return None
    src, var = picked
    name = m.new_name()
    m.vars[name] = Var(var.shape)
    return f"with paddle.no_grad():\n    {name} = {src} * 2"


MAKERS: list[tuple[float, Maker]] = [
    (3, make_tensor), (1.5, set_stop_gradient), (3, view), (1.5, copies), (3, math_op), (0.7, matmul),
    (3, inplace), (1.5, setitem), (1, writes_without_autograd), (1.8, backward), (0.8, grad_ops),
    (0.4, no_grad_block), (0.8, parameters), (0.3, dropout),
]


def program(seed: int, length: int | None = None) -> Program:
    rng = random.Random(seed)
    model = Model()
    steps = length or rng.randint(5, 12)
    statements = [make_tensor(rng, model), make_tensor(rng, model)]
    weights = [w for w, _ in MAKERS]
    while len(statements) < steps:
        maker = rng.choices([mk for _, mk in MAKERS], weights)[0]
        statement = maker(rng, model)
        if statement is not None:
            statements.append(statement)
    return Program(seed, tuple(statements))
