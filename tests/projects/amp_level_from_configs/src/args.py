import argparse


def parse_args():
    parser = argparse.ArgumentParser(description="train")
    parser.add_argument("--amp_level", type=str, default="O0", choices=["O0", "O1", "O2", "O3"])
    parser.add_argument("--epochs", type=int, default=10)
    return parser.parse_args()
