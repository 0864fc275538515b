# Everyday optimizer bookkeeping: state keyed by the parameter itself, Adam's step
# counter as a tensor, state_dict / load_state_dict between two optimizers, adding a
# param group, and AdamW's decoupled weight decay.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
x, y = torch.randn(5, 3), torch.randn(5, 2)
for _ in range(2):
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
state = optimizer.state[model.weight]
print(sorted(state.keys()), state['step'], state['exp_avg'].shape)
print(model.weight in optimizer.state, len(optimizer.state))
sd = optimizer.state_dict()
print(list(sd['state'].keys()), sd['param_groups'][0]['params'])
print(sd['state'][1]['exp_avg_sq'])

twin = nn.Linear(3, 2)
twin.load_state_dict(model.state_dict())
twin_opt = torch.optim.Adam(twin.parameters(), lr=0.5)
twin_opt.load_state_dict(sd)
print(twin_opt.param_groups[0]['lr'], twin_opt.state[twin.bias]['step'])
print(twin_opt.state[twin.weight]['exp_avg'] is state['exp_avg'])
for opt, net in ((optimizer, model), (twin_opt, twin)):
    opt.zero_grad()
    nn.functional.mse_loss(net(x), y).backward()
    opt.step()
print(torch.allclose(model.weight, twin.weight), twin_opt.state[twin.weight]['step'])

extra = nn.Parameter(torch.zeros(2))
optimizer.add_param_group({'params': [extra], 'lr': 0.01})
print(len(optimizer.param_groups), optimizer.param_groups[1]['betas'])
adamw = torch.optim.AdamW([nn.Parameter(torch.ones(3))], lr=0.1, weight_decay=0.5)
p = adamw.param_groups[0]['params'][0]
p.grad = torch.zeros(3)
adamw.step()
print(p, adamw)
