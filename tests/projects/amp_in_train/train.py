from mindspore import nn
from mindspore.train import Model

from src.model import Net


def main():
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    return Model(net, loss_fn=loss, optimizer=opt, amp_level="O2")


if __name__ == "__main__":
    main()
