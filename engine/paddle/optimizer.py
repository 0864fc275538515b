"""paddle.optimizer: SGD, Momentum and Adam, updating parameters as Paddle 3.3.1 does.

Every step writes the new values into the parameter's own buffer without autograd and without a
version bump (measured: `w.inplace_version` stays 0 after `opt.step()`). Parameters that stop
gradient or have no gradient are skipped. A float `weight_decay` is L2 decay: SGD and Adam add
`coeff * param` to the gradient before the update (a new tensor; `.grad` is untouched), Momentum
does it inside its update. `clear_grad()` zero-fills the gradients (they stay, as zeros);
`clear_grad(set_to_zero=False)` drops them. The arithmetic is float32 for float32 parameters,
in the kernels' order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from engine.paddle.fused import fma32
from engine.paddle.tensor import Tensor, quietly


def _fma(a: Any, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once for float32 (the kernels' fused multiply-add), plainly otherwise."""
    if np.asarray(c).dtype == np.float32:
        return fma32(a, b, c)
    return a * b + c


class Optimizer:
    def __init__(self, learning_rate: float = 0.001, parameters: Iterable[Any] | None = None,
                 weight_decay: Any = None, grad_clip: Any = None, name: str | None = None) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if not isinstance(learning_rate, (float, int)):
            raise TypeError(f"learning rate should be float or LRScheduler, got {type(learning_rate)} here")
        if parameters is None:
            raise AttributeError("parameters argument given to the Optimizer should not be None in dygraph mode.")
        self._learning_rate = float(learning_rate)
        self._parameter_list = [p for group in _groups(parameters) for p in group]
        self._decay = float(weight_decay) if isinstance(weight_decay, (int, float)) else None
        self._accumulators: dict[int, dict[str, np.ndarray]] = {}

    def get_lr(self) -> float:
        return self._learning_rate

    def set_lr(self, value: float) -> None:
        self._learning_rate = float(value)

    def _trainable(self) -> list[Tensor]:
        return [p for p in self._parameter_list if not p.stop_gradient and p._t._grad is not None]

    def _decayed(self, p: Tensor) -> np.ndarray:
        """The gradient with L2 decay added (scale then add, in the parameter's dtype)."""
        grad = p._t._grad._numpy_view()
        if self._decay is None:
            return grad
        return grad + p._t._numpy_view() * grad.dtype.type(self._decay)

    def step(self) -> None:
        for p in self._trainable():
            t = p._t
            new = self._update(p, t._numpy_view().copy())
            quietly(t, lambda t=t, new=new: np.copyto(t._numpy_view(), new))

    def _update(self, p: Tensor, values: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def clear_grad(self, set_to_zero: bool = True) -> None:
        for p in self._parameter_list:
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad

    def minimize(self, loss: Tensor, startup_program: Any = None, parameters: Any = None,
                 no_grad_set: Any = None) -> tuple[list, list[tuple[Tensor, Tensor]]]:
        """Apply the gradients backward already computed (dygraph minimize does not run backward)."""
        params_grads = [(p, p.grad) for p in self._trainable()]
        self.step()
        return [], params_grads

    def state_dict(self) -> dict[str, Any]:
        return {}


def _groups(parameters: Iterable[Any]) -> list[list[Tensor]]:
    items = list(parameters)
    if items and isinstance(items[0], dict):
        return [list(group["params"]) for group in items]
    return [items]


class SGD(Optimizer):
    """param - learning_rate * grad, one fused multiply-add (the kernel's axpy)."""

    def _update(self, p: Tensor, values: np.ndarray) -> np.ndarray:
        grad = self._decayed(p)
        return _fma(-values.dtype.type(self._learning_rate), grad, values)


class Momentum(Optimizer):
    """velocity = momentum * velocity + grad (+ coeff * param); param -= lr * velocity (or the
    Nesterov form)."""

    def __init__(self, learning_rate: float = 0.001, momentum: float = 0.9, parameters: Iterable[Any] | None = None,
                 use_nesterov: bool = False, weight_decay: Any = None, grad_clip: Any = None,
                 multi_precision: bool = False, rescale_grad: float = 1.0, use_multi_tensor: bool = False,
                 name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._momentum, self._use_nesterov = momentum, use_nesterov

    def _update(self, p: Tensor, values: np.ndarray) -> np.ndarray:
        kind = values.dtype.type
        grad = p._t._grad._numpy_view()
        if self._decay is not None:
            grad = grad + kind(self._decay) * values
        state = self._accumulators.setdefault(id(p), {"velocity": np.zeros_like(values)})
        velocity = state["velocity"] * kind(self._momentum) + grad
        state["velocity"] = velocity
        lr = kind(self._learning_rate)
        if self._use_nesterov:
            return values - (grad + velocity * kind(self._momentum)) * lr
        return values - lr * velocity


class Adam(Optimizer):
    """moment1/moment2 running averages; param -= lr_t * m1 / (sqrt(m2) + eps_t), with the bias
    corrections folded into lr_t and eps_t as Paddle's CPU kernel folds them."""

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8,
                 parameters: Iterable[Any] | None = None, weight_decay: Any = None, grad_clip: Any = None,
                 lazy_mode: bool = False, multi_precision: bool = False, use_multi_tensor: bool = False,
                 amsgrad: bool = False, name: str | None = None) -> None:
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon

    def _update(self, p: Tensor, values: np.ndarray) -> np.ndarray:
        kind = values.dtype.type
        grad = self._decayed(p)
        state = self._accumulators.setdefault(id(p), {
            "moment1": np.zeros_like(values), "moment2": np.zeros_like(values),
            "beta1_pow": np.array(self._beta1, dtype=values.dtype), "beta2_pow": np.array(self._beta2, dtype=values.dtype)})
        b1, b2 = kind(self._beta1), kind(self._beta2)
        m1 = _fma(b1, state["moment1"], (kind(1) - b1) * grad)
        m2 = _fma(b2, state["moment2"], (kind(1) - b2) * grad * grad)
        b1p, b2p = state["beta1_pow"], state["beta2_pow"]
        lr = kind(self._learning_rate) * (np.sqrt(kind(1) - b2p) / (kind(1) - b1p))
        eps = kind(self._epsilon) * np.sqrt(kind(1) - b2p)
        new = _fma(-lr, m1 / (np.sqrt(m2) + eps), values)
        state.update(moment1=m1, moment2=m2, beta1_pow=b1p * b1, beta2_pow=b2p * b2)
        return new


__all__ = ["SGD", "Adam", "Momentum", "Optimizer"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.optimizer", name)
