"""SGD, Adam, AdamW, RMSprop and Adadelta as torch's single-tensor implementations (the ones CPU
tensors use by default) write them: each in-place call below is one version bump of its tensor,
and the arithmetic follows ATen's CPU kernels bit for bit in float32: scalars cast to the tensor's
type, `add(other, alpha)` as fma(alpha, other, self), `addcmul` as fma(value * t1, t2, self),
`addcdiv` as `self + value * t1 / t2` (no fma: a division), `lerp` by its two fma formulas."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from engine import dtypes
from engine.autograd import grad_mode
from engine.kernels.fma import fma32
from engine.optim.optimizer import Optimizer
from engine.tensor import Tensor

Array = np.ndarray


# --------------------------------------------------------------------------- in-place kernels
def _compute_type(t: Tensor) -> np.dtype:
    """ATen's opmath type: half-precision tensors compute in float32."""
    return np.dtype(np.float32) if t.dtype.itemsize == 2 and t.dtype.is_floating_point else t.dtype.np


def _write(t: Tensor, compute: Callable[[Array, np.dtype], Array]) -> Tensor:
    """t = compute(t's values in its compute type), stored back in place: one version bump."""
    target = t._numpy_view()
    ct = _compute_type(t)
    target[...] = compute(target.astype(ct, copy=False), ct)
    t._bump_version()
    return t


def _values(t: Tensor | Array, ct: np.dtype) -> Array:
    array = t._numpy_view() if isinstance(t, Tensor) else t
    return array.astype(ct, copy=False)


def _fma(a: Any, b: Array, c: Array, ct: np.dtype) -> Array:
    """a * b + c as ATen's float kernels compute it: rounded once in float32 (fmadd); other types
    keep numpy's two roundings."""
    return fma32(a, b, c) if ct == np.float32 else a * b + c


def _plus(x: Array, other: Array, alpha: float, ct: np.dtype) -> Array:
    """ATen's add with alpha: fma(alpha, other, x); alpha 1 is a plain sum."""
    return x + other if alpha == 1 else _fma(ct.type(alpha), other, x, ct)


def add_(t: Tensor, other: Tensor | Array, alpha: float = 1.0) -> Tensor:
    return _write(t, lambda x, ct: _plus(x, _values(other, ct), alpha, ct))


def mul_(t: Tensor, scalar: float) -> Tensor:
    return _write(t, lambda x, ct: x * ct.type(scalar))


def addcmul_(t: Tensor, a: Tensor | Array, b: Tensor | Array, value: float) -> Tensor:
    return _write(t, lambda x, ct: _fma(ct.type(value) * _values(a, ct), _values(b, ct), x, ct))


def addcdiv_(t: Tensor, a: Tensor | Array, b: Tensor | Array, value: float) -> Tensor:
    return _write(t, lambda x, ct: x + ct.type(value) * _values(a, ct) / _values(b, ct))


def lerp_(t: Tensor, end: Tensor | Array, weight: float) -> Tensor:
    """ATen's lerp: fma(w, end - x, x) for |w| < 0.5, else fma(w - 1, end - x, end)."""
    def compute(x: Array, ct: np.dtype) -> Array:
        e, w = _values(end, ct), ct.type(weight)
        if abs(weight) < 0.5:
            return _fma(w, e - x, x, ct)
        return _fma(w - ct.type(1), e - x, e, ct)
    return _write(t, compute)


def _grad_of(p: Tensor, maximize: bool, weight_decay: float) -> Array:
    """The gradient an update uses: negated for maximize, plus weight_decay * p (out of place,
    as grad.add(p, alpha=weight_decay))."""
    ct = _compute_type(p)
    grad = p._grad._numpy_view()
    grad = -grad if maximize else grad
    if weight_decay != 0:
        grad = _plus(grad.astype(ct), p._numpy_view().astype(ct), weight_decay, ct).astype(p.dtype.np)
    return grad


def _zeros_like(p: Tensor) -> Tensor:
    """State that lives with its parameter (on its device, in its layout)."""
    from engine.ops import FUNCTIONS

    return FUNCTIONS["zeros_like"](p)


def _step_counter() -> Tensor:
    return Tensor._wrap(np.array(0.0, dtype=np.float32), dtypes.float32)


def _check(name: str, value: float, low: float = 0.0) -> None:
    if not value >= low:
        raise ValueError(f"Invalid {name}: {value}")


def _params_with_grad(group: dict[str, Any]) -> Iterable[Tensor]:
    return (p for p in group["params"] if p._grad is not None)


