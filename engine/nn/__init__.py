"""torch.nn: Parameter, Module and the layers tensorscope's scenarios use."""

from __future__ import annotations

from engine.nn import (
    functional,
    init,
    utils,
)
from engine.nn.activation_layers import (
    CELU,
    ELU,
    GLU,
    SELU,
    CosineSimilarity,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LogSigmoid,
    Mish,
    PairwiseDistance,
    PReLU,
    SiLU,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
)
from engine.nn.attention import (
    MultiheadAttention,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from engine.nn.fold import Fold, Unfold
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
from engine.nn.layers_1d import AdaptiveAvgPool1d, AdaptiveMaxPool1d, AvgPool1d, Conv1d, MaxPool1d
from engine.nn.loss_layers import (
    BCEWithLogitsLoss,
    HuberLoss,
    KLDivLoss,
    MarginRankingLoss,
    MultiLabelSoftMarginLoss,
    SmoothL1Loss,
    TripletMarginLoss,
)
from engine.nn.module import Module
from engine.nn.norm_shape_layers import (
    ConstantPad1d,
    ConstantPad2d,
    Dropout1d,
    Dropout2d,
    InstanceNorm1d,
    InstanceNorm2d,
    PixelShuffle,
    PixelUnshuffle,
    ReflectionPad1d,
    ReflectionPad2d,
    ReplicationPad1d,
    ReplicationPad2d,
    RMSNorm,
    Unflatten,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
    ZeroPad1d,
    ZeroPad2d,
)
from engine.nn.parameter_containers import ParameterDict, ParameterList
from engine.nn.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell
from engine.nn.transformer import Transformer, TransformerDecoder, TransformerDecoderLayer
from engine.tensor import Parameter
