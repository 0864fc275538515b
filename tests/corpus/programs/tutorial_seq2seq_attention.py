# "NLP From Scratch: Translation with a Sequence to Sequence Network and Attention":
# the GRU encoder, Bahdanau attention and the attention decoder, run greedily for a few
# steps with teacher forcing off.
import torch
import torch.nn as nn
import torch.nn.functional as F

SOS_token, MAX_LENGTH = 0, 4


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super(EncoderRNN, self).__init__()
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        return self.gru(embedded)


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BahdanauAttention, self).__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, encoder_outputs, encoder_hidden):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs, attentions = [], []
        for i in range(MAX_LENGTH):
            embedded = self.embedding(decoder_input)
            query = decoder_hidden.permute(1, 0, 2)
            context, attn_weights = self.attention(query, encoder_outputs)
            output, decoder_hidden = self.gru(torch.cat((embedded, context), dim=2), decoder_hidden)
            output = self.out(output)
            decoder_outputs.append(output)
            attentions.append(attn_weights)
            _, topi = output.topk(1)
            decoder_input = topi.squeeze(-1).detach()
        decoder_outputs = F.log_softmax(torch.cat(decoder_outputs, dim=1), dim=-1)
        return decoder_outputs, decoder_hidden, torch.cat(attentions, dim=1)


torch.manual_seed(0)
encoder, decoder = EncoderRNN(10, 6), AttnDecoderRNN(6, 12)
input_tensor = torch.tensor([[1, 4, 2, 7, 3], [2, 2, 9, 1, 0]])
target_tensor = torch.tensor([[3, 5, 1, 0], [4, 4, 2, 0]])
encoder_outputs, encoder_hidden = encoder(input_tensor)
decoder_outputs, _, attentions = decoder(encoder_outputs, encoder_hidden)
loss = nn.NLLLoss()(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
loss.backward()
print(encoder_outputs.shape, attentions.shape, f"{loss.item():.4f}")
print(decoder_outputs.argmax(-1))
print(attentions[0, 0], encoder.gru.weight_ih_l0.grad.shape)
