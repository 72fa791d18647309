import mindspore.nn as nn


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Dense(512, 256)
        self.decoder = nn.Dense(256, 512)

    def construct(self, x):
        return self.decoder(self.encoder(x))
