"""The module surface: what `import` gives user code, as read-only proxies of listed names."""

from __future__ import annotations

import importlib
import math
import sys
import types
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

import engine
import engine.autograd
import engine.cuda
import engine.nn
import engine.nn.functional
import engine.nn.init
import engine.optim
from tensorscope.sandbox.classes import is_user_class
from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.internal import internal
from tensorscope.sandbox.numpy_surface import (
    NUMPY_FUNCTIONS,
    NUMPY_RANDOM,
    NUMPY_VALUES,
    numpy_guarded,
)
from tensorscope.sandbox.sizes import math_comb, math_factorial, math_lcm, math_perm, math_prod
from tensorscope.sandbox.stdlib import GRANTS
from tensorscope.sandbox.strings import bound

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox


@internal()
class ModuleProxy:
    """A read-only module that hands out only its listed names, each resolved on first use (so
    importing torch does not evaluate every lazy attribute of the engine)."""

    __slots__ = ("_hidden", "_name", "_names", "_resolve", "_values")

    def __init__(self, name: str, names: Iterable[str], resolve: Callable[[str], Any], hidden: Any) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_names", frozenset(names))
        object.__setattr__(self, "_resolve", resolve)
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_hidden", hidden)

    @gateway
    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        if name in object.__getattribute__(self, "_names"):
            values[name] = object.__getattribute__(self, "_resolve")(name)
            return values[name]
        module_name = object.__getattribute__(self, "_name")
        if name in dir(object.__getattribute__(self, "_hidden")):  # not hasattr: numpy would import it
            raise AttributeError(f"module '{module_name}' has no attribute '{name}' (not available in tensorscope)")
        raise AttributeError(f"module '{module_name}' has no attribute '{name}'")

    @gateway
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"module '{self._name}' is read-only in tensorscope")

    @gateway
    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"module '{self._name}' is read-only in tensorscope")

    def __dir__(self) -> list[str]:
        return sorted(object.__getattribute__(self, "_names"))

    def __repr__(self) -> str:
        return f"<module '{object.__getattribute__(self, '_name')}' (tensorscope)>"


def public_names(module: ModuleProxy) -> list[str]:
    """What `from module import *` binds."""
    return sorted(n for n in object.__getattribute__(module, "_names") if not n.startswith("_"))


_TORCH_EXTRA = ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "ByteTensor",
                "is_tensor", "numel", "can_cast", "is_floating_point", "get_default_dtype",
                "set_default_dtype", "promote_types", "strided", "contiguous_format", "preserve_format")
_TORCH_SUBMODULES = {"nn": "torch.nn", "autograd": "torch.autograd", "cuda": "torch.cuda", "optim": "torch.optim",
                     "utils": "torch.utils", "linalg": "torch.linalg", "special": "torch.special",
                     "distributions": "torch.distributions", "testing": "torch.testing"}
# torch.distributions' submodules that the engine models (`from torch.distributions.normal import Normal`)
_DISTRIBUTIONS = ("constraints", "kl", "distribution", "normal", "bernoulli", "categorical", "one_hot_categorical",
                  "uniform", "exponential", "laplace", "log_normal", "independent", "multivariate_normal",
                  "mixture_same_family", "transforms", "transformed_distribution", "gumbel", "relaxed_bernoulli",
                  "relaxed_categorical", "geometric", "utils")
_NN_SUBMODULES = {"functional": "torch.nn.functional", "init": "torch.nn.init", "utils": "torch.nn.utils"}
# The other torch modules: name -> (engine module path, submodules)
_TORCH_MODULES = {
    "torch.nn.functional": ("engine.nn.functional", {}), "torch.nn.init": ("engine.nn.init", {}),
    "torch.cuda": ("engine.cuda", {}), "torch.optim": ("engine.optim", {"lr_scheduler": "torch.optim.lr_scheduler"}),
    "torch.optim.lr_scheduler": ("engine.optim.lr_scheduler", {}),
    "torch.nn.utils": ("engine.nn.utils", {"rnn": "torch.nn.utils.rnn"}), "torch.nn.utils.rnn": ("engine.nn.utils.rnn", {}),
    "torch.utils": ("engine.utils", {"data": "torch.utils.data", "checkpoint": "torch.utils.checkpoint"}),
    "torch.utils.data": ("engine.utils.data", {}), "torch.utils.checkpoint": ("engine.utils.checkpoint", {}),
    "torch.linalg": ("engine.linalg", {}), "torch.special": ("engine.special", {}),
    "torch.testing": ("engine.testing", {}),
    "torch.distributions": ("engine.distributions", {name: f"torch.distributions.{name}" for name in _DISTRIBUTIONS}),
    **{f"torch.distributions.{name}": (f"engine.distributions.{name}", {}) for name in _DISTRIBUTIONS},
}
_AUTOGRAD_EXTRA = ("Function",)

