import mindspore as ms

from src.dataset import create_dataset


def main():
    profiler = ms.Profiler(output_path="./profile", data_process=True)
    dataset = create_dataset("./mnist")
    profiler.analyse()
    return dataset
