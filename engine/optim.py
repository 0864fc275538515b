"""torch.optim: SGD and Adam, updating parameters in place under no_grad (each step bumps each
parameter's version by one, as PyTorch's do)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from engine.autograd import grad_mode
from engine.tensor import Tensor


class Optimizer:
    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        params = list(params)
        groups = params if params and isinstance(params[0], dict) else [{"params": params}]
        self.param_groups = [{**defaults, **group, "params": list(group["params"])} for group in groups]
        self.defaults = defaults
        self.state: dict[int, dict[str, Any]] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {value}" for key, value in sorted(group.items()) if key != "params")
        lines.append(")")
        return "\n".join(lines)


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, maximize: bool = False) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize})

    @grad_mode.no_grad()
    def step(self, closure: Any = None) -> Any:
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p: Tensor = p.grad if not group["maximize"] else -p.grad
                if group["weight_decay"]:
                    d_p = d_p.add(p, alpha=group["weight_decay"])
                if group["momentum"]:
                    state = self.state.setdefault(id(p), {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = d_p.clone()
                    else:
                        buf.mul_(group["momentum"]).add_(d_p, alpha=1 - group["dampening"])
                    d_p = d_p.add(buf, alpha=group["momentum"]) if group["nesterov"] else buf
                p.add_(d_p, alpha=-group["lr"])
        return loss


class Adam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False) -> None:
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad})

    @grad_mode.no_grad()
    def step(self, closure: Any = None) -> Any:
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad if not group["weight_decay"] else p.grad.add(p, alpha=group["weight_decay"])
                state = self.state.setdefault(id(p), {"step": 0})
                if "exp_avg" not in state:
                    state["exp_avg"] = p.detach().clone().zero_()
                    state["exp_avg_sq"] = p.detach().clone().zero_()
                state["step"] += 1
                state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
                state["exp_avg_sq"].mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                bias1 = 1 - beta1 ** state["step"]
                bias2 = 1 - beta2 ** state["step"]
                denom = (state["exp_avg_sq"].sqrt() / math.sqrt(bias2)).add_(group["eps"])
                p.add_(state["exp_avg"] / denom, alpha=-group["lr"] / bias1)
        return loss
