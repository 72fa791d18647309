"""Command-line options; a YAML config given with --config overrides the defaults."""
import argparse

import yaml


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", type=str, default="")
    parser.add_argument("--model", type=str, default="mobilenet_v2")
    parser.add_argument("--num_classes", type=int, default=None)
    parser.add_argument("--pretrained", type=bool, default=False)
    parser.add_argument("--ckpt_path", type=str, default="")
    parser.add_argument("--ckpt_save_dir", type=str, default="./ckpt")
    parser.add_argument("--epoch_size", type=int, default=90)
    args, _ = parser.parse_known_args()
    if args.config:
        with open(args.config) as handle:
            parser.set_defaults(**yaml.safe_load(handle))
    return parser.parse_args()
