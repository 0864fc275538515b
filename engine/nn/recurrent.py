"""Recurrent layers and cells, built as torch's CPU kernels build them (ATen's RNN.cpp), so their graphs,
saved tensors and memory are torch's:

- RNN and GRU layers, LSTM in float64 or over a PackedSequence, and every cell are composites: one
  linear over the whole input sequence, then per step a linear of the hidden state added in place,
  gates from `unsafe_chunk` activated in place (sigmoid_ / tanh_), the outputs stacked.
- A float32 LSTM layer over a padded batch is one fused node, MkldnnRnnLayerBackward0, as on CPU
  torch (oneDNN): it keeps the input, weights, states and a workspace of the gates of every step.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from engine import dtypes
from engine.kernels import recurrent as kernels
from engine.nn import functional as F
from engine.nn import init
from engine.nn.module import Module
from engine.nn.utils.rnn import PackedSequence
from engine.ops import factories, indexing, pointwise, views
from engine.ops.core import record
from engine.tensor import Parameter, Tensor


# --------------------------------------------------------------------------- building blocks
def unsafe_chunk(source: Tensor, chunks: int, dim: int) -> list[Tensor]:
    """Pieces over source's memory that autograd does not treat as views (ATen's unsafe_chunk):
    each has its own version counter, so the cells may activate them in place."""
    return list(views.unsafe_split(source, source._shape[dim] // chunks, dim))


def _linear(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    return F.linear(x, weight, bias)


def _simple_cell(nonlinearity: str) -> Any:
    def cell(ih: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
        return pointwise.unary(nonlinearity, _linear(h, w_hh, b_hh).add_(ih))
    return cell


def _lstm_cell(ih: Tensor, state: tuple[Tensor, Tensor], w_hh: Tensor, b_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    hx, cx = state
    gates = _linear(hx, w_hh, b_hh).add_(ih)
    i, f, g, o = unsafe_chunk(gates, 4, 1)
    ingate, forgetgate, cellgate, outgate = i.sigmoid_(), f.sigmoid_(), g.tanh_(), o.sigmoid_()
    cy = pointwise.mul(forgetgate, cx).add_(pointwise.mul(ingate, cellgate))
    hy = pointwise.mul(outgate, pointwise.unary("tanh", cy))
    return hy, cy


def _gru_cell(ih: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    igates = unsafe_chunk(ih, 3, 1)
    hgates = unsafe_chunk(_linear(h, w_hh, b_hh), 3, 1)
    reset = hgates[0].add_(igates[0]).sigmoid_()
    update = hgates[1].add_(igates[1]).sigmoid_()
    new = pointwise.add(igates[2], hgates[2].mul_(reset)).tanh_()
    return pointwise.sub(h, new).mul_(update).add_(new)


_CELLS = {"RNN_TANH": _simple_cell("tanh"), "RNN_RELU": _simple_cell("relu"), "LSTM": _lstm_cell, "GRU": _gru_cell}


def _output_of(hidden: Any) -> Tensor:
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _full_layer(mode: str, inputs: Tensor, hidden: Any, weights: list[Tensor | None], reverse: bool) -> tuple[Tensor, Any]:
    """One direction of one layer over a padded (T, B, *) sequence."""
    w_ih, w_hh, b_ih, b_hh = weights
    steps = views.unbind(_linear(inputs, w_ih, b_ih), 0)
    cell = _CELLS[mode]
    outputs = []
    for ih in (reversed(steps) if reverse else steps):
        hidden = cell(ih, hidden, w_hh, b_hh)
        outputs.append(_output_of(hidden))
    if reverse:
        outputs.reverse()
    return indexing.stack(outputs, 0), hidden


def _slice_hidden(hidden: Any, start: int, end: int) -> Any:
    if isinstance(hidden, tuple):
        return tuple(views.narrow(h, 0, start, end - start) for h in hidden)
    return views.narrow(hidden, 0, start, end - start)


def _concat_hidden(hiddens: list[Any]) -> Any:
    if isinstance(hiddens[0], tuple):
        return tuple(indexing.cat([h[k] for h in hiddens], 0) for k in range(2))
    return indexing.cat(hiddens, 0)


def _packed_layer(mode: str, data: Tensor, batch_sizes: np.ndarray, hidden: Any,
                  weights: list[Tensor | None]) -> tuple[Tensor, Any]:
    """One forward layer over packed data: the batch shrinks as sequences end, and the hidden state of
    each finished sequence is set aside."""
    w_ih, w_hh, b_ih, b_hh = weights
    projected = _linear(data, w_ih, b_ih)
    cell = _CELLS[mode]
    outputs, finished = [], []
    offset, last = 0, int(batch_sizes[0])
    for size in batch_sizes.tolist():
        step = views.narrow(projected, 0, offset, size)
        offset += size
        if last > size:
            finished.append(_slice_hidden(hidden, size, last))
            hidden = _slice_hidden(hidden, 0, size)
        last = size
        hidden = cell(step, hidden, w_hh, b_hh)
        outputs.append(_output_of(hidden))
    finished.append(hidden)
    finished.reverse()
    return indexing.cat(outputs, 0), _concat_hidden(finished)


def _mkldnn_lstm_layer(inputs: Tensor, weights: list[Tensor | None], hx: Tensor, cx: Tensor,
                       reverse: bool) -> tuple[Tensor, Tensor, Tensor]:
    """The fused CPU LSTM layer: one MkldnnRnnLayerBackward0 node with outputs (output, hy, cy)."""
    w_ih, w_hh, b_ih, b_hh = weights
    b_ih = b_ih if b_ih is not None else factories.zeros(*w_ih._shape[:1], dtype=w_ih.dtype)
    b_hh = b_hh if b_hh is not None else factories.zeros(*w_hh._shape[:1], dtype=w_hh.dtype)
    x = inputs._numpy_view()
    out, hy, cy, workspace = kernels.lstm_layer_forward(x, w_ih._numpy_view(), w_hh._numpy_view(), b_ih._numpy_view(),
                                                        b_hh._numpy_view(), hx._numpy_view(), cx._numpy_view(), reverse)
    dt = inputs.dtype
    output_t = Tensor._wrap(np.ascontiguousarray(out, dtype=dt.np), dt)
    hy_t, cy_t = Tensor._wrap(np.ascontiguousarray(hy), dt), Tensor._wrap(np.ascontiguousarray(cy), dt)
    workspace_t = Tensor._wrap(np.ascontiguousarray(workspace), dt)

    saved = {"input": inputs, "weight0": w_ih, "weight1": w_hh, "weight2": b_ih, "weight3": b_hh, "hx_": hx, "cx_": cx}
    outputs = {"result0": output_t, "result1": hy_t, "result2": cy_t, "result3": workspace_t}
    record("MkldnnRnnLayerBackward0", (output_t, hy_t, cy_t), (inputs, w_ih, w_hh, b_ih, b_hh, hx, cx), None,
           saved, outputs, values={"_reverse": reverse})
    return output_t, hy_t, cy_t


def _dropout_between(x: Tensor, p: float, train: bool, layer: int, layers: int) -> Tensor:
    return F.dropout(x, p, True) if p != 0 and train and layer < layers - 1 else x


def run_layers(mode: str, inputs: Any, hx: Any, weights: list[list[Tensor | None]], num_layers: int,
               dropout: float, train: bool, bidirectional: bool, batch_first: bool,
               batch_sizes: np.ndarray | None = None) -> tuple[Tensor, Any]:
    """ATen's stack of layers: per layer each direction, outputs concatenated, dropout between layers;
    the final hidden states stacked (h and c separately for LSTM)."""
    directions = 2 if bidirectional else 1
    lstm = mode == "LSTM"
    fused = lstm and batch_sizes is None and inputs.dtype in (dtypes.float32, dtypes.bfloat16)
    if fused:  # the fused layer selects each layer's state as it goes (SelectBackward0, not UnbindBackward0)
        initial: list[Any] = []
    elif lstm:
        initial = list(zip(views.unbind(hx[0], 0), views.unbind(hx[1], 0)))
    else:
        initial = list(views.unbind(hx, 0))
    if batch_sizes is not None and bidirectional:
        raise NotImplementedError("bidirectional recurrent layers over a PackedSequence are not supported by this "
                                  "engine")
    layer_input = views.transpose(inputs, 0, 1) if batch_first and batch_sizes is None else inputs
    finals: list[Any] = []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            if fused:
                out, hy, cy = _mkldnn_lstm_layer(layer_input, weights[index], views.select(hx[0], 0, index),
                                                 views.select(hx[1], 0, index), direction == 1)
                outputs.append(out)
                finals.append((hy, cy))
            elif batch_sizes is not None:
                out, hidden = _packed_layer(mode, layer_input, batch_sizes, initial[index], weights[index])
                outputs.append(out)
                finals.append(hidden)
            else:
                out, hidden = _full_layer(mode, layer_input, initial[index], weights[index], direction == 1)
                outputs.append(out)
                finals.append(hidden)
        layer_input = outputs[0] if directions == 1 else indexing.cat(outputs, -1)
        layer_input = _dropout_between(layer_input, dropout, train, layer, num_layers)
    output = layer_input
    if batch_first and batch_sizes is None:  # LSTM transposes back as a view, RNN and GRU in place
        output = views.transpose(output, 0, 1) if lstm else views.transpose_(output, 0, 1)
    if lstm:
        return output, (indexing.stack([h for h, _ in finals], 0), indexing.stack([c for _, c in finals], 0))
    return output, indexing.stack(finals, 0)


# --------------------------------------------------------------------------- modules
class RNNBase(Module):
    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                          f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          UserWarning, stacklevel=2)
        if proj_size:
            raise NotImplementedError("proj_size is not supported by this engine")
        gate_size = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden_size
        self._flat_weights_names: list[str] = []
        directions = 2 if bidirectional else 1
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else hidden_size * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                for name, shape in shapes:
                    full = f"{name}_l{layer}{suffix}"
                    setattr(self, full, Parameter(factories.empty(*shape, dtype=dtype)))
                    self._flat_weights_names.append(full)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self) -> list[Tensor]:
        return [getattr(self, name) for name in self._flat_weights_names]

    def _layer_weights(self) -> list[list[Tensor | None]]:
        per = 4 if self.bias else 2
        flat = self._flat_weights
        groups = [flat[i:i + per] for i in range(0, len(flat), per)]
        return [g if self.bias else [g[0], g[1], None, None] for g in groups]

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    def _zeros(self, batch: int, like: Tensor) -> Tensor:
        directions = 2 if self.bidirectional else 1
        return factories.zeros(self.num_layers * directions, batch, self.hidden_size, dtype=like.dtype)

    def forward(self, input: Any, hx: Any = None) -> Any:  # noqa: A002
        lstm = self.mode == "LSTM"
        if isinstance(input, PackedSequence):
            data, batch_sizes = input.data, input.batch_sizes._numpy_view()
            batch = int(batch_sizes[0])
            if hx is None:
                hx = (self._zeros(batch, data), self._zeros(batch, data)) if lstm else self._zeros(batch, data)
            else:
                hx = _permute_hidden(hx, input.sorted_indices)
            output, hidden = run_layers(self.mode, data, hx, self._layer_weights(), self.num_layers, self.dropout,
                                        self.training, self.bidirectional, False, batch_sizes)
            packed = PackedSequence(output, input.batch_sizes, input.sorted_indices, input.unsorted_indices)
            return packed, _permute_hidden(hidden, input.unsorted_indices)
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
        if input._shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input._shape[-1]}")
        batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = views.unsqueeze(input, batch_dim)  # noqa: A001
            if hx is not None:
                hx = tuple(views.unsqueeze(h, 1) for h in hx) if lstm else views.unsqueeze(hx, 1)
        batch = input._shape[batch_dim]
        if hx is None:
            hx = (self._zeros(batch, input), self._zeros(batch, input)) if lstm else self._zeros(batch, input)
        output, hidden = run_layers(self.mode, input, hx, self._layer_weights(), self.num_layers, self.dropout,
                                    self.training, self.bidirectional, self.batch_first)
        if not batched:
            output = views.squeeze(output, batch_dim)
            hidden = tuple(views.squeeze(h, 1) for h in hidden) if lstm else views.squeeze(hidden, 1)
        return output, hidden


def _permute_hidden(hidden: Any, permutation: Tensor | None) -> Any:
    if permutation is None:
        return hidden
    if isinstance(hidden, tuple):
        return tuple(indexing.index_select(h, 1, permutation) for h in hidden)
    return indexing.index_select(hidden, 1, permutation)


class RNN(RNNBase):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity



class LSTM(RNNBase):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class RNNCellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(factories.empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(factories.empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(factories.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(factories.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        return text + (f", nonlinearity={nonlinearity}" if nonlinearity != "tanh" else "")

    def _prepare(self, input: Tensor, hx: Any, states: int) -> tuple[Tensor, Any, bool]:  # noqa: A002
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if hx is not None:
            for i, h in enumerate(hx if states == 2 else (hx,)):
                if h.ndim not in (1, 2):
                    which = f"hx[{i}]" if states == 2 else "hidden"
                    raise ValueError(f"{name}: Expected {which} to be 1D or 2D, got {h.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = views.unsqueeze(input, 0)  # noqa: A001
        if hx is None:
            zeros = [factories.zeros(input._shape[0], self.hidden_size, dtype=input.dtype) for _ in range(states)]
            hx = tuple(zeros) if states == 2 else zeros[0]
        elif not batched:
            hx = tuple(views.unsqueeze(h, 0) for h in hx) if states == 2 else views.unsqueeze(hx, 0)
        self._check_sizes(input, hx if states == 2 else (hx,))
        return input, hx, batched

    def _check_sizes(self, input: Tensor, hidden: tuple[Tensor, ...]) -> None:  # noqa: A002
        """ATen's check_rnn_cell_forward_input and _hidden, in its words (hidden0, hidden1: LSTM's h, c)."""
        if input._shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input._shape[1]} expected {self.input_size}")
        for label, h in enumerate(hidden):
            if input._shape[0] != h._shape[0]:
                raise RuntimeError(f"Input batch size {input._shape[0]} doesn't match hidden{label} batch size "
                                   f"{h._shape[0]}")
            if h._shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {h._shape[1]}, expected "
                                   f"{self.hidden_size}")


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        x, h, batched = self._prepare(input, hx, 1)
        result = pointwise.unary(self.nonlinearity, pointwise.add(_linear(x, self.weight_ih, self.bias_ih),
                                                                  _linear(h, self.weight_hh, self.bias_hh)))
        return result if batched else views.squeeze(result, 0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        x, state, batched = self._prepare(input, hx, 2)
        hy, cy = _lstm_cell(_linear(x, self.weight_ih, self.bias_ih), state, self.weight_hh, self.bias_hh)
        return (hy, cy) if batched else (views.squeeze(hy, 0), views.squeeze(cy, 0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        x, h, batched = self._prepare(input, hx, 1)
        result = _gru_cell(_linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return result if batched else views.squeeze(result, 0)


__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

