"""Run a program statement by statement in real Paddle or in the dialect, and record after each
statement everything the two must agree on.

Per statement: the exception it raised (type and message, build tail cut, tensor-name counters
made relative to the run's start), then for every tensor name: shape, dtype, stop_gradient,
is_leaf, inplace_version, strides, contiguity, grad_fn and its next functions' names, values and
gradient; and which pairs of names share one buffer. A statement that raises does not end the
program (as in a console): later statements see the state it left. Tensor `.name`s are never read
(reading one names the tensor, which would change later messages).
"""

from __future__ import annotations

import contextlib
import io
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from tests.paddle.harness import ADDRESS, EAGER, EAGER_IN, GENERATED, strip_tail


@dataclass
class TensorFacts:
    shape: list[int]
    dtype: str
    stop_gradient: bool
    is_leaf: bool
    version: int
    strides: list[int]
    contiguous: bool
    grad_fn: str | None
    next_functions: list[str | None] | None
    values: np.ndarray
    grad: np.ndarray | None

    def exact(self) -> tuple[Any, ...]:
        """Everything but the floating-point values, which are compared with a tolerance."""
        return (self.shape, self.dtype, self.stop_gradient, self.is_leaf, self.version, self.strides,
                self.contiguous, self.grad_fn, self.next_functions, self.grad is None)


@dataclass
class StepFacts:
    statement: str
    error: str | None
    tensors: dict[str, TensorFacts]
    shared: list[tuple[str, str]]


def _facts(t: Any) -> TensorFacts:
    fn = t.grad_fn
    grad = t.grad
    return TensorFacts(
        shape=list(t.shape), dtype=str(t.dtype), stop_gradient=bool(t.stop_gradient), is_leaf=bool(t.is_leaf),
        version=int(t.inplace_version), strides=list(t.strides), contiguous=bool(t.is_contiguous()),
        grad_fn=None if fn is None else fn.name(),
        next_functions=None if fn is None else [n.name() if n is not None else None for n in fn.next_functions],
        values=np.array(t.numpy(), copy=True), grad=None if grad is None else np.array(grad.numpy(), copy=True))


class Counters:
    """Tensor-name numbers at the start of a run, so messages read as in a fresh process."""

    def __init__(self, paddle: Any) -> None:
        self.generated = int(GENERATED.search(paddle.to_tensor(0).name).group(1)) + 1
        self.eager = int(EAGER.search(paddle.ones([1]).name).group(1)) + 1

    def shift(self, text: str) -> str:
        text = GENERATED.sub(lambda m: f"generated_tensor_{int(m.group(1)) - self.generated}", text)
        text = EAGER_IN.sub(lambda m: f"eager_in_tmp_{int(m.group(1)) - self.generated}", text)  # one counter
        return EAGER.sub(lambda m: f"eager_tmp_{int(m.group(1)) - self.eager}", text)


def run(statements: tuple[str, ...], paddle: Any, counters: Counters | None = None) -> list[StepFacts]:
    namespace: dict[str, Any] = {"paddle": paddle, "np": np}
    tensor_type = paddle.Tensor
    steps = []
    for statement in statements:
        error = None
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(statement, "<program>", "exec"), namespace)  # noqa: S102 - our own generated test code
            except Exception as exc:  # the program's own error is what is compared
                message = ADDRESS.sub("0x?", strip_tail(str(exc)))
                error = f"{type(exc).__name__}: {counters.shift(message) if counters else message}"
        names = sorted(n for n, v in namespace.items() if isinstance(v, tensor_type))
        tensors = {n: _facts(namespace[n]) for n in names}
        shared = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
                  if namespace[a]._is_shared_buffer_with(namespace[b])]
        steps.append(StepFacts(statement, error, tensors, shared))
    return steps


def close(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    return bool(np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))


def first_difference(paddle_run: list[StepFacts], dialect_run: list[StepFacts]) -> str | None:
    """The first place the two runs part, in words (None: they agree in full)."""
    for index, (p, d) in enumerate(zip(paddle_run, dialect_run), start=1):
        where = f"after statement {index} `{p.statement.splitlines()[0]}`"
        if p.error != d.error:
            return f"{where}: paddle raised {p.error!r}, the dialect {d.error!r}"
        if set(p.tensors) != set(d.tensors):
            return f"{where}: names {sorted(p.tensors)} vs {sorted(d.tensors)}"
        for name in p.tensors:
            tp, td = p.tensors[name], d.tensors[name]
            if tp.exact() != td.exact():
                fields = ("shape", "dtype", "stop_gradient", "is_leaf", "version", "strides", "contiguous",
                          "grad_fn", "next_functions", "grad is None")
                diffs = [f"{f} {a!r} vs {b!r}" for f, a, b in zip(fields, tp.exact(), td.exact()) if a != b]
                return f"{where}: {name}: " + ", ".join(diffs)
            if not close(tp.values, td.values):
                return f"{where}: {name}'s values {tp.values.tolist()} vs {td.values.tolist()}"
            if not close(tp.grad, td.grad):
                return f"{where}: {name}'s grad {tp.grad.tolist()} vs {td.grad.tolist()}"
        if p.shared != d.shared:
            return f"{where}: shared buffers {p.shared} vs {d.shared}"
    return None

