# The M5 network of the speech-command tutorial: 1-D convolutions over a raw waveform, batch norm,
# max pooling, a global average pool and log-softmax, trained one step with nll_loss (SGD with momentum
# here: a bias before batch norm has a gradient of rounding noise, which Adam's first step would magnify).
import torch
import torch.nn as nn
import torch.nn.functional as F


class M5(nn.Module):
    def __init__(self, n_input=1, n_output=5, stride=4, n_channel=8):
        super().__init__()
        self.conv1 = nn.Conv1d(n_input, n_channel, kernel_size=20, stride=stride)
        self.bn1 = nn.BatchNorm1d(n_channel)
        self.pool1 = nn.MaxPool1d(4)
        self.conv2 = nn.Conv1d(n_channel, n_channel, kernel_size=3)
        self.bn2 = nn.BatchNorm1d(n_channel)
        self.pool2 = nn.MaxPool1d(4)
        self.conv3 = nn.Conv1d(n_channel, 2 * n_channel, kernel_size=3)
        self.bn3 = nn.BatchNorm1d(2 * n_channel)
        self.pool3 = nn.MaxPool1d(2)
        self.fc1 = nn.Linear(2 * n_channel, n_output)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(self.bn1(x))
        x = self.pool1(x)
        x = self.conv2(x)
        x = F.relu(self.bn2(x))
        x = self.pool2(x)
        x = self.conv3(x)
        x = F.relu(self.bn3(x))
        x = self.pool3(x)
        x = F.avg_pool1d(x, x.shape[-1])
        x = x.permute(0, 2, 1)
        x = self.fc1(x)
        return F.log_softmax(x, dim=2)


torch.manual_seed(0)
model = M5()
print(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=0.0001)
waveform = torch.randn(3, 1, 800)
target = torch.tensor([0, 3, 1])
output = model(waveform)
print(output.shape, output.grad_fn)
loss = F.nll_loss(output.squeeze(), target)
optimizer.zero_grad()
loss.backward()
optimizer.step()
pred = output.argmax(dim=-1)
print(f"{loss.item():.4f}", pred.squeeze(), model.conv1.weight.grad.shape)
