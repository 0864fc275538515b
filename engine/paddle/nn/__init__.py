"""paddle.nn for the Paddle dialect: Layer, the layers of a convolutional block, functional,
initializer and init (its PyTorch-style spelling)."""

from typing import Any

from engine.paddle.nn import functional, init, initializer
from engine.paddle.nn.layer import Layer
from engine.paddle.nn.layers import (
    AdaptiveAvgPool2D,
    AvgPool2D,
    BatchNorm1D,
    BatchNorm2D,
    Conv2D,
    Dropout,
    Flatten,
    Identity,
    LayerList,
    LeakyReLU,
    Linear,
    MaxPool2D,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)

__all__ = ["AdaptiveAvgPool2D", "AvgPool2D", "BatchNorm1D", "BatchNorm2D", "Conv2D", "Dropout", "Flatten", "Identity",
           "Layer", "LayerList", "LeakyReLU", "Linear", "MaxPool2D", "ReLU", "Sequential", "Sigmoid", "Softmax", "Tanh",
           "functional", "init", "initializer"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.nn", name)