MODULE_NAMES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.autograd",
                "torch.cuda", "torch.optim", "torch.optim.lr_scheduler", "torch.nn.utils", "torch.nn.utils.rnn",
                "torch.utils", "torch.utils.data", "torch.utils.checkpoint", "torch.linalg", "torch.special", "torch.testing",
                "torch.distributions", *(f"torch.distributions.{name}" for name in _DISTRIBUTIONS), "numpy", "numpy.random",
                "math", "paddle", "paddle.nn", "paddle.nn.functional", "paddle.nn.initializer", "paddle.nn.init",
                "paddle.device", "paddle.device.cuda", "paddle.optimizer", "paddle.tensor", "paddle.utils",
                "paddle.utils.dlpack", *GRANTS)
# The Paddle dialect (engine.paddle): module -> (engine module path, submodules)
_PADDLE_MODULES = {
    "paddle": ("engine.paddle", {"nn": "paddle.nn", "device": "paddle.device", "optimizer": "paddle.optimizer",
                                 "tensor": "paddle.tensor", "utils": "paddle.utils"}),
    "paddle.nn": ("engine.paddle.nn", {"functional": "paddle.nn.functional",
                                       "initializer": "paddle.nn.initializer", "init": "paddle.nn.init"}),
    "paddle.nn.functional": ("engine.paddle.nn.functional", {}),
    "paddle.nn.initializer": ("engine.paddle.nn.initializer", {}),
    "paddle.nn.init": ("engine.paddle.nn.init", {}),
    "paddle.tensor": ("engine.paddle.tensor_api", {}),
    "paddle.utils": ("engine.paddle.utils", {"dlpack": "paddle.utils.dlpack"}),
    "paddle.utils.dlpack": ("engine.paddle.utils.dlpack", {}),
    "paddle.device": ("engine.paddle.device", {"cuda": "paddle.device.cuda"}),
    "paddle.device.cuda": ("engine.paddle.device.cuda", {}),
    "paddle.optimizer": ("engine.paddle.optimizer", {}),
}


def _public_api(module: types.ModuleType) -> list[str]:
    """A package's public names: its __all__, else the engine classes and the functions the module
    defines itself (not helpers it imported)."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        owner = getattr(value, "__module__", None) or ""
        if (isinstance(value, type) and owner.startswith("engine")) or (callable(value) and owner == module.__name__):
            names.append(name)
    return names


def _imported(dotted: str) -> bool:
    """Whether the engine module behind a torch proxy is imported (torch, nn and autograd always are)."""
    path = _TORCH_MODULES[dotted][0] if dotted in _TORCH_MODULES else None
    return path is None or path in sys.modules


def _aliased_classes(names: set[str], defined: dict[str, Any]) -> set[str]:
    """The own names of classes a module offers under a public alias (`constraints.greater_than`
    is the class `_GreaterThan`), listed so that calling the alias passes Modules.usable; being
    private, those names stay unreadable, as every module's private names are."""
    return {value.__name__ for name in names
            if isinstance(value := defined.get(name), type) and value.__name__ != name
            and defined.get(value.__name__) is value}


