"""The run's configuration: a YAML file, overridable from the command line."""
import argparse

import yaml


def get_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config_path", type=str, default="config/resnet50_imagenet2012_config.yaml")
    path_args, _ = parser.parse_known_args()
    with open(path_args.config_path) as handle:
        values = yaml.safe_load(handle)
    return argparse.Namespace(**values)


config = get_config()
