"""A standalone probe: no program that enables AMP uses it, so its Dense is reported."""
import mindspore.nn as nn


class Probe(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(64, 64)

    def construct(self, x):
        return self.fc(x)
