import mindspore.nn as nn
import mindspore.ops as ops


class ResNet(nn.Cell):
    def __init__(self, class_num):
        super().__init__()
        self.mean = ops.ReduceMean(keep_dims=False)
        self.end_point = nn.Dense(2048, class_num)

    def construct(self, x):
        return self.end_point(self.mean(x, (2, 3)))


def resnet50(class_num=1001):
    return ResNet(class_num)


def resnet18(class_num=1001):
    return ResNet(class_num)
