# torchvision's resnet.py: conv3x3, BasicBlock with its in-place ReLU and `out += identity`,
# a downsampling shortcut, and the init loop over modules.
import torch
import torch.nn as nn


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                     groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


torch.manual_seed(0)
downsample = nn.Sequential(conv1x1(4, 8, 2), nn.BatchNorm2d(8))
layer = nn.Sequential(BasicBlock(4, 8, 2, downsample), BasicBlock(8, 8))
for m in layer.modules():
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
        nn.init.constant_(m.weight, 1)
        nn.init.constant_(m.bias, 0)
print(layer[0])
x = torch.randn(2, 4, 8, 8)
out = layer(x)
print(out.shape, out.grad_fn, out._version)
out.mean().backward()
print(layer[0].conv1.weight.grad.norm(), layer[1].bn2.bias.grad)
print(layer[0].bn1.running_mean)
