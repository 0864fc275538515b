# "What is a state_dict": key order per module, buffers, non-persistent buffers,
# strict and non-strict loading and the keys it reports.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.register_buffer("scale", torch.ones(3))
        self.register_buffer("cache", torch.zeros(3), persistent=False)
        self.bn = nn.BatchNorm1d(3)
        self.fc2 = nn.Linear(3, 2)
        self.register_parameter("temperature", nn.Parameter(torch.tensor(1.0)))

    def forward(self, x):
        return self.fc2(self.bn(self.fc1(x) * self.scale)) / self.temperature


torch.manual_seed(0)
net = Net()
sd = net.state_dict()
print(list(sd.keys()))
print(type(sd).__name__, sd['bn.num_batches_tracked'])
print([name for name, _ in net.named_buffers()])
net.scale = torch.full((3,), 2.0)
print(list(net.state_dict().keys())[:4])
other = Net()
result = other.load_state_dict(net.state_dict())
print(result)
print(other.scale)
partial = {k: v for k, v in net.state_dict().items() if not k.startswith('fc2')}
partial['extra.weight'] = torch.zeros(1)
result = other.load_state_dict(partial, strict=False)
print(result.missing_keys, result.unexpected_keys)
try:
    other.load_state_dict(partial)
except RuntimeError as e:
    print(str(e).splitlines()[0])
print(sd['fc1.weight'].requires_grad, sd['fc1.weight']._version, sd['fc1.weight'].grad_fn)
sd['fc1.bias'].zero_()
print(net.fc1.bias)
