"""paddle.nn.Layer and the layers the seeds use: Linear, ReLU, Sigmoid, Tanh, Sequential.

A Layer registers the Parameters and sub-layers assigned to it, names its parameters as Paddle does
(`linear_0.w_0`, `my_net_0.b_0`) and prints as Paddle prints it. Linear's weight is [in, out].
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import engine
from engine.paddle import dtypes, names
from engine.paddle.device import engine_device
from engine.paddle.nn import functional as F
from engine.paddle.nn import initializer as init
from engine.paddle.tensor import HAS_NODE, NAME, Tensor


class EagerParamBase(Tensor):
    """A trainable leaf (stop_gradient=False) that prints as `Parameter containing:`."""

    __slots__ = ("trainable",)

    persistable = True

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


def create_parameter(shape: Any, dtype: Any = None, name: str | None = None, attr: Any = None,
                     is_bias: bool = False, default_initializer: Any = None, prefix: str | None = None) -> EagerParamBase:
    chosen = dtypes.to_dtype(dtype) if dtype is not None else dtypes.default()
    t = engine.zeros(*[int(s) for s in shape], dtype=chosen.engine, device=engine_device())
    t._requires_grad = True
    t.__dict__[HAS_NODE] = True
    scope = prefix or names.unique("create_parameter")
    t.__dict__[NAME] = name or names.unique(f"{scope}.{'b' if is_bias else 'w'}")
    p = EagerParamBase._wrap(t)
    p.trainable = True
    initializer = default_initializer or (init.Constant(0.0) if is_bias else init.XavierUniform())
    initializer(p)
    return p


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


class Layer:
    """paddle.nn.Layer: parameters, sub-layers, forward through __call__."""

    def __init__(self, name_scope: str | None = None, dtype: Any = "float32") -> None:
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_sub_layers", {})
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_full_name", names.unique(name_scope or _snake(type(self).__name__)))
        object.__setattr__(self, "_dtype", dtypes.to_dtype(dtype))

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if params is not None:
            params.pop(name, None)
            self._sub_layers.pop(name, None)
            if isinstance(value, EagerParamBase):
                params[name] = value
            elif isinstance(value, Layer):
                self._sub_layers[name] = value
        object.__setattr__(self, name, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def full_name(self) -> str:
        return self._full_name

    def create_parameter(self, shape: Any, attr: Any = None, dtype: Any = None, is_bias: bool = False,
                         default_initializer: Any = None) -> EagerParamBase:
        return create_parameter(shape, dtype or self._dtype, attr=attr, is_bias=is_bias,
                                default_initializer=default_initializer, prefix=self._full_name)

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[tuple[str, EagerParamBase]]:
        for name, p in self._parameters.items():
            if p is not None:
                yield prefix + name, p
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                yield from layer.named_parameters(prefix + name + ".")

    def parameters(self, include_sublayers: bool = True) -> list[EagerParamBase]:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_children(self) -> Iterator[tuple[str, Layer]]:
        yield from self._sub_layers.items()

    def children(self) -> Iterator[Layer]:
        yield from self._sub_layers.values()

    def sublayers(self, include_self: bool = False) -> list[Layer]:
        found = [self] if include_self else []
        for layer in self._sub_layers.values():
            found.extend(layer.sublayers(include_self=True))
        return found

    def state_dict(self) -> dict[str, EagerParamBase]:
        return dict(self.named_parameters())

    def train(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", True)
        return self

    def eval(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        return self

    def clear_gradients(self) -> None:
        for p in self.parameters():
            p.clear_grad()

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        for name, layer in self._sub_layers.items():
            body = repr(layer).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        head = f"{type(self).__name__}({self.extra_repr()}"
        return head + ("\n" + "\n".join(lines) + "\n)" if lines else ")")


class Linear(Layer):
    """y = x @ weight + bias, weight of shape [in_features, out_features]."""

    def __init__(self, in_features: int, out_features: int, weight_attr: Any = None, bias_attr: Any = None,
                 name: str | None = None) -> None:
        super().__init__("linear")
        self.in_features, self.out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features])
        self.bias = None if bias_attr is False else self.create_parameter([out_features], is_bias=True)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, dtype={self._dtype.name}"


class ReLU(Layer):
    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class Sigmoid(Layer):
    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Tanh(Layer):
    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class Sequential(Layer):
    def __init__(self, *layers: Layer) -> None:
        super().__init__()
        for i, layer in enumerate(layers):
            setattr(self, str(i), layer)

    def __getitem__(self, index: int) -> Layer:
        return list(self._sub_layers.values())[index]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def forward(self, x: Any) -> Any:
        for layer in self._sub_layers.values():
            x = layer(x)
        return x
