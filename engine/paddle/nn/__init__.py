"""paddle.nn for the Paddle dialect: Layer, a few layers, functional and initializer."""

from typing import Any

from engine.paddle.nn import functional, initializer
from engine.paddle.nn.layer import Layer, Linear, ReLU, Sequential, Sigmoid, Tanh

__all__ = ["Layer", "Linear", "ReLU", "Sequential", "Sigmoid", "Tanh", "functional", "initializer"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.nn", name)
