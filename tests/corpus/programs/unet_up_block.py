# The Pytorch-UNet parts: DoubleConv, Down (max pool then DoubleConv) and Up (transposed
# convolution, padding to the skip connection's size, concatenation).
import torch
import torch.nn as nn
import torch.nn.functional as F


class DoubleConv(nn.Module):
    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True)
        )

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


torch.manual_seed(0)
inc, down, up = DoubleConv(1, 4), Down(4, 8), Up(8, 4)
outc = nn.Conv2d(4, 2, kernel_size=1)
x = torch.randn(1, 1, 9, 9)
x1 = inc(x)
x2 = down(x1)
print(x1.shape, x2.shape)
logits = outc(up(x2, x1))
print(logits.shape, logits.grad_fn)
loss = F.cross_entropy(logits, torch.randint(0, 2, (1, 9, 9)))
loss.backward()
print(f"{loss.item():.4f}", up.up.weight.grad.shape, up.up.bias.grad)
print(up.up)
