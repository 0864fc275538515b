"""paddle.optimizer.SGD: `param -= learning_rate * grad`, written without autograd and without a
version bump (measured: `w.inplace_version` stays 0 after `opt.step()`); `clear_grad()` zero-fills
the gradients (they stay, as zeros)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.paddle.tensor import Tensor, quietly


class SGD:
    def __init__(self, learning_rate: float = 0.001, parameters: Iterable[Tensor] | None = None,
                 weight_decay: Any = None, grad_clip: Any = None, name: str | None = None) -> None:
        if parameters is None:
            raise AttributeError("parameters argument given to the Optimizer should not be None in dygraph mode.")
        self._learning_rate = float(learning_rate)
        self._parameter_list = list(parameters)

    def get_lr(self) -> float:
        return self._learning_rate

    def set_lr(self, value: float) -> None:
        self._learning_rate = float(value)

    def step(self) -> None:
        for p in self._parameter_list:
            t, g = p._t, p._t._grad
            if g is None or p.stop_gradient:
                continue
            quietly(t, lambda t=t, g=g: t.sub_(g * self._learning_rate))

    def clear_grad(self, set_to_zero: bool = True) -> None:
        for p in self._parameter_list:
            if set_to_zero:
                p.clear_grad()
            else:
                p._t._grad = None

    def minimize(self, loss: Tensor, startup_program: Any = None, parameters: Any = None,
                 no_grad_set: Any = None) -> None:
        self.step()


__all__ = ["SGD"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.optimizer", name)
