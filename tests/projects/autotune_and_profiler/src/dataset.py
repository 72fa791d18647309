import mindspore.dataset as ds


def create_dataset(data_path, batch_size=32):
    ds.config.set_enable_autotune(True)
    dataset = ds.MnistDataset(data_path)
    return dataset.batch(batch_size)
