from mindspore import nn
from mindspore.train import Model

from src.args import parse_args
from src.network import Network


def main():
    args = parse_args()
    net = Network()
    loss = nn.MSELoss()
    opt = nn.Adam(net.trainable_params())
    return Model(net, loss_fn=loss, optimizer=opt, amp_level=args.amp_level)


if __name__ == "__main__":
    main()
