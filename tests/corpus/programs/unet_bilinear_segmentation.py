# Pytorch-UNet's Up block in its bilinear form (nn.Upsample, then a convolution halving the channels)
# trained for one step on a binary mask with BCEWithLogitsLoss, as the repository's train.py does for
# one class.
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


class Up(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
        self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


torch.manual_seed(0)
inc = DoubleConv(1, 4)
down = nn.Sequential(nn.MaxPool2d(2), DoubleConv(4, 4))
up = Up(8, 4)
outc = nn.Conv2d(4, 1, kernel_size=1)
params = [*inc.parameters(), *down.parameters(), *up.parameters(), *outc.parameters()]
optimizer = torch.optim.RMSprop(params, lr=1e-3, weight_decay=1e-8, momentum=0.9)
criterion = nn.BCEWithLogitsLoss()

image = torch.randn(2, 1, 9, 9)
mask = (torch.rand(2, 9, 9) > 0.5).float()
x1 = inc(image)
x2 = down(x1)
masks_pred = outc(up(x2, x1))
print(masks_pred.shape, masks_pred.grad_fn, up.up)
loss = criterion(masks_pred.squeeze(1), mask)
loss.backward()
optimizer.step()
print(f"{loss.item():.4f}", outc.weight.grad.shape, loss.grad_fn)
probs = torch.sigmoid(masks_pred.detach()) > 0.5
print(probs.float().mean())
