import mindspore as ms

from src.factory import create_backbone


def build():
    net = create_backbone()
    net.to_float(ms.float16)
    return net
