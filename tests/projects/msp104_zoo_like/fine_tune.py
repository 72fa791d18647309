"""Fine-tune from a trained checkpoint."""
import mindspore as ms
from mindspore import nn

from src.model_utils.config import config
from src.resnet import resnet50

if __name__ == "__main__":
    net = resnet50(class_num=config.class_num)
    ms.load_param_into_net(net, ms.load_checkpoint(config.checkpoint_path))
    opt = nn.Momentum(net.trainable_params(), config.lr, config.momentum)
    ms.Model(net, optimizer=opt).train(config.epoch_size, dataset)
