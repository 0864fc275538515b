# Evaluation and checkpoints the way training scripts write them: model.eval() with Dropout and
# BatchNorm, torch.no_grad() and torch.inference_mode() evaluation, state_dict keys and buffers,
# a save/load round trip through an in-memory file, load_state_dict with missing and unexpected
# keys (strict and not), a shape mismatch, an optimizer state round trip, and copying weights
# between models with copy_ under no_grad.
import io
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5))
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.features(x))


torch.manual_seed(0)
model = Net()
x = torch.randn(6, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for _ in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
print(model.training, model.features[1].num_batches_tracked, model.features[1].running_mean)

model.eval()
print(model.training, model.features[3].training)
with torch.no_grad():
    a = model(x)
    b = model(x)
print(torch.equal(a, b), a.requires_grad, a.grad_fn)
with torch.inference_mode():
    c = model(x)
print(c.is_inference(), torch.equal(a, c))
try:
    c.add_(1)
except RuntimeError as e:
    print(e)

sd = model.state_dict()
print(list(sd.keys()))
print(sd["features.1.num_batches_tracked"], sd["head.weight"].requires_grad, sd["head.weight"].grad_fn)
buffer = io.BytesIO()
torch.save({"model": sd, "optim": opt.state_dict(), "epoch": 2}, buffer)
buffer.seek(0)
checkpoint = torch.load(buffer)
fresh = Net()
print(fresh.load_state_dict(checkpoint["model"]))
fresh.eval()
with torch.no_grad():
    print(torch.equal(fresh(x), a), checkpoint["epoch"])
fresh_opt = torch.optim.SGD(fresh.parameters(), lr=0.1, momentum=0.9)
fresh_opt.load_state_dict(checkpoint["optim"])
print(fresh_opt.state_dict()["param_groups"][0]["momentum"],
      torch.equal(fresh_opt.state_dict()["state"][0]["momentum_buffer"], opt.state_dict()["state"][0]["momentum_buffer"]))

partial = {k: v for k, v in sd.items() if not k.startswith("head")}
partial["extra.weight"] = torch.zeros(1)
result = fresh.load_state_dict(partial, strict=False)
print(result.missing_keys, result.unexpected_keys)
try:
    fresh.load_state_dict(partial)
except RuntimeError as e:
    print(e)
bad = dict(sd)
bad["head.weight"] = torch.zeros(3, 8)
try:
    fresh.load_state_dict(bad)
except RuntimeError as e:
    print(e)

target = Net()
with torch.no_grad():
    for p_src, p_dst in zip(model.parameters(), target.parameters()):
        p_dst.copy_(p_src)
print(all(torch.equal(p, q) for p, q in zip(model.parameters(), target.parameters())))
print(target.head.weight._version, target.head.weight.is_leaf)
try:
    target.head.weight.copy_(model.head.weight)
except RuntimeError as e:
    print(e)
