# torch.optim.lr_scheduler as the optimizer docs show it: step the optimizer, then the
# scheduler, once per epoch, and read get_last_lr(); one of each common schedule.
import torch
from torch import nn, optim
from torch.optim import lr_scheduler

torch.manual_seed(0)
model = nn.Linear(2, 1)


def run(make, epochs=6, metric=None):
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = make(optimizer)
    lrs = []
    for epoch in range(epochs):
        optimizer.step()
        if metric is None:
            scheduler.step()
        else:
            scheduler.step(metric[epoch])
        lrs.append(round(optimizer.param_groups[0]['lr'], 6))
    return type(scheduler).__name__, lrs


print(run(lambda o: lr_scheduler.StepLR(o, step_size=2, gamma=0.5)))
print(run(lambda o: lr_scheduler.MultiStepLR(o, milestones=[1, 4], gamma=0.1)))
print(run(lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9)))
print(run(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01)))
print(run(lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch)))
print(run(lambda o: lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=3)))
print(run(lambda o: lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=7)))
print(run(lambda o: lr_scheduler.ReduceLROnPlateau(o, mode='min', factor=0.5, patience=1),
          metric=[1.0, 0.9, 0.95, 0.97, 0.99, 0.5]))
optimizer = optim.Adam(model.parameters(), lr=0.01)
scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
for _ in range(3):
    optimizer.step()
    scheduler.step()
state = scheduler.state_dict()
print(sorted(state), state['last_epoch'], scheduler.get_last_lr())
print(optimizer.param_groups[0]['initial_lr'])
