# torch.nn.utils in a training loop: gradient accumulation over micro-batches,
# clip_grad_norm_ (its returned total norm), clip_grad_value_, and flattening the
# parameters into one vector and back.
import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
data, target = torch.randn(12, 4), torch.randn(12, 1)
accumulation = 3
for step, start in enumerate(range(0, 12, 4)):
    loss = nn.functional.mse_loss(model(data[start:start + 4]), target[start:start + 4]) / accumulation
    loss.backward()
    if (step + 1) % accumulation == 0:
        total_norm = clip_grad_norm_(model.parameters(), max_norm=0.5)
        print(f"total norm before clipping: {total_norm.item():.5f}")
        clipped = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        print(f"after: {clipped.item():.5f}")
        optimizer.step()
        optimizer.zero_grad()
print(total_norm.grad_fn, total_norm.requires_grad)

model(data).sum().backward()
clip_grad_value_(model.parameters(), clip_value=0.1)
print(model[2].weight.grad, model[0].bias.grad.abs().max())
inf_norm = clip_grad_norm_(model.parameters(), 1.0, norm_type=float('inf'))
print(inf_norm)

vec = parameters_to_vector(model.parameters())
print(vec.shape, vec.grad_fn)
with torch.no_grad():
    vector_to_parameters(torch.zeros_like(vec), model.parameters())
print(model[2].weight, model[0].weight._version)
vector_to_parameters(vec.detach(), model.parameters())
print(model[2].bias, model[2].bias.is_leaf)
