"""A VGG-style image classifier: four 3x3 convolution stages (64-128-256-512 channels), global average
pooling and one linear layer. Almost all of its work is convolution: 1.55 M convolution weights, 5 k in the
classifier.

Comments marked "ms-perflint:" say what the linter reports on a line, or why
a similar-looking line is fine.
"""

import mindspore.nn as nn


class SmallVGG(nn.Cell):
    """Conv-BN-ReLU stages with max pooling between them, then global pooling and a linear classifier."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.SequentialCell(
            nn.Conv2d(3, 64, 3, pad_mode="same", has_bias=False), nn.BatchNorm2d(64), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(64, 128, 3, pad_mode="same", has_bias=False), nn.BatchNorm2d(128), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(128, 256, 3, pad_mode="same", has_bias=False), nn.BatchNorm2d(256), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(256, 512, 3, pad_mode="same", has_bias=False), nn.BatchNorm2d(512), nn.ReLU(),
        )
        # ms-perflint: fine for MSP101 -- one 512x10 classifier is little MatMul work: the network's work is in
        # its convolutions, which train_cnn.py's MSP107 is about.
        self.classifier = nn.Dense(512, num_classes)

    def construct(self, x):
        return self.classifier(self.features(x).mean(axis=(2, 3)))
