import mindspore.nn as nn


class Head(nn.Cell):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.dense = nn.Dense(in_channels, num_classes)

    def construct(self, x):
        return self.dense(x)
