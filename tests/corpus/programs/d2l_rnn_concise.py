# d2l.ai 9.6 "Concise Implementation of Recurrent Neural Networks": nn.RNN over one-hot
# inputs, its hidden state, and a linear head over every time step.
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
vocab_size, num_hiddens = 12, 16
rnn_layer = nn.RNN(vocab_size, num_hiddens)
print(rnn_layer)
state = torch.zeros((1, 2, num_hiddens))
print(state.shape)
X = torch.rand(size=(5, 2, vocab_size))
Y, state_new = rnn_layer(X, state)
print(Y.shape, state_new.shape)
print(Y.grad_fn, torch.equal(Y[-1], state_new[0]))


class RNNModel(nn.Module):
    def __init__(self, rnn_layer, vocab_size):
        super(RNNModel, self).__init__()
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        self.num_directions = 1
        self.linear = nn.Linear(self.num_hiddens, self.vocab_size)

    def forward(self, inputs, state):
        X = F.one_hot(inputs.T.long(), self.vocab_size)
        X = X.to(torch.float32)
        Y, state = self.rnn(X, state)
        output = self.linear(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, batch_size=1):
        return torch.zeros((self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens))


net = RNNModel(rnn_layer, vocab_size)
inputs = torch.randint(0, vocab_size, (2, 5))
state = net.begin_state(batch_size=2)
output, state = net(inputs, state)
print(output.shape, state.shape)
loss = F.cross_entropy(output, inputs.T.reshape(-1))
loss.backward()
print(f"{loss.item():.4f}")
print(rnn_layer.weight_hh_l0.grad.norm())
print([name for name, _ in rnn_layer.named_parameters()])
