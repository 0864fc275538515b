"""paddle.nn.functional: the activations and linear the seeds use, with Paddle's node names.

`relu_` exists (and follows the in-place leaf rule); `sigmoid_` does not (AttributeError, as in
Paddle). `linear` is matmul then add: MatmulGradNode, then AddGradNode when there is a bias.
"""

from __future__ import annotations

from typing import Any

import engine
from engine.paddle.ops import add, matmul
from engine.paddle.tensor import Tensor, wrap


def relu(x: Tensor, name: str | None = None) -> Tensor:
    return wrap(engine.relu(x._operand()), "ReluGradNode")


def relu_(x: Tensor, name: str | None = None) -> Tensor:
    return x._inplace("ReluGradNode", lambda t: t.relu_())


def sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    return x.sigmoid()


def tanh(x: Tensor, name: str | None = None) -> Tensor:
    return x.tanh()


def tanh_(x: Tensor, name: str | None = None) -> Tensor:
    return x.tanh_()


def softmax(x: Tensor, axis: int = -1, dtype: Any = None, name: str | None = None) -> Tensor:
    return wrap(engine.softmax(x._operand(), axis), "SoftmaxGradNode")


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None, name: str | None = None) -> Tensor:
    out = matmul(x, weight)
    return out if bias is None else add(out, bias)


__all__ = ["linear", "relu", "relu_", "sigmoid", "softmax", "tanh", "tanh_"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.nn.functional", name)