class _Stepping(Optimizer):
    """An optimizer whose step() runs `_update` on each parameter with a gradient, under no_grad."""

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        self._opt_called = True  # what lr schedulers check to warn about stepping in the wrong order
        with grad_mode.no_grad():
            for group in self.param_groups:
                for p in _params_with_grad(group):
                    self._update(p, group, self.state[p])
        return loss

    def _update(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        raise NotImplementedError


# --------------------------------------------------------------------------- the algorithms
class SGD(_Stepping):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        _check("learning rate", lr)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                                  "foreach": foreach, "differentiable": differentiable, "fused": fused})

    def _update(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        grad = _grad_of(p, group["maximize"], group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:  # torch.clone(grad).detach(): on the gradient's device
                buf = state["momentum_buffer"] = p._grad.clone()
                buf._numpy_view()[...] = grad
            else:
                mul_(buf, momentum)
                add_(buf, grad, alpha=1 - group["dampening"])
            if group["nesterov"]:
                ct = _compute_type(p)
                grad = _plus(grad.astype(ct), _values(buf, ct), momentum, ct).astype(p.dtype.np)
            else:
                grad = buf._numpy_view()
        add_(p, grad, alpha=-group["lr"])


class Adam(_Stepping):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check("learning rate", lr)
        _check("epsilon value", eps)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        _check("weight_decay value", weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable, "fused": fused,
                                  "decoupled_weight_decay": decoupled_weight_decay})

    def _update(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        if not state:
            state["step"] = _step_counter()
            state["exp_avg"] = _zeros_like(p)
            state["exp_avg_sq"] = _zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _zeros_like(p)
        beta1, beta2 = group["betas"]
        lr, weight_decay = group["lr"], group["weight_decay"]
        step_t = state["step"]
        add_(step_t, np.float32(1))
        grad = -p._grad._numpy_view() if group["maximize"] else p._grad._numpy_view()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                mul_(p, 1 - lr * weight_decay)
            else:
                grad = _grad_of(p, group["maximize"], weight_decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        lerp_(exp_avg, grad, 1 - beta1)
        mul_(exp_avg_sq, beta2)
        addcmul_(exp_avg_sq, grad, grad, 1 - beta2)
        step = float(step_t.item())
        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        ct = _compute_type(p)
        if group["amsgrad"]:
            maximum = state["max_exp_avg_sq"]
            _write(maximum, lambda x, c: np.maximum(x, _values(exp_avg_sq, c)))
            source = maximum
        else:
            source = exp_avg_sq
        denom = np.sqrt(_values(source, ct)) / ct.type(bias_correction2_sqrt) + ct.type(group["eps"])
        addcdiv_(p, exp_avg, denom.astype(p.dtype.np), -(lr / bias_correction1))


class AdamW(Adam):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class RMSprop(_Stepping):
    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check("learning rate", lr)
        _check("epsilon value", eps)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        _check("alpha value", alpha)
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                                  "centered": centered, "weight_decay": weight_decay, "capturable": capturable,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable})

    def _update(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        if not state:
            state["step"] = _step_counter()
            state["square_avg"] = _zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = _zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = _zeros_like(p)
        alpha, ct = group["alpha"], _compute_type(p)
        add_(state["step"], np.float32(1))
        grad = _grad_of(p, group["maximize"], group["weight_decay"])
        square_avg = state["square_avg"]
        mul_(square_avg, alpha)
        addcmul_(square_avg, grad, grad, 1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            lerp_(grad_avg, grad, 1 - alpha)
            g = _values(grad_avg, ct)
            avg = np.sqrt(_fma(ct.type(-1) * g, g, _values(square_avg, ct), ct))
        else:
            avg = np.sqrt(_values(square_avg, ct))
        avg = (avg + ct.type(group["eps"])).astype(p.dtype.np)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            mul_(buf, group["momentum"])
            addcdiv_(buf, grad, avg, 1)
            add_(p, buf, alpha=-group["lr"])
        else:
            addcdiv_(p, grad, avg, -group["lr"])


class Adadelta(_Stepping):
    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check("learning rate", lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check("epsilon value", eps)
        _check("weight_decay value", weight_decay)
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "capturable": capturable, "foreach": foreach,
                                  "differentiable": differentiable})

    def _update(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        if not state:
            state["step"] = _step_counter()
            state["square_avg"] = _zeros_like(p)
            state["acc_delta"] = _zeros_like(p)
        rho, eps, ct = group["rho"], group["eps"], _compute_type(p)
        add_(state["step"], np.float32(1))
        grad = _grad_of(p, group["maximize"], group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        mul_(square_avg, rho)
        addcmul_(square_avg, grad, grad, 1 - rho)
        std = np.sqrt(_values(square_avg, ct) + ct.type(eps))
        delta = np.sqrt(_values(acc_delta, ct) + ct.type(eps))
        delta = ((delta / std).astype(p.dtype.np).astype(ct) * _values(grad, ct)).astype(p.dtype.np)
        mul_(acc_delta, rho)
        addcmul_(acc_delta, delta, delta, 1 - rho)
        add_(p, delta, alpha=-group["lr"])
