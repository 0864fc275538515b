# The "Datasets & DataLoaders" tutorial with a map-style Dataset of our own: __len__ and
# __getitem__, a transform, shuffling with the manual seed, drop_last, random_split
# with its own generator, and iterating batches.
import torch
from torch.utils.data import Dataset, DataLoader, random_split


class SquaresDataset(Dataset):
    def __init__(self, n, transform=None):
        self.x = torch.arange(n, dtype=torch.float32)
        self.transform = transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        sample = self.x[idx]
        label = int(idx) % 3
        if self.transform:
            sample = self.transform(sample)
        return sample, label


torch.manual_seed(0)
dataset = SquaresDataset(10, transform=lambda v: v ** 2)
print(len(dataset), dataset[3])
loader = DataLoader(dataset, batch_size=4, shuffle=True)
for features, labels in loader:
    print(features, labels)
print(len(loader))
loader = DataLoader(dataset, batch_size=4, shuffle=True, drop_last=True)
print(len(loader), [labels.tolist() for _, labels in loader])
train_set, val_set = random_split(dataset, [7, 3], generator=torch.Generator().manual_seed(42))
print(len(train_set), len(val_set), train_set.indices, val_set.indices)
print(val_set[0])
halves = random_split(range(10), [0.5, 0.5], generator=torch.Generator().manual_seed(1))
print([list(h) for h in halves])
batch = next(iter(DataLoader(val_set, batch_size=2)))
print(batch)
print(torch.randn(2))
