"""torch.autograd: grad mode, backward, autograd.grad, custom Functions, hooks and the graph's node types."""

from __future__ import annotations

from engine.autograd import functional, graph
from engine.autograd.api import backward, grad
from engine.autograd.function import Function, FunctionCtx, once_differentiable
from engine.autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from engine.autograd.gradcheck import gradcheck, gradgradcheck
from engine.autograd.node import AccumulateGrad, Node, SavedTensor
from engine.autograd.variable import Variable

__all__ = [
    "AccumulateGrad", "Function", "FunctionCtx", "Node", "SavedTensor", "backward", "enable_grad", "functional",
    "grad", "gradcheck", "gradgradcheck", "graph", "inference_mode", "no_grad", "once_differentiable", "set_grad_enabled", "Variable",
]
