# d2l.ai 10.2 GRU from scratch, and an RNN cell unrolled by hand: parameters made with
# requires_grad_, a time loop over one-hot inputs with torch.stack of the outputs, gradient
# clipping by hand (the norm over all parameters), detach() of the state between batches, and
# the same recurrence through nn.GRUCell / nn.RNNCell for comparison of shapes.
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
vocab, num_hiddens, batch, steps = 6, 5, 2, 4


def init_gru_params(num_inputs, num_hiddens, sigma=0.01):
    init_weight = lambda *shape: (torch.randn(*shape) * sigma).requires_grad_()
    triple = lambda: (init_weight(num_inputs, num_hiddens), init_weight(num_hiddens, num_hiddens),
                      torch.zeros(num_hiddens, requires_grad=True))
    W_xz, W_hz, b_z = triple()  # update gate
    W_xr, W_hr, b_r = triple()  # reset gate
    W_xh, W_hh, b_h = triple()  # candidate hidden state
    W_hq = init_weight(num_hiddens, vocab)
    b_q = torch.zeros(vocab, requires_grad=True)
    return [W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q]


def gru(inputs, H, params):
    W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q = params
    outputs = []
    for X in inputs:
        Z = torch.sigmoid(torch.matmul(X, W_xz) + torch.matmul(H, W_hz) + b_z)
        R = torch.sigmoid(torch.matmul(X, W_xr) + torch.matmul(H, W_hr) + b_r)
        H_tilde = torch.tanh(torch.matmul(X, W_xh) + torch.matmul(R * H, W_hh) + b_h)
        H = Z * H + (1 - Z) * H_tilde
        outputs.append(torch.matmul(H, W_hq) + b_q)
    return torch.cat(outputs, dim=0), H


def grad_clipping(params, theta):
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


params = init_gru_params(vocab, num_hiddens)
tokens = torch.randint(0, vocab, (batch, steps + 1))
state = torch.zeros((batch, num_hiddens))
for epoch in range(3):
    X, Y = tokens[:, :-1], tokens[:, 1:]
    inputs = F.one_hot(X.T, vocab).type(torch.float32)
    state = state.detach()
    y_hat, state = gru(inputs, state, params)
    loss = F.cross_entropy(y_hat, Y.T.reshape(-1))
    for p in params:
        p.grad = None
    loss.backward()
    norm = grad_clipping(params, 0.01)
    with torch.no_grad():
        for p in params:
            p -= 1.0 * p.grad
    print(f"epoch {epoch}: loss {loss.item():.4f}, grad norm {norm.item():.6f}")
print(y_hat.shape, state.shape, state.requires_grad, state.grad_fn is not None)
print(params[0].grad.abs().max() <= 0.01)

# an Elman RNN cell by hand next to nn.RNNCell and nn.GRUCell
cell = nn.RNNCell(vocab, num_hiddens, nonlinearity="tanh")
h = torch.zeros(batch, num_hiddens)
hs = []
for x in inputs:
    h = torch.tanh(x @ cell.weight_ih.T + cell.bias_ih + h @ cell.weight_hh.T + cell.bias_hh)
    hs.append(h)
by_hand = torch.stack(hs)
h = torch.zeros(batch, num_hiddens)
with_cell = torch.stack([h := cell(x, h) for x in inputs])
print(by_hand.shape, torch.allclose(by_hand, with_cell, atol=1e-6))
gcell = nn.GRUCell(vocab, num_hiddens)
hg = gcell(inputs[0])
print(hg.shape, hg.grad_fn.name() if hg.grad_fn is not None else None)
try:
    gcell(inputs[0], torch.zeros(batch, num_hiddens + 1))
except RuntimeError as e:
    print(e)
