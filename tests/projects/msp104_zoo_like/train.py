"""Train ResNet-50 on ImageNet."""
import mindspore as ms
from mindspore import nn

from src.model_utils.config import config
from src.resnet import resnet50
from src.util import init_weight


def train_net():
    ms.set_context(device_target=config.device_target)
    net = resnet50(class_num=config.class_num)
    init_weight(net, config)
    opt = nn.Momentum(net.trainable_params(), config.lr, config.momentum)
    model = ms.Model(net, loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True), optimizer=opt)
    model.train(config.epoch_size, dataset)


if __name__ == "__main__":
    train_net()
