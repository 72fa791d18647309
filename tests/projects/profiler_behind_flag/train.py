import argparse

import mindspore as ms

from src.dataset import create_dataset

parser = argparse.ArgumentParser()
parser.add_argument("--profile", type=bool, default=False, help="profile instead of training fast")
args = parser.parse_args()

if args.profile:
    profiler = ms.Profiler(output_path="./profile", data_process=True)
dataset = create_dataset("./mnist")
