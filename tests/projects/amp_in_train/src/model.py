"""A small classifier: its Dense layers are covered by the AMP level train.py sets."""
import mindspore.nn as nn

from src.head import Head


class Net(nn.Cell):
    def __init__(self, num_classes=16):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(256, 128)
        self.head = Head(128, num_classes)

    def construct(self, x):
        return self.head(self.fc(self.flatten(x)))
