"""BERT-Chinese with a tied MLM head: the embedding table is the head's MatMul weight."""
from mindspore import nn, ops


class BertConfig:
    def __init__(self, vocab_size=21128, hidden_size=768, type_vocab_size=2):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.type_vocab_size = type_vocab_size


class BertForMaskedLM(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.token_type = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.matmul = ops.MatMul(transpose_b=True)

    def construct(self, ids, types):
        hidden = self.word_embeddings(ids) + self.token_type(types)
        return self.matmul(hidden, self.word_embeddings.embedding_table)
