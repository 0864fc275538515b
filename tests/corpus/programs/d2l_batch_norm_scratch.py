# d2l.ai 8.5 "Batch Normalization" from scratch: moving statistics kept as plain
# tensors, and a module that moves them to the input's device.
import torch
from torch import nn


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        shape = (1, num_features) if num_dims == 2 else (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.1)
        return Y


torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 4, kernel_size=3, bias=False), BatchNorm(4, num_dims=4), nn.Sigmoid(),
                    nn.Flatten(), nn.Linear(4 * 6 * 6, 3), BatchNorm(3, num_dims=2))
X = torch.randn(5, 1, 8, 8)
out = net(X)
((out - torch.randn(5, 3)) ** 2).mean().backward()
print(out.shape)
print(net[1].moving_var.reshape(-1))
print(net[1].beta.grad.reshape(-1).round(decimals=2))
reference = nn.BatchNorm2d(4)
print(reference(net[0](X)).std(dim=(0, 2, 3)))
print(reference.running_var, reference.num_batches_tracked)
with torch.no_grad():
    print(net(X)[:2])
