import mindspore.nn as nn


class Block(nn.Cell):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Dense(width, width)

    def construct(self, x):
        return self.proj(x)


class Backbone(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.SequentialCell([Block(256), Block(256)])

    def construct(self, x):
        return self.blocks(x)


class Classifier(nn.Cell):
    """Nothing casts a Classifier: its Dense stays float32."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(256, 16)

    def construct(self, x):
        return self.fc(x)
