# d2l.ai 10.1-10.3: LSTM and GRU layers, a stacked LSTM, and the chapter's gradient
# clipping by global norm.
import torch
from torch import nn

torch.manual_seed(0)
num_inputs, num_hiddens = 6, 8
lstm = nn.LSTM(num_inputs, num_hiddens)
gru = nn.GRU(num_inputs, num_hiddens)
deep = nn.LSTM(num_inputs, num_hiddens, num_layers=2)
print(lstm, gru, deep)
X = torch.randn(4, 3, num_inputs)
out, (h, c) = lstm(X)
print(out.shape, h.shape, c.shape)
gout, gh = gru(X)
print(gout.shape, gh.shape)
dout, (dh, dc) = deep(X)
print(dout.shape, dh.shape, dc.shape)
print(deep.weight_ih_l1.shape, deep.bias_hh_l0.shape)


def grad_clipping(net, theta):
    params = [p for p in net.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


loss = (dout ** 2).sum() + (gout ** 2).sum()
loss.backward()
before = grad_clipping(deep, 0.5)
after = torch.sqrt(sum(torch.sum(p.grad ** 2) for p in deep.parameters()))
print(f"{before.item():.4f} {after.item():.4f}")
print(gru.weight_hh_l0.grad.abs().sum())
print(out[-1] - h[0])
