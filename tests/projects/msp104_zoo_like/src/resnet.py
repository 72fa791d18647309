"""ResNet-50 in the model zoo's style."""
from mindspore import nn


class ResNet(nn.Cell):
    def __init__(self, layers, num_classes):
        super().__init__()
        self.layers = layers
        self.end_point = nn.Dense(2048, num_classes)

    def construct(self, x):
        return self.end_point(x)


def resnet50(class_num=10):
    return ResNet([3, 4, 6, 3], class_num)
