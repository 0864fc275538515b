# The "Saving and Loading Models" tutorial, to an in-memory buffer: the state_dict of a
# model and its optimizer, a general checkpoint, and loading it back for inference.
import io
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class TheModelClass(nn.Module):
    def __init__(self):
        super(TheModelClass, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 12)
        self.fc2 = nn.Linear(12, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        return self.fc2(F.relu(self.fc1(x)))


torch.manual_seed(0)
model = TheModelClass()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])

x = torch.randn(2, 3, 32, 32)
loss = model(x).pow(2).mean()
loss.backward()
optimizer.step()

buffer = io.BytesIO()
torch.save({'epoch': 1, 'model_state_dict': model.state_dict(),
            'optimizer_state_dict': optimizer.state_dict(), 'loss': loss}, buffer)
buffer.seek(0)
checkpoint = torch.load(buffer, weights_only=True)
restored = TheModelClass()
print(restored.load_state_dict(checkpoint['model_state_dict']))
restored_opt = optim.SGD(restored.parameters(), lr=0.5)
restored_opt.load_state_dict(checkpoint['optimizer_state_dict'])
print(checkpoint['epoch'], checkpoint['loss'], restored_opt.param_groups[0]['lr'])
restored.eval()
print(torch.equal(restored(x), model(x)))
print(restored_opt.state[restored.fc2.bias]['momentum_buffer'])
