# Variable-length batches for an RNN: pad_sequence, pack_padded_sequence with and
# without sorting, an LSTM over the packed batch, pad_packed_sequence, and the last
# real time step picked per sequence.
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
seqs = [torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6, 7, 8]), torch.tensor([9])]
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True)
print(padded)
embedding = nn.Embedding(10, 4, padding_idx=0)
lstm = nn.LSTM(4, 3, batch_first=True)
embedded = embedding(padded)
packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
print(packed.data.shape, type(packed).__name__)
packed_out, (h, c) = lstm(packed)
out, out_lengths = pad_packed_sequence(packed_out, batch_first=True)
print(out.shape, out_lengths)
print(out[0, 3:], out[2, 1:].abs().sum())
last = out[torch.arange(3), lengths - 1]
print(torch.allclose(last, h[0]))
last.sum().backward()
print(embedding.weight.grad[0], embedding.weight.grad[5].shape)
sorted_packed = pack_padded_sequence(embedded[[1, 0, 2]], [5, 3, 1], batch_first=True)
print(sorted_packed.sorted_indices, sorted_packed.batch_sizes)