class Modules:
    """The modules one sandbox has imported, built on first import."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.meter = sandbox.meter
        self._modules: dict[str, ModuleProxy] = {}
        self._usable: dict[type, bool] = {}

    def usable(self, cls: type) -> bool:
        """Whether user code may call or subclass cls: a user class, a class that is not the
        engine's, or an engine class that one of the torch (or paddle) modules offers under its
        own name. Engine classes reached only through `type(x)` (graph nodes, storages)
        take internal arguments and stay out. (`__module__` is read only for classes user code
        did not make: it cannot set attributes of those.)"""
        if is_user_class(cls) or str(cls.__module__).partition(".")[0] != "engine":
            return True
        if cls not in self._usable:
            self._usable[cls] = any(cls.__name__ in object.__getattribute__(proxy, "_names")
                                    and getattr(object.__getattribute__(proxy, "_hidden"), cls.__name__, None) is cls
                                    for proxy in self._engine_proxies())
        return self._usable[cls]

    def _engine_proxies(self) -> list[ModuleProxy]:
        """The torch (and paddle) proxies; of the engine's lazily imported modules (distributions,
        testing), only those imported already: a class they offer exists only once they are."""
        dotted = [name for name in MODULE_NAMES if name.startswith("torch") and _imported(name)]
        if "engine.paddle" in sys.modules:  # only once a program imported paddle
            dotted += [name for name in MODULE_NAMES if name.startswith("paddle")]
        return [self.import_module(name) for name in dotted]

    @gateway
    def import_module(self, dotted: str) -> ModuleProxy:
        """The proxy for `import dotted`, or ModuleNotFoundError naming what is available."""
        if dotted not in MODULE_NAMES:
            raise ModuleNotFoundError(
                f"No module named '{dotted}' (tensorscope provides: {', '.join(MODULE_NAMES)})")
        if dotted not in self._modules:
            self._modules[dotted] = self._build_module(dotted)
        return self._modules[dotted]

    @gateway
    def import_from(self, module: ModuleProxy, dotted: str, name: str) -> Any:
        try:
            return getattr(module, name)
        except AttributeError:
            raise ImportError(f"cannot import name '{name}' from '{dotted}' (tensorscope)") from None

    def _build_module(self, dotted: str) -> ModuleProxy:
        if dotted in GRANTS:
            grant = GRANTS[dotted]
            values = grant.build(self.sandbox)
            self.sandbox.free_ids.update(id(values[name]) for name in grant.free)
            return ModuleProxy(dotted, values, values.__getitem__, grant.module)
        if dotted in _PADDLE_MODULES:
            path, submodules = _PADDLE_MODULES[dotted]
            return self._engine_module(dotted, importlib.import_module(path), (), submodules)
        if dotted == "torch":
            dtypes = [n for n, v in vars(engine).items() if isinstance(v, engine.dtype) and not n.startswith("_")]
            return self._engine_module("torch", engine, (*_TORCH_EXTRA, *dtypes), _TORCH_SUBMODULES)
        if dotted == "torch.nn":
            return self._engine_module("torch.nn", engine.nn, (), _NN_SUBMODULES)
        if dotted == "torch.autograd":
            return self._engine_module("torch.autograd", engine.autograd, _AUTOGRAD_EXTRA)
        if dotted in _TORCH_MODULES:
            path, submodules = _TORCH_MODULES[dotted]
            return self._engine_module(dotted, importlib.import_module(path), (), submodules)
        if dotted == "numpy":
            return ModuleProxy(dotted, [*NUMPY_FUNCTIONS, *NUMPY_VALUES, "random", "__version__"], self._numpy, np)
        if dotted == "numpy.random":
            return ModuleProxy(dotted, NUMPY_RANDOM, lambda n: numpy_guarded(n, getattr(np.random, n), None, dotted),
                               np.random)
        return ModuleProxy(dotted, [n for n in vars(math) if not n.startswith("_")], self._math, math)

    def _engine_module(self, dotted: str, module: types.ModuleType, extra: tuple[str, ...] = (),
                       submodules: dict[str, str] | None = None) -> ModuleProxy:
        """An engine package: its public API (plus `extra` names it defines), with the listed
        submodules as proxies and any other module left out."""
        submodules = submodules or {}
        defined = vars(module)
        names = {*_public_api(module), *(n for n in extra if n in defined), *submodules}
        names |= _aliased_classes(names, defined)

        @gateway
        def resolve(name: str) -> Any:
            if name in submodules:
                return self.import_module(submodules[name])
            value = getattr(module, name)
            if isinstance(value, types.ModuleType):
                raise AttributeError(f"module '{dotted}' has no attribute '{name}' (not available in tensorscope)")
            return value

        return ModuleProxy(dotted, names, resolve, module)

    def _numpy(self, name: str) -> Any:
        if name == "random":
            return self.import_module("numpy.random")
        if name in NUMPY_FUNCTIONS:
            return numpy_guarded(name, getattr(np, name))
        return getattr(np, name)

    def _math(self, name: str) -> Any:
        guarded = {"factorial": math_factorial, "comb": math_comb, "perm": math_perm, "lcm": math_lcm}
        if name == "prod":
            return bound(math_prod, self.meter, name="prod")
        return guarded.get(name) or getattr(math, name)
