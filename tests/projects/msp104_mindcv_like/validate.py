"""Evaluate a checkpoint with the same configs."""
from mindcv.models import create_model
from mindspore.train import Model

from config import parse_args

if __name__ == "__main__":
    args = parse_args()
    network = create_model(model_name=args.model, num_classes=args.num_classes, checkpoint_path=args.ckpt_path)
    print(Model(network).eval(dataset))
