"""Run one Python snippet against real PaddlePaddle or against the Paddle dialect, and say what it did.

Both sides run exactly the same source (our own trusted test code, so `exec` is fine here) with
`paddle`, `nn`, `F` and `np` bound, and give a Transcript: what it printed and the exception it
ended with. Transcripts are compared after normalising what differs from build to build or run
to run, never behaviour:

- Paddle's C++ errors end with the source location of the check, `(at /paddle/...)`, which depends
  on where the wheel was built: it is cut from both sides;
- object addresses (`0x7f...`) are masked;
- tensor names count per process (`generated_tensor_7`, `eager_tmp_3`): real Paddle's counters
  cannot be reset, so its numbers are shifted to what a fresh process would print, which is what
  the dialect prints after `engine.paddle.reset()`.

A fresh Paddle process seeds its generator from the operating system; the dialect starts as if
`paddle.seed(0)` had run, so real Paddle is seeded so before every snippet, and random values
(rand, randn, initializers, dropout) are compared too.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.paddle.random import DEFAULT_SEED

TAIL = re.compile(r" ?\(at /[^)\n]*\)\n?")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
GENERATED = re.compile(r"generated_tensor_(\d+)")
EAGER = re.compile(r"(?<!in_)eager_tmp_(\d+)")
EAGER_IN = re.compile(r"eager_in_tmp_(\d+)")

# Helpers every snippet may use: one line per tensor with what the tests compare.
PRELUDE = '''
def info(t):
    fn = t.grad_fn
    nxt = None if fn is None else [n.name() if n is not None else None for n in fn.next_functions]
    return (list(t.shape), str(t.dtype), "sg" if t.stop_gradient else "grad", "leaf" if t.is_leaf else "nonleaf",
            "v%d" % t.inplace_version, fn.name() if fn is not None else None, nxt)
'''


@dataclass(frozen=True)
class Transcript:
    output: str
    error: str | None  # "ValueError: message", normalised

    def text(self) -> str:
        return self.output + ("" if self.error is None else f"--- exception ---\n{self.error}\n")


def strip_tail(message: str) -> str:
    return TAIL.sub("", message)


def run(source: str, namespace: dict[str, Any]) -> Transcript:
    out = io.StringIO()
    error = None
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(PRELUDE + source, "<snippet>", "exec"), namespace)  # noqa: S102 - our own test code
        except Exception as exc:  # the snippet's own exception is what we compare
            error = f"{type(exc).__name__}: {strip_tail(str(exc))}"
    return Transcript(ADDRESS.sub("0x?", out.getvalue()), None if error is None else ADDRESS.sub("0x?", error))


def dialect_namespace() -> dict[str, Any]:
    import engine.paddle as paddle
    import engine.paddle.nn as nn
    import engine.paddle.nn.functional as F  # noqa: N812

    return {"paddle": paddle, "nn": nn, "F": F, "np": np}


def run_dialect(source: str, gpu: bool = False) -> Transcript:
    """A fresh process's state first (names, place, seed); no simulated GPU unless asked, as the
    reference is a CPU build."""
    import engine
    import engine.paddle

    engine.paddle.reset()
    engine.cuda.configure(enabled=gpu)
    try:
        return run(source, dialect_namespace())
    finally:
        engine.paddle.reset()
        engine.cuda.configure(enabled=True)


class RealPaddle:
    """Runs snippets in the installed PaddlePaddle as if each were a fresh process."""

    def __init__(self, paddle: Any) -> None:
        import paddle.nn
        import paddle.nn.functional

        self.paddle = paddle
        self.namespace = {"paddle": paddle, "nn": paddle.nn, "F": paddle.nn.functional, "np": np}

    def _next_numbers(self) -> tuple[int, int]:
        generated = int(GENERATED.search(self.paddle.to_tensor(0).name).group(1)) + 1
        eager = int(EAGER.search(self.paddle.ones([1]).name).group(1)) + 1
        return generated, eager

    def run(self, source: str) -> Transcript:
        generated, eager = self._next_numbers()
        self.paddle.set_device("cpu")
        self.paddle.set_default_dtype("float32")
        self.paddle.seed(DEFAULT_SEED)
        with self.paddle.utils.unique_name.guard():
            found = run(source, dict(self.namespace))

        def shift(text: str | None) -> str | None:
            if text is None:
                return None
            text = GENERATED.sub(lambda m: f"generated_tensor_{int(m.group(1)) - generated}", text)
            text = EAGER_IN.sub(lambda m: f"eager_in_tmp_{int(m.group(1)) - generated}", text)  # one counter
            return EAGER.sub(lambda m: f"eager_tmp_{int(m.group(1)) - eager}", text)

        return Transcript(shift(found.output), shift(found.error))


@contextlib.contextmanager
def dialect_modules() -> Any:
    """While active, `import paddle` (and paddle.nn, paddle.nn.functional, paddle.device,
    paddle.device.cuda, paddle.optimizer) give the dialect, so seed files run verbatim."""
    import sys

    import engine.paddle
    import engine.paddle.nn.functional

    modules = {"paddle": engine.paddle, "paddle.nn": engine.paddle.nn,
               "paddle.nn.functional": engine.paddle.nn.functional, "paddle.nn.init": engine.paddle.nn.init,
               "paddle.nn.initializer": engine.paddle.nn.initializer, "paddle.device": engine.paddle.device,
               "paddle.device.cuda": engine.paddle.device.cuda, "paddle.optimizer": engine.paddle.optimizer,
               "paddle.tensor": engine.paddle.tensor, "paddle.utils": engine.paddle.utils,
               "paddle.utils.dlpack": engine.paddle.utils.dlpack}
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def run_dialect_file(source: str, gpu: bool = True) -> Transcript:
    """A seed file, verbatim, with `import paddle` meaning the dialect (simulated GPU on, as in
    tensorscope)."""
    import engine
    import engine.paddle

    engine.paddle.reset()
    engine.cuda.configure(enabled=gpu)
    try:
        with dialect_modules():
            return run(source, {})
    finally:
        engine.paddle.reset()
        engine.cuda.configure(enabled=True)
