"""The layers of a convolutional block and a small MLP: Linear, Conv2D, BatchNorm1D/2D, pooling,
activations, Dropout, Flatten, Identity, Sequential and LayerList, printed and parametrised as in
Paddle 3.3.1.

Default initializers are Paddle's: Linear's weight XavierUniform, Conv2D's weight
Normal(0, sqrt(2 / (in_channels * kernel area))), biases Constant(0); BatchNorm's weight 1, bias 0
and its running `_mean` / `_variance` (0 and 1) are parameters that stop gradient.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

from engine.paddle.nn import functional as F
from engine.paddle.nn import initializer as init
from engine.paddle.nn.layer import Layer
from engine.paddle.param_attr import ParamAttr
from engine.paddle.tensor import Tensor


class Linear(Layer):
    """y = x @ weight + bias, weight of shape [in_features, out_features]."""

    def __init__(self, in_features: int, out_features: int, weight_attr: Any = None, bias_attr: Any = None,
                 name: str | None = None) -> None:
        super().__init__("linear")
        self.in_features, self.out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, dtype={self._dtype.name}"


def _pair(value: Any) -> list[int]:
    return [value, value] if isinstance(value, int) else [int(v) for v in value]


class Conv2D(Layer):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, padding_mode: str = "zeros", weight_attr: Any = None,
                 bias_attr: Any = None, data_format: str = "NCHW") -> None:
        super().__init__()
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._kernel_size = _pair(kernel_size)
        self._stride, self._padding, self._dilation = _pair(stride), padding, _pair(dilation)
        self._padding_mode, self._data_format = padding_mode, data_format
        std = math.sqrt(2.0 / (math.prod(self._kernel_size) * in_channels))
        shape = [out_channels, in_channels // groups, *self._kernel_size]
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=init.Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Tensor) -> Tensor:
        return F.conv2d(x, self.weight, self.bias, self._stride, self._padding, self._dilation, self._groups,
                        self._data_format)

    def extra_repr(self) -> str:
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1, 1]:
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            text += f", padding_mode={self._padding_mode}"
        if self._dilation != [1, 1]:
            text += f", dilation={self._dilation}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


class _BatchNorm(Layer):
    _default_format = "NCHW"

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-5, weight_attr: Any = None,
                 bias_attr: Any = None, data_format: str | None = None, use_global_stats: bool | None = None,
                 name: str | None = None) -> None:
        super().__init__()
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format = data_format or self._default_format
        self._use_global_stats = use_global_stats
        self.weight = self.create_parameter([num_features], attr=weight_attr, default_initializer=init.Constant(1.0))
        self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True)
        self._mean = self.create_parameter([num_features], attr=ParamAttr(initializer=init.Constant(0.0),
                                                                           trainable=False))
        self._variance = self.create_parameter([num_features], attr=ParamAttr(initializer=init.Constant(1.0),
                                                                               trainable=False))

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.batch_norm(input, self._mean, self._variance, self.weight, self.bias, self.training,
                            self._momentum, self._epsilon, self._data_format, self._use_global_stats)

    def extra_repr(self) -> str:
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        return text if self._data_format == "NCHW" else text + f", data_format={self._data_format}"


class BatchNorm2D(_BatchNorm):
    pass


class BatchNorm1D(_BatchNorm):
    _default_format = "NCL"


class _Pool(Layer):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 name: str | None = None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding, self.ceil_mode = kernel_size, stride, padding, ceil_mode

    def extra_repr(self) -> str:
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool2D(_Pool):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, return_mask: bool = False,
                 ceil_mode: bool = False, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode)

    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool2d(x, self.ksize, self.stride, self.padding, ceil_mode=self.ceil_mode)


class AvgPool2D(_Pool):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 exclusive: bool = True, divisor_override: int | None = None, data_format: str = "NCHW",
                 name: str | None = None) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self._exclusive, self._divisor = exclusive, divisor_override

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self._exclusive, self._divisor)


class AdaptiveAvgPool2D(Layer):
    def __init__(self, output_size: Any, data_format: str = "NCHW", name: str | None = None) -> None:
        super().__init__()
        self._output_size = output_size

    def forward(self, x: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(x, self._output_size)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}"


class ReLU(Layer):
    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class Sigmoid(Layer):
    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Tanh(Layer):
    def __init__(self, name: str | None = None) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class LeakyReLU(Layer):
    def __init__(self, negative_slope: float = 0.01, name: str | None = None) -> None:
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self._negative_slope}"


class Softmax(Layer):
    def __init__(self, axis: int = -1, name: str | None = None) -> None:
        super().__init__()
        self._axis = axis

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self._axis)

    def extra_repr(self) -> str:
        return f"axis={self._axis}"


class Dropout(Layer):
    def __init__(self, p: float = 0.5, axis: Any = None, mode: str = "upscale_in_train", name: str | None = None) -> None:
        super().__init__()
        self.p, self.axis, self.mode = p, axis, mode

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout(input, self.p, self.axis, self.training, False, self.mode)

    def extra_repr(self) -> str:
        return f"p={self.p}, axis={self.axis}, mode={self.mode}, inplace=False"


class Flatten(Layer):
    def __init__(self, start_axis: int = 1, stop_axis: int = -1) -> None:
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.flatten(self.start_axis, self.stop_axis)


class Identity(Layer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input


class Sequential(Layer):
    def __init__(self, *layers: Any) -> None:
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (list, tuple)):
            for name, layer in layers[0]:
                self.add_sublayer(name, layer)
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, index: Any) -> Any:
        items = list(self._sub_layers.values())
        if isinstance(index, slice):
            return Sequential(*items[index])
        return items[index]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self) -> Iterator[Layer]:
        return iter(self._sub_layers.values())

    def forward(self, input: Any) -> Any:  # noqa: A002
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    def __init__(self, sublayers: Iterable[Layer] | None = None) -> None:
        super().__init__()
        for i, layer in enumerate(sublayers or []):
            self.add_sublayer(str(i), layer)

    def __getitem__(self, index: int) -> Layer:
        return list(self._sub_layers.values())[index]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self) -> Iterator[Layer]:
        return iter(self._sub_layers.values())

    def append(self, sublayer: Layer) -> LayerList:
        self.add_sublayer(str(len(self)), sublayer)
        return self


__all__ = ["AdaptiveAvgPool2D", "AvgPool2D", "BatchNorm1D", "BatchNorm2D", "Conv2D", "Dropout", "Flatten", "Identity",
           "LayerList", "LeakyReLU", "Linear", "MaxPool2D", "ReLU", "Sequential", "Sigmoid", "Softmax", "Tanh"]
