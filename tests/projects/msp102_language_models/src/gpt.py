"""A GPT with an untied LM head; its widths come from the YAML config the script loads."""
from mindspore import nn


class GPT(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.embedding = nn.Embedding(config.vocab_size, config.hidden_size)
        self.proj = nn.Dense(config.hidden_size, config.hidden_size)
        self.lm_head = nn.Dense(config.hidden_size, config.vocab_size, has_bias=False)

    def construct(self, ids):
        return self.lm_head(self.proj(self.embedding(ids)))


class SentenceClassifier(nn.Cell):
    """Built from the same config: its head is a class count, its pre-logits MLP runs on pooled features."""

    def __init__(self, config):
        super().__init__()
        self.pre_logits = nn.Dense(config.hidden_size, 1500)
        self.classifier = nn.Dense(1500, config.num_labels)

    def construct(self, pooled):
        return self.classifier(self.pre_logits(pooled))
