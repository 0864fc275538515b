# "NLP From Scratch: Classifying Names with a Character-Level RNN": one-hot letters, an
# nn.RNN classifier over a name, categoryFromOutput with topk, and a few SGD steps.
import torch
import torch.nn as nn
import torch.nn.functional as F

all_letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + " .,;'"
n_letters = len(all_letters)
all_categories = ['English', 'French', 'Greek']


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(CharRNN, self).__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        return self.softmax(output)


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return all_categories[category_i], category_i


torch.manual_seed(0)
print(lineToTensor('Jones').size(), lineToTensor('J').nonzero())
rnn = CharRNN(n_letters, 16, len(all_categories))
print(rnn)
output = rnn(lineToTensor('Albert'))
print(output, categoryFromOutput(output))
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.05)
names = [('Smith', 0), ('Dubois', 1), ('Papadopoulos', 2), ('Jones', 0)]
for epoch in range(3):
    total = 0.0
    for name, label in names:
        rnn.zero_grad()
        loss = criterion(rnn(lineToTensor(name)), torch.tensor([label]))
        loss.backward()
        nn.utils.clip_grad_norm_(rnn.parameters(), 3)
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch}: {total / len(names):.4f}")
print(categoryFromOutput(rnn(lineToTensor('Satoshi'))))
