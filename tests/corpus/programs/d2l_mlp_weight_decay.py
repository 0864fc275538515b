# d2l.ai 5.2 / 3.7: an MLP initialised through net.apply, trained with SGD whose
# weight decay is set per parameter group.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction='none')
wd = 3
trainer = torch.optim.SGD([
    {"params": net[1].weight, 'weight_decay': wd},
    {"params": net[1].bias},
    {"params": net[3].parameters()}], lr=0.1)
print(len(trainer.param_groups), trainer.param_groups[0]['weight_decay'], trainer.param_groups[1]['weight_decay'])

X = torch.randn(32, 1, 8, 8)
y = torch.randint(0, 10, (32,))
for epoch in range(5):
    trainer.zero_grad()
    l = loss(net(X), y)
    l.mean().backward()
    trainer.step()
    print(f"epoch {epoch}: loss {l.mean().item():.5f}, w norm {net[1].weight.norm().item():.5f}")
print(l.shape, l.grad_fn)
