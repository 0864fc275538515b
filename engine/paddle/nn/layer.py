"""paddle.nn.Layer, its parameters and buffers, as Paddle 3.3.1 keeps them.

A Layer holds three tables, `_parameters`, `_sub_layers` and `_buffers`, and finds attributes in
them (`__getattr__`), as Paddle's does: assigning a Parameter registers it, a Layer becomes a
sub-layer, and any other Tensor becomes a buffer (which reads, and so fixes, its `.name`).
Parameters are named by the layer's scope (`linear_0.w_0`, `net_0.b_0`; the scope is the class
name in snake case) and made by a ParamAttr (name, initializer, trainable). The layer prints as
Paddle prints it.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import engine
from engine.paddle import dtypes, names
from engine.paddle.device import engine_device
from engine.paddle.param_attr import ParamAttr, to_attr
from engine.paddle.tensor import HAS_NODE, NAME, PERSISTABLE, Tensor


class EagerParamBase(Tensor):
    """A Parameter: a leaf that prints as `Parameter containing:`; trainable means it does not stop
    gradient."""

    __slots__ = ()

    @property
    def trainable(self) -> bool:
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"The type of trainable MUST be bool, but the type is {type(value)}")
        self.stop_gradient = not value

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


def create_parameter(shape: Any, dtype: Any = None, name: str | None = None, attr: Any = None,
                     is_bias: bool = False, default_initializer: Any = None, prefix: str | None = None
                     ) -> EagerParamBase | None:
    """paddle.create_parameter (and Layer.create_parameter, which passes its scope as prefix)."""
    from engine.paddle.nn import initializer as init

    chosen = dtypes.to_dtype(dtype) if dtype is not None else dtypes.default()
    attr = to_attr(attr)
    if attr is None:
        return None
    if name is not None and attr.name is None:
        attr.name = name
    if attr.name is None:
        scope = prefix or names.unique("create_parameter")
        attr.name = names.unique(f"{scope}.{'b' if is_bias else 'w'}")
    if not names.claim_parameter(attr.name):
        raise ValueError(f"parameter name [{attr.name}] have be been used. In dygraph mode, the name of parameter "
                         "can't be same.Please check the parameter attr value passed to self.create_parameter or "
                         "constructor of dygraph Layers")
    initializer = attr.initializer or default_initializer or (init.Constant(0.0) if is_bias else init.XavierUniform())
    t = engine.empty(*[int(s) for s in shape], dtype=chosen.engine, device=engine_device())
    t._requires_grad = attr.trainable
    t.__dict__[HAS_NODE] = True
    t.__dict__[NAME] = attr.name
    t.__dict__[PERSISTABLE] = True
    param = EagerParamBase._wrap(t)
    initializer(param)
    return param


_FIRST_CAP = re.compile("(.)([A-Z][a-z]+)")
_ALL_CAP = re.compile("([a-z])([A-Z])")


def snake_case(name: str) -> str:
    """Paddle's _convert_camel_to_snake: `BatchNorm2D` -> `batch_norm2d`, `MyNet` -> `my_net`."""
    return _ALL_CAP.sub(r"\1_\2", _FIRST_CAP.sub(r"\1_\2", name)).lower()


def _indent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    return "\n".join([lines[0], *(" " * spaces + line for line in lines[1:])])


