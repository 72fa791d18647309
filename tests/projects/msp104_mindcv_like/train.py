"""Train a classifier chosen by name from a YAML config."""
from mindcv.models import create_model
from mindspore import nn
from mindspore.train import Model

from config import parse_args


def main():
    args = parse_args()
    network = create_model(
        model_name=args.model,
        num_classes=args.num_classes,
        pretrained=args.pretrained,
        checkpoint_path=args.ckpt_path,
    )
    loss = nn.CrossEntropyLoss()
    optimizer = nn.Momentum(network.trainable_params(), 0.1, 0.9)
    model = Model(network, loss, optimizer)
    model.train(args.epoch_size, dataset)


if __name__ == "__main__":
    main()
