# zero_grad(set_to_none=True), the default since torch 2.0, against zeroing in place:
# what .grad is afterwards, which storage the next backward writes, and versions.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3)
model(x).sum().backward()
g = model.weight.grad
print(g._version, g)
opt.zero_grad(set_to_none=False)
print(model.weight.grad is g, g._version, g.abs().sum())
model(x).sum().backward()
print(model.weight.grad is g, g._version)
opt.zero_grad()
print(model.weight.grad, g._version)
model(x).sum().backward()
print(model.weight.grad is g, model.weight.grad._version)
model.zero_grad(set_to_none=False)
print(model.bias.grad)
grads = [p.grad for p in model.parameters()]
print([t.shape for t in grads])
