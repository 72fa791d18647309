import argparse

from src.resnet import resnet50

parser = argparse.ArgumentParser()
parser.add_argument("--class_num", type=int, default=1000)
parser.add_argument("--batch_size", type=int, default=1000)
args = parser.parse_args()
net = resnet50(class_num=args.class_num)
