"""torch.nn: Parameter, Module and the layers tensorscope's scenarios use."""

from __future__ import annotations

from engine.nn import (
    functional,
    init,
    utils,
)
from engine.nn.attention import (
    MultiheadAttention,
    Transformer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from engine.nn.layers import (
    GELU,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    BCELoss,
    Conv2d,
    ConvTranspose2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    GroupNorm,
    Identity,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool2d,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    ReLU6,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from engine.nn.module import Module
from engine.nn.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell
from engine.tensor import Parameter
