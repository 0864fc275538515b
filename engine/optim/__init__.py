"""torch.optim: optimizers whose state is keyed by the parameter itself, updated in place under
no_grad with torch's single-tensor (CPU) arithmetic, so parameters, versions and state tensors
match torch step for step."""

from __future__ import annotations

from engine.optim import lr_scheduler
from engine.optim.algorithms import SGD, Adadelta, Adam, AdamW, RMSprop
from engine.optim.optimizer import Optimizer

__all__ = ["SGD", "Adadelta", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
