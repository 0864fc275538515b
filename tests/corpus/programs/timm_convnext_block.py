# timm / ConvNeXt: the block with a 7x7 depthwise convolution, channels-last LayerNorm
# through permute, an inverted MLP, layer scale and the residual, plus GroupNorm and
# adaptive max pooling in a small head.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim, layer_scale_init_value=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(layer_scale_init_value * torch.ones((dim)), requires_grad=True)

    def forward(self, x):
        input = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)
        x = self.norm(x)
        x = self.pwconv1(x)
        x = self.act(x)
        x = self.pwconv2(x)
        x = self.gamma * x
        x = x.permute(0, 3, 1, 2)
        return input + x


torch.manual_seed(0)
block = Block(8, layer_scale_init_value=0.5)
x = torch.randn(2, 8, 9, 9)
y = block(x)
print(y.shape, y.stride(), y.is_contiguous())
head = nn.Sequential(nn.GroupNorm(2, 8), nn.AdaptiveMaxPool2d((2, 2)), nn.Flatten(), nn.Linear(32, 3))
print(head)
logits = head(y)
loss = F.cross_entropy(logits, torch.tensor([0, 2]))
loss.backward()
print(f"{loss.item():.4f}", block.gamma.grad)
print(head[0].weight.grad, head[0].bias.grad)
pooled, indices = F.adaptive_max_pool2d(y[:, :2], 2, return_indices=True)
print(indices[0, 0])