class Layer:
    """paddle.nn.Layer: parameters, sub-layers and buffers; forward through __call__."""

    def __init__(self, name_scope: str | None = None, dtype: Any = "float32") -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_sub_layers", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_full_name", names.unique(name_scope or snake_case(type(self).__name__)))
        object.__setattr__(self, "_dtype", dtypes.to_dtype(dtype))

    def __getattr__(self, name: str) -> Any:
        for table in ("_parameters", "_sub_layers", "_buffers"):
            found = self.__dict__.get(table)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if params is None:
            if isinstance(value, (Tensor, Layer)):
                raise ValueError("super().__init__() should be called first")
            object.__setattr__(self, name, value)
            return
        tables = (self.__dict__, params, self._sub_layers, self._buffers)
        if isinstance(value, EagerParamBase):
            _drop(name, tables, keep=params)
            params[name] = value
        elif name in params:
            if value is not None:
                raise TypeError(f"assignment to parameter '{name}' should be of type Parameter or None, but got "
                                f"'{type(value).__name__}'")
            params[name] = None
        elif isinstance(value, Layer):
            _drop(name, tables, keep=self._sub_layers)
            self._sub_layers[name] = value
        elif name in self._sub_layers:
            if value is not None:
                raise TypeError(f"assignment to sublayer '{name}' should be of type Layer or None, but got "
                                f"'{type(value).__name__}'")
            self._sub_layers[name] = None
        elif isinstance(value, Tensor):
            _drop(name, tables, keep=self._buffers)
            value.name  # noqa: B018 - Paddle reads the name here, which gives the tensor one
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._sub_layers, self._buffers):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def full_name(self) -> str:
        return self._full_name

    def create_parameter(self, shape: Any, attr: Any = None, dtype: Any = None, is_bias: bool = False,
                         default_initializer: Any = None) -> EagerParamBase | None:
        return create_parameter(shape, dtype or self._dtype, attr=attr, is_bias=is_bias,
                                default_initializer=default_initializer, prefix=self._full_name)

    def add_parameter(self, name: str, parameter: EagerParamBase) -> EagerParamBase:
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name: str, sublayer: Layer) -> Layer:
        self._sub_layers[name] = sublayer
        return sublayer

    def register_buffer(self, name: str, tensor: Tensor, persistable: bool = True) -> None:
        self._buffers[name] = tensor

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[tuple[str, EagerParamBase]]:
        seen: set[int] = set()
        for layer_prefix, layer in self.named_sublayers(prefix, include_self=True) if include_sublayers \
                else [(prefix, self)]:
            for name, p in layer._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{layer_prefix}.{name}" if layer_prefix else name), p

    def parameters(self, include_sublayers: bool = True) -> list[EagerParamBase]:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[tuple[str, Tensor]]:
        for layer_prefix, layer in self.named_sublayers(prefix, include_self=True) if include_sublayers \
                else [(prefix, self)]:
            for name, b in layer._buffers.items():
                if b is not None:
                    yield (f"{layer_prefix}.{name}" if layer_prefix else name), b

    def buffers(self, include_sublayers: bool = True) -> list[Tensor]:
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def named_sublayers(self, prefix: str = "", include_self: bool = False) -> Iterator[tuple[str, Layer]]:
        if include_self:
            yield prefix, self
        for name, layer in self._sub_layers.items():
            if layer is not None:
                yield from layer.named_sublayers(f"{prefix}.{name}" if prefix else name, include_self=True)

    def sublayers(self, include_self: bool = False) -> list[Layer]:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self) -> Iterator[tuple[str, Layer]]:
        yield from ((n, layer) for n, layer in self._sub_layers.items() if layer is not None)

    def children(self) -> Iterator[Layer]:
        yield from (layer for _, layer in self.named_children())

    def state_dict(self) -> OrderedDict[str, Tensor]:
        found: OrderedDict[str, Tensor] = OrderedDict(self.named_parameters())
        found.update(self.named_buffers())
        return found

    def set_state_dict(self, state_dict: dict[str, Any]) -> tuple[list[str], list[str]]:
        own = self.state_dict()
        for key, value in state_dict.items():
            if key in own:
                own[key].set_value(value)
        return [k for k in own if k not in state_dict], [k for k in state_dict if k not in own]

    set_dict = load_dict = set_state_dict

    def train(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", True)
        return self

    def eval(self) -> Layer:
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        return self

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        for p in self.parameters():
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr().split("\n")
        sub = [f"({name}): {_indent(repr(layer), 2)}" for name, layer in self._sub_layers.items()]
        text = type(self).__name__ + "("
        if len(extra) > 1:
            text += "\n  " + "\n  ".join(extra) + "\n"
        else:
            text += extra[0]
        if sub:
            text += "\n  " + "\n  ".join(sub) + "\n"
        return text + ")"


def _drop(name: str, tables: tuple[dict, ...], keep: dict) -> None:
    for table in tables:
        if table is not keep:
            table.pop(name, None)


__all__ = ["EagerParamBase", "Layer", "ParamAttr", "create_parameter"]
