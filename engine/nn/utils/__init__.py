"""torch.nn.utils: gradient clipping, flattening parameters into one vector, packed sequences."""

from __future__ import annotations

from engine.nn.utils import rnn
from engine.nn.utils.clip_grad import (
    clip_grad_norm_,
    clip_grad_value_,
    get_total_norm,
    parameters_to_vector,
    vector_to_parameters,
)

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "parameters_to_vector", "rnn",
           "vector_to_parameters"]
