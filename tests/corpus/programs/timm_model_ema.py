# timm's ModelEmaV2: a deep copy of the model kept in eval mode, updated after each
# optimizer step from the model's state_dict under no_grad.
from copy import deepcopy
import torch
import torch.nn as nn


class ModelEmaV2(nn.Module):
    def __init__(self, model, decay=0.9999):
        super(ModelEmaV2, self).__init__()
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay

    def _update(self, model, update_fn):
        with torch.no_grad():
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                ema_v.copy_(update_fn(ema_v, model_v))

    def update(self, model):
        self._update(model, update_fn=lambda e, m: self.decay * e + (1. - self.decay) * m)

    def set(self, model):
        self._update(model, update_fn=lambda e, m: m)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
ema = ModelEmaV2(model, decay=0.9)
print(ema.module[0].weight is model[0].weight, torch.equal(ema.module[0].weight, model[0].weight))
print(ema.module.training, model.training, ema.module[0].weight.requires_grad)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
x, y = torch.randn(8, 3), torch.randn(8, 1)
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    ema.update(model)
    print(step, f"{loss.item():.4f}", f"{(ema.module[3].weight - model[3].weight).abs().max().item():.5f}")
print(ema.module[1].num_batches_tracked, ema.module[1].running_mean)
print(ema.module[0].weight._version, ema.module[0].weight.grad)
