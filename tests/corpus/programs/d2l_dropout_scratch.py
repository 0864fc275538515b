# d2l.ai 5.6 "Dropout": dropout written by hand with a random mask, and the same net with
# nn.Dropout in train and eval mode.
import torch
from torch import nn


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


torch.manual_seed(0)
X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print('dropout_p = 0:', dropout_layer(X, 0))
print('dropout_p = 0.5:', dropout_layer(X, 0.5))
print('dropout_p = 1:', dropout_layer(X, 1))

dropout1, dropout2 = 0.2, 0.5
net = nn.Sequential(nn.Flatten(),
                    nn.Linear(16, 32), nn.ReLU(), nn.Dropout(dropout1),
                    nn.Linear(32, 32), nn.ReLU(), nn.Dropout(dropout2),
                    nn.Linear(32, 4))
x = torch.randn(3, 16)
train_out = net(x)
net.eval()
eval_out = net(x)
print(net.training, net[3].training)
print(eval_out)
print(train_out.grad_fn, eval_out.grad_fn)
