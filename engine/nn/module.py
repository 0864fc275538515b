"""nn.Module: parameters, buffers and submodules by attribute, train/eval, and torch's repr."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from engine.autograd import grad_mode
from engine.dtypes import dtype
from engine.tensor import Parameter, Tensor


class Module:
    """Base class of layers: attributes that are Parameters or Modules are tracked automatically."""

    training: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # ------------------------------------------------------------------ attributes
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if params is None:
            raise AttributeError("cannot assign module before Module.__init__() call")
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        elif name in self.__dict__.get("_buffer_names", ()) and (value is None or isinstance(value, Tensor)):
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        for table in ("_parameters", "_buffers", "_modules"):
            found = self.__dict__.get(table)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        names = self.__dict__.setdefault("_buffer_names", set())
        names.add(name)
        self._buffers[name] = tensor

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        self._modules[name] = module

    register_module = add_module

    # ------------------------------------------------------------------ calling
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # ------------------------------------------------------------------ traversal
    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        for name, child in self._modules.items():
            if child is not None:
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, child in self.named_children():
            yield child

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Parameter]]:
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for module_prefix, module in modules:
            for name, param in module._parameters.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{module_prefix}.{name}" if module_prefix else name), param

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        for module_prefix, module in self.named_modules(prefix):
            for name, buf in module._buffers.items():
                if buf is not None:
                    yield (f"{module_prefix}.{name}" if module_prefix else name), buf

    def buffers(self) -> Iterator[Tensor]:
        for _, buf in self.named_buffers():
            yield buf

    def state_dict(self) -> OrderedDict[str, Tensor]:
        state: OrderedDict[str, Tensor] = OrderedDict()
        for name, param in self.named_parameters():
            state[name] = param.detach()
        for name, buf in self.named_buffers():
            state[name] = buf.detach()
        return state

    def load_state_dict(self, state: dict[str, Tensor], strict: bool = True) -> None:
        own = dict(self.named_parameters())
        own.update(self.named_buffers())
        with grad_mode.no_grad():
            for name, value in state.items():
                if name in own:
                    own[name].copy_(value)

    # ------------------------------------------------------------------ modes and bulk changes
    def train(self, mode: bool = True) -> Module:
        for module in self.modules():
            object.__setattr__(module, "training", bool(mode))
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.parameters():
            if param._grad is None:
                continue
            if set_to_none:
                param._grad = None
            else:
                param._grad.zero_()

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def _apply(self, convert: Callable[[Tensor], Tensor]) -> Module:
        """Move or cast every parameter and buffer, keeping the Parameter objects (as torch does)."""
        with grad_mode.no_grad():
            for module in self.modules():
                for param in module._parameters.values():
                    if param is not None:
                        param.data = convert(param.data)
                        if param._grad is not None:
                            param._grad = convert(param._grad)
                for name, buf in module._buffers.items():
                    if buf is not None:
                        module._buffers[name] = convert(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Like Tensor.to, but a dtype only applies to floating-point parameters and buffers."""
        return self._apply(lambda t: t.to(*args, **kwargs) if t.dtype.is_floating_point
                           else t.to(*(a for a in args if not isinstance(a, dtype)),
                                     **{k: v for k, v in kwargs.items() if k != "dtype"}))

    def cuda(self, device: Any = None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.dtype.is_floating_point else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.dtype.is_floating_point else t)

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        lines = [line for line in self.extra_repr().split("\n") if line]
        for name, child in self._modules.items():
            text = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        head = self._get_name() + "("
        if not self._modules and len(lines) <= 1:
            return head + (lines[0] if lines else "") + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._modules) | set(self._buffers))
