"""paddle.ParamAttr: how a layer's parameter is made (name, initializer, trainable...).

A layer's `weight_attr` / `bias_attr` may be a ParamAttr, an initializer, a name, None (the layer's
default) or False (no such parameter), as Paddle's `ParamAttr._to_attr` reads it.
"""

from __future__ import annotations

from typing import Any


class ParamAttr:
    """paddle.ParamAttr(name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True)."""

    def __init__(self, name: str | None = None, initializer: Any = None, learning_rate: float = 1.0,
                 regularizer: Any = None, trainable: bool = True, do_model_average: bool = True,
                 need_clip: bool = True) -> None:
        from engine.paddle.nn.initializer import Initializer

        _check("name", name, (str, type(None)))
        _check("learning_rate", learning_rate, (float, int))
        _check("trainable", trainable, bool)
        _check("initializer", initializer, (Initializer, type(None)))
        if name == "":
            raise ValueError("name of ParamAttr can not be empty str")
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def __repr__(self) -> str:
        return f"<paddle.base.param_attr.ParamAttr object at {hex(id(self))}>"


def _check(field: str, value: Any, types: type | tuple[type, ...]) -> None:
    if not isinstance(value, types):
        names = types if isinstance(types, tuple) else (types,)
        wanted = ", ".join(f"<class '{t.__module__}.{t.__qualname__}'>" if t.__module__ != "builtins"
                           else f"<class '{t.__name__}'>" for t in names)
        raise TypeError(f"The type of '{field}' in ParamAttr must be ({wanted}), but received {type(value)}. ")


def to_attr(arg: Any) -> ParamAttr | None:
    """Paddle's ParamAttr._to_attr: None means the defaults, False means no parameter."""
    from engine.paddle.nn.initializer import Initializer

    if arg is None:
        return ParamAttr()
    if isinstance(arg, ParamAttr):
        return ParamAttr(arg.name, arg.initializer, arg.learning_rate, arg.regularizer, arg.trainable,
                         arg.do_model_average, arg.need_clip)
    if isinstance(arg, str):
        return ParamAttr(name=arg)
    if isinstance(arg, Initializer):
        return ParamAttr(initializer=arg)
    if isinstance(arg, bool):
        return ParamAttr() if arg else None
    raise TypeError(f"{type(arg)} cast to ParamAttr")
