# timm's layers: drop_path / DropPath (stochastic depth with an in-place bernoulli_ and
# div_), Squeeze-and-Excitation, the ViT Mlp and LayerScale.
import torch
import torch.nn as nn


def drop_path(x, drop_prob: float = 0., training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0. or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob: float = 0., scale_by_keep: bool = True):
        super(DropPath, self).__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training, self.scale_by_keep)

    def extra_repr(self):
        return f'drop_prob={round(self.drop_prob, 3):0.3f}'


class SEModule(nn.Module):
    def __init__(self, channels, rd_channels):
        super(SEModule, self).__init__()
        self.fc1 = nn.Conv2d(channels, rd_channels, kernel_size=1, bias=True)
        self.act = nn.ReLU(inplace=True)
        self.fc2 = nn.Conv2d(rd_channels, channels, kernel_size=1, bias=True)
        self.gate = nn.Sigmoid()

    def forward(self, x):
        x_se = x.mean((2, 3), keepdim=True)
        x_se = self.fc1(x_se)
        x_se = self.act(x_se)
        x_se = self.fc2(x_se)
        return x * self.gate(x_se)


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, drop=0.):
        super().__init__()
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.drop1 = nn.Dropout(drop)
        self.fc2 = nn.Linear(hidden_features, in_features)

    def forward(self, x):
        return self.fc2(self.drop1(self.act(self.fc1(x))))


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


torch.manual_seed(42)
dp = DropPath(0.25)
print(dp)
x = torch.randn(8, 3, 4)
print(dp(x)[:, 0, 0])
dp.eval()
print(dp(x) is x)
se = SEModule(6, 2)
feat = torch.randn(2, 6, 5, 5, requires_grad=True)
out = se(feat)
out.sum().backward()
print(out.shape, feat.grad.abs().sum())
mlp, ls = Mlp(4, 16), LayerScale(4)
tokens = torch.randn(2, 3, 4)
y = tokens + ls(mlp(tokens))
print(y.grad_fn, ls.gamma)
ls_inplace = LayerScale(4, inplace=True)
h = mlp(tokens)
z = ls_inplace(h)
print(z is h, h._version, h.grad_fn)
